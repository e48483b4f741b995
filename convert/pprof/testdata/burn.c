/* CPU-bound test program for pprof: two hot leaves under different call
 * chains, so that flat and stack shares are easy to check. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void leaf_a(int n)
{
	for (int i = 0; i < n; i++)
		sink += i * 3;
}

__attribute__((noinline)) static void leaf_b(int n)
{
	for (int i = 0; i < n; i++)
		sink ^= i * 7;
}

__attribute__((noinline)) static void mid(int n)
{
	leaf_a(n);
	leaf_b(n / 2);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	for (int r = 0; r < rounds; r++) {
		mid(1000000);
		leaf_b(1000000);
	}
	printf("%lu\n", sink);
	return 0;
}
