/* Test program for srcline: inlined calls, loops, a static helper and a
 * function split by -O2 into parts. Built -g -O0 and -g -O2 by the tests. */
#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) int sq(int x)
{
	return x * x;
}

static inline int add_sq(int a, int b)
{
	return sq(a) + sq(b);
}

static __attribute__((noinline)) int sum(const int *v, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += add_sq(v[i], i);
	return s;
}

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	if (n <= 0 || n > 1000)
		return 1;
	int *v = malloc(n * sizeof *v);
	for (int i = 0; i < n; i++)
		v[i] = (i * 7919) % 101;
	qsort(v, n, sizeof *v, cmp);
	printf("%d\n", sum(v, n));
	free(v);
	return 0;
}
