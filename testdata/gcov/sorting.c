/* qsort and bsearch callbacks, comparison functions with several returns,
 * and recursion: a hand-written merge sort and a binary search. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	char name[12];
	int age;
};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	if (x < y)
		return -1;
	if (x > y)
		return 1;
	return 0;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *r = a, *s = b;
	int c = strcmp(r->name, s->name);
	if (c != 0)
		return c;
	return r->age - s->age;
}

static void merge_sort(int *v, int *tmp, int n)
{
	if (n < 2)
		return;
	int h = n / 2;
	merge_sort(v, tmp, h);
	merge_sort(v + h, tmp, n - h);
	int i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = v[i] <= v[j] ? v[i++] : v[j++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, (size_t)n * sizeof *v);
}

static int search(const int *v, int lo, int hi, int key)
{
	if (lo > hi)
		return -1;
	int mid = lo + (hi - lo) / 2;
	if (v[mid] == key)
		return mid;
	else if (v[mid] < key)
		return search(v, mid + 1, hi, key);
	else
		return search(v, lo, mid - 1, key);
}

int main(int argc, char **argv)
{
	int n = argc - 1;
	int *a = malloc(sizeof(int) * (size_t)(n + 1));
	int *b = malloc(sizeof(int) * (size_t)(n + 1));
	int *t = malloc(sizeof(int) * (size_t)(n + 1));
	struct rec *r = calloc((size_t)n + 1, sizeof *r);
	for (int i = 0; i < n; i++) {
		a[i] = b[i] = atoi(argv[i + 1]);
		snprintf(r[i].name, sizeof r[i].name, "%.11s", argv[i + 1]);
		r[i].age = i % 3;
	}
	qsort(a, (size_t)n, sizeof *a, cmp_int);
	merge_sort(b, t, n);
	qsort(r, (size_t)n, sizeof *r, cmp_rec);
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			printf("mismatch at %d\n", i);
	int key = n > 0 ? a[n / 2] : 0;
	int *hit = n > 0 ? bsearch(&key, a, (size_t)n, sizeof *a, cmp_int) : NULL;
	printf("%d %d %s\n", search(a, 0, n - 1, key), hit ? (int)(hit - a) : -1, n ? r[0].name : "-");
	printf("%d\n", search(a, 0, n - 1, 123456));
	free(a);
	free(b);
	free(t);
	free(r);
	return 0;
}
