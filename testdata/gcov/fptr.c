/* Function pointers: an operation table, qsort with comparators called back
 * from libc, and a pointer-chasing dispatch loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*op_fn)(int, int);

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b)
{
	return a * b;
}
static int maxi(int a, int b)
{
	return a > b ? a : b;
}

static const struct {
	char name;
	op_fn fn;
} ops[] = {{'+', add}, {'-', sub}, {'*', mul}, {'m', maxi}};

static op_fn lookup(char c)
{
	for (unsigned i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (ops[i].name == c)
			return ops[i].fn;
	return NULL;
}

static int up(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int down(const void *a, const void *b)
{
	return *(const int *)b - *(const int *)a;
}

int main(int argc, char **argv)
{
	const char *prog = argc > 1 ? argv[1] : "+*";
	int n = argc > 2 ? atoi(argv[2]) : 8;
	int acc = 1;
	for (int i = 1; i <= n; i++) {
		for (const char *p = prog; *p; p++) {
			op_fn f = lookup(*p);
			if (f)
				acc = f(acc, i) % 10007;
		}
	}
	int v[32];
	for (int i = 0; i < 32; i++)
		v[i] = (acc * (i + 3)) % 97;
	qsort(v, 32, sizeof v[0], n % 2 ? up : down);
	printf("%d %d %d\n", acc, v[0], v[31]);
	return 0;
}
