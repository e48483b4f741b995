/* recurse: deep recursion. Ackermann's function (recursion thousands of
 * frames deep, beyond any return-compression stack) and a naive recursive
 * Fibonacci (shallow, very many calls). Benchmark input for
 * scripts/bench.sh. Usage: recurse N */
#include <stdio.h>
#include <stdlib.h>

static long ack(long m, long n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ack(m - 1, 1);
	return ack(m - 1, ack(m, n - 1));
}

static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 8;
	long s = 0;
	for (long i = 0; i < n; i++)
		s += ack(2, 2000 + i) + fib(20);
	printf("%ld\n", s);
	return 0;
}
