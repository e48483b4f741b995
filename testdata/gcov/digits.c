/* digits.c: do/while loops (digit extraction, Newton steps, a retry
   counter) and while loops whose body is a single call. */
#include <stdio.h>
#include <stdlib.h>

static int digit_sum(unsigned long v)
{
	int s = 0;
	do {
		s += v % 10;
		v /= 10;
	} while (v);
	return s;
}

static int digital_root(unsigned long v)
{
	int r;
	do
		r = digit_sum(v), v = r;
	while (r >= 10);
	return r;
}

static unsigned isqrt(unsigned long v)
{
	if (v < 2)
		return v;
	unsigned long x = v, y;
	do {
		y = x;
		x = (x + v / x) / 2;
	} while (x < y);
	return y;
}

static int reverse(int v)
{
	int r = 0, neg = v < 0;
	if (neg)
		v = -v;
	do {
		r = r * 10 + v % 10;
	} while ((v /= 10) != 0);
	return neg ? -r : r;
}

static int collatz(unsigned long v)
{
	int steps = 0;
	while (v != 1) {
		if (v & 1)
			v = 3 * v + 1;
		else
			v >>= 1;
		steps++;
	}
	return steps;
}

int main(int argc, char **argv)
{
	int i = 1;
	if (argc < 2)
		return 1;
	do {
		unsigned long v = strtoul(argv[i], 0, 10);
		printf("%lu: sum %d root %d sqrt %u rev %d", v, digit_sum(v), digital_root(v), isqrt(v),
		       reverse((int)v));
		if (v > 0)
			printf(" collatz %d", collatz(v));
		putchar('\n');
	} while (++i < argc);
	return 0;
}
