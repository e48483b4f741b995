/* sort: libc qsort with a comparison callback (indirect calls), a
 * hand-written merge sort and an insertion sort on pseudo-random data.
 * Benchmark input for scripts/bench.sh. Usage: sort N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long rng = 88172645463325252UL;
static unsigned long next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

static int cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

static void merge(long *a, long *tmp, long n)
{
	if (n < 16) {
		for (long i = 1; i < n; i++) {
			long v = a[i], j = i;
			while (j > 0 && a[j - 1] > v) { a[j] = a[j - 1]; j--; }
			a[j] = v;
		}
		return;
	}
	long h = n / 2;
	merge(a, tmp, h);
	merge(a + h, tmp, n - h);
	long i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < h) tmp[k++] = a[i++];
	while (j < n) tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof *a);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	long *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *t = malloc(n * sizeof *t);
	for (long i = 0; i < n; i++) a[i] = b[i] = (long)(next() % 1000000);
	qsort(a, n, sizeof *a, cmp);
	merge(b, t, n);
	long bad = 0;
	for (long i = 0; i < n; i++) bad += a[i] != b[i];
	printf("%ld %ld\n", a[n / 2], bad);
	return 0;
}
