/* pick.c: ternaries, nested and chained, as values, arguments, array
   indices and return expressions. */
#include <stdio.h>
#include <stdlib.h>

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static const char *sign(int v)
{
	return v < 0 ? "neg" : v == 0 ? "zero" : "pos";
}

static int median3(int a, int b, int c)
{
	return a < b ? (b < c ? b : (a < c ? c : a))
		     : (a < c ? a : (b < c ? c : b));
}

static unsigned gray(unsigned v, int inverse)
{
	unsigned r = inverse ? 0 : v ^ (v >> 1);
	if (inverse)
		for (; v; v >>= 1)
			r ^= v;
	return r;
}

int main(int argc, char **argv)
{
	int vals[64], n = 0;
	for (int i = 1; i < argc && n < 64; i++)
		vals[n++] = atoi(argv[i]);
	int big = 0;
	for (int i = 0; i < n; i++) {
		int v = vals[i];
		int c = clamp(v, -5, 50);
		big += v > 50 ? 1 : 0;
		printf("%d %s clamp=%d gray=%u/%u", v, sign(v), c, gray(c > 0 ? c : -c, 0),
		       gray(gray(c < 0 ? 0 : c, 0), 1));
		if (i >= 2)
			printf(" med=%d", median3(vals[i - 2], vals[i - 1], v));
		putchar(i % 2 ? '\n' : ' ');
	}
	printf("\nbig %d of %d (%s)\n", big, n, n ? (big * 2 > n ? "most" : "few") : "none");
	return 0;
}
