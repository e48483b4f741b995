/* stats.c: statistics of the integers on its command line (written for
   the -O2 comparison of issue 20): loops with early exits, min/max that
   become conditional moves, a qsort callback, a static helper used once
   and one used often, a recursive median of medians, a do/while. */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 64

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int clamp(int v, int lo, int hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

static long sum(const int *v, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

static int select_kth(int *v, int n, int k)
{
	int pivot = v[n / 2], lo = 0, hi = n - 1;
	while (lo <= hi) {
		while (v[lo] < pivot)
			lo++;
		while (v[hi] > pivot)
			hi--;
		if (lo <= hi) {
			int t = v[lo];
			v[lo] = v[hi];
			v[hi] = t;
			lo++;
			hi--;
		}
	}
	if (k <= hi)
		return select_kth(v, hi + 1, k);
	if (k >= lo)
		return select_kth(v + lo, n - lo, k - lo);
	return v[k];
}

static int digits(long x)
{
	int d = 0;
	if (x < 0)
		x = -x;
	do {
		d++;
		x /= 10;
	} while (x);
	return d;
}

static void histogram(const int *v, int n)
{
	int buckets[5] = {0};
	for (int i = 0; i < n; i++)
		buckets[clamp(v[i] / 10, 0, 4)]++;
	for (int b = 0; b < 5; b++) {
		if (!buckets[b])
			continue;
		printf("%2d: ", b * 10);
		for (int j = 0; j < buckets[b]; j++)
			putchar('#');
		putchar('\n');
	}
}

int main(int argc, char **argv)
{
	int v[MAXN], w[MAXN], n = 0, lo, hi;
	for (int i = 1; i < argc && n < MAXN; i++) {
		char *end;
		long x = strtol(argv[i], &end, 10);
		if (*end) {
			fprintf(stderr, "skip %s\n", argv[i]);
			continue;
		}
		v[n++] = (int)x;
	}
	if (n == 0) {
		puts("empty");
		return 1;
	}
	lo = hi = v[0];
	for (int i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	for (int i = 0; i < n; i++)
		w[i] = v[i];
	int med = select_kth(w, n, n / 2);
	qsort(v, n, sizeof v[0], cmp);
	long s = sum(v, n);
	printf("n %d min %d max %d sum %ld (%d digits) median %d sorted-median %d\n",
	       n, lo, hi, s, digits(s), med, v[n / 2]);
	histogram(v, n);
	return 0;
}
