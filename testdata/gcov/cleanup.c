/* Error paths with goto cleanup, several returns in functions with struct
 * and address-taken locals, and a function that falls off its end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	char *data;
	size_t len, cap;
};

static int buf_init(struct buf *b, size_t cap)
{
	b->data = malloc(cap);
	if (!b->data)
		return -1;
	b->len = 0;
	b->cap = cap;
	return 0;
}

static int buf_add(struct buf *b, const char *s)
{
	size_t n = strlen(s);
	if (b->len + n + 1 > b->cap) {
		size_t nc = b->cap * 2 + n;
		char *d = realloc(b->data, nc);
		if (!d)
			return -1;
		b->data = d;
		b->cap = nc;
	}
	memcpy(b->data + b->len, s, n + 1);
	b->len += n;
	return 0;
}

static int process(const char *a, const char *b, int fail_at)
{
	struct buf x, y;
	int rc = -1;
	if (buf_init(&x, 4) < 0)
		goto out;
	if (fail_at == 1)
		goto free_x;
	if (buf_init(&y, 2) < 0)
		goto free_x;
	if (buf_add(&x, a) < 0 ||
	    buf_add(&y, b) < 0)
		goto free_y;
	if (fail_at == 2)
		goto free_y;
	rc = (int)(x.len + y.len);
free_y:
	free(y.data);
free_x:
	free(x.data);
out:
	return rc;
}

static int checked(int v)
{
	struct buf b;
	if (v < 0)
		return -1;
	if (buf_init(&b, (size_t)v + 1) < 0)
		return -2;
	free(b.data);
	if (v > 10)
		return 1;
	return 0;
}

static int sign(int v)
{
	if (v > 0)
		return 1;
	if (v < 0)
		return -1;
}

int main(int argc, char **argv)
{
	int total = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		int r = process(argv[i], argv[i + 1], i % 3);
		total += r;
		total += checked(r);
		if (r != 0)
			total += sign(r);
	}
	printf("%d\n", total);
	return 0;
}
