/* helpers.c: static inline helpers called from several places (inlined
   everywhere, once, or kept out of line when large or recursive). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int min_i(int a, int b) { return a < b ? a : b; }
static inline int max_i(int a, int b) { return a > b ? a : b; }

static inline int abs_diff(int a, int b)
{
	int d = a - b;
	return d < 0 ? -d : d;
}

static inline unsigned hash_str(const char *s)
{
	unsigned h = 2166136261u;
	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

static inline int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static int count_words(const char *s)
{
	int n = 0, in = 0;
	for (; *s; s++) {
		if (is_space(*s))
			in = 0;
		else if (!in) {
			in = 1;
			n++;
		}
	}
	return n;
}

static int span(const int *v, int n)
{
	int lo = v[0], hi = v[0];
	for (int i = 1; i < n; i++) {
		lo = min_i(lo, v[i]);
		hi = max_i(hi, v[i]);
	}
	return abs_diff(hi, lo);
}

int main(int argc, char **argv)
{
	int v[32], n = 0;
	unsigned all = 0;
	for (int i = 1; i < argc; i++) {
		all ^= hash_str(argv[i]);
		if (n < 32)
			v[n++] = atoi(argv[i]) + (int)strlen(argv[i]);
		printf("%s: %u words %d\n", argv[i], hash_str(argv[i]) % 1000, count_words(argv[i]));
	}
	if (n)
		printf("span %d min %d max %d hash %u\n", span(v, n), min_i(v[0], v[n - 1]), max_i(v[0], v[n - 1]),
		       all % 9973);
	return 0;
}
