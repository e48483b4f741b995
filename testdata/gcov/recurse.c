/* Recursion: naive Fibonacci, mutual recursion and Ackermann. */
#include <stdio.h>
#include <stdlib.h>

static int is_odd(int n);

static int is_even(int n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1);
}

static int is_odd(int n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1);
}

static long fib(int n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

static int ack(int m, int n)
{
	if (m == 0)
		return n + 1;
	else if (n == 0)
		return ack(m - 1, 1);
	else
		return ack(m - 1, ack(m, n - 1));
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	int m = argc > 2 ? atoi(argv[2]) : 2;
	printf("fib(%d) = %ld\n", n, fib(n));
	printf("even(%d) = %d\n", n, is_even(n));
	if (m >= 0 && m <= 2)
		printf("ack(%d, 3) = %d\n", m, ack(m, 3));
	return 0;
}
