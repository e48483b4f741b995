/* ring.c: a ring buffer driven by one-letter commands (written for the
   -O2 comparison of issue 20): static helpers inlined once or often, a
   switch on chars, loops that wrap, a tail-recursive gcd. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP 8

struct ring {
	int buf[CAP];
	int head, len;
	long pushed, dropped;
};

static int is_full(const struct ring *r) { return r->len == CAP; }

static int is_empty(const struct ring *r)
{
	return r->len == 0;
}

static void push(struct ring *r, int v)
{
	if (is_full(r)) {
		r->head = (r->head + 1) % CAP;
		r->len--;
		r->dropped++;
	}
	r->buf[(r->head + r->len) % CAP] = v;
	r->len++;
	r->pushed++;
}

static int pop(struct ring *r, int *v)
{
	if (is_empty(r))
		return 0;
	*v = r->buf[r->head];
	r->head = (r->head + 1) % CAP;
	r->len--;
	return 1;
}

static long gcd(long a, long b)
{
	if (b == 0)
		return a;
	return gcd(b, a % b);
}

static long fold(const struct ring *r)
{
	long g = 0;
	for (int i = 0; i < r->len; i++) {
		int v = r->buf[(r->head + i) % CAP];
		if (v < 0)
			v = -v;
		g = gcd(v, g);
	}
	return g;
}

static void dump(const struct ring *r)
{
	printf("[");
	for (int i = 0; i < r->len; i++)
		printf(i ? " %d" : "%d", r->buf[(r->head + i) % CAP]);
	printf("]\n");
}

int main(int argc, char **argv)
{
	struct ring r;
	int v, errors = 0;

	memset(&r, 0, sizeof r);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		switch (a[0]) {
		case '+':
			push(&r, atoi(a + 1));
			break;
		case '-':
			if (pop(&r, &v))
				printf("pop %d\n", v);
			else
				errors++;
			break;
		case 'g':
			printf("gcd %ld\n", fold(&r));
			break;
		case 'p':
			dump(&r);
			break;
		case 'r':
			for (int k = atoi(a + 1); k > 0; k--)
				push(&r, k * 3);
			break;
		default:
			fprintf(stderr, "bad %s\n", a);
			errors++;
		}
	}
	printf("pushed %ld dropped %ld errors %d\n", r.pushed, r.dropped, errors);
	return errors != 0;
}
