/* Recursion over a binary search tree built with malloc: insert, height,
 * in-order walk with a callback, and a recursive-descent expression
 * evaluator with several returns per function. */
#include <stdio.h>
#include <stdlib.h>

struct node {
	int key;
	struct node *l, *r;
};

static struct node *insert(struct node *t, int k)
{
	if (!t) {
		t = calloc(1, sizeof *t);
		t->key = k;
		return t;
	}
	if (k < t->key)
		t->l = insert(t->l, k);
	else if (k > t->key)
		t->r = insert(t->r, k);
	return t;
}

static int height(const struct node *t)
{
	if (!t)
		return 0;
	int a = height(t->l), b = height(t->r);
	return 1 + (a > b ? a : b);
}

static void walk(const struct node *t, void (*f)(int, void *), void *arg)
{
	if (!t)
		return;
	walk(t->l, f, arg);
	f(t->key, arg);
	walk(t->r, f, arg);
}

static void add(int k, void *arg) { *(long *)arg += k; }

static void freetree(struct node *t)
{
	if (t) {
		freetree(t->l);
		freetree(t->r);
		free(t);
	}
}

static const char *pos;

static long expr(void);

static long factor(void)
{
	if (*pos == '(') {
		pos++;
		long v = expr();
		if (*pos == ')')
			pos++;
		return v;
	}
	if (*pos == '-') {
		pos++;
		return -factor();
	}
	long v = 0;
	while (*pos >= '0' && *pos <= '9')
		v = v * 10 + (*pos++ - '0');
	return v;
}

static long term(void)
{
	long v = factor();
	for (;;) {
		if (*pos == '*') {
			pos++;
			v *= factor();
		} else if (*pos == '/') {
			pos++;
			long d = factor();
			v = d ? v / d : 0;
		} else {
			return v;
		}
	}
}

static long expr(void)
{
	long v = term();
	while (*pos == '+' || *pos == '-') {
		char op = *pos++;
		long w = term();
		v = op == '+' ? v + w : v - w;
	}
	return v;
}

int main(int argc, char **argv)
{
	struct node *t = NULL;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '=') {
			pos = argv[i] + 1;
			printf("%s = %ld\n", argv[i] + 1, expr());
			continue;
		}
		t = insert(t, atoi(argv[i]));
	}
	long sum = 0;
	walk(t, add, &sum);
	printf("height %d sum %ld\n", height(t), sum);
	freetree(t);
	return 0;
}
