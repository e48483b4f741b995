/* cwork: a small C workload, linked statically for the corpus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

__attribute__((noinline)) static long crunch(int n) {
	long s = 0;
	for (int i = 0; i < n; i++) s += (i * 2654435761u) >> 7;
	return s;
}

__attribute__((noinline)) long sortwork(int n) {
	int *v = malloc(n * sizeof *v);
	for (int i = 0; i < n; i++) v[i] = (i * 7919) % 10007;
	qsort(v, n, sizeof *v, cmp);
	long r = v[n / 2];
	free(v);
	return r;
}

int main(int argc, char **argv) {
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	long t = 0;
	char buf[64];
	for (int r = 0; r < rounds; r++) {
		t += crunch(200000) + sortwork(20000);
		snprintf(buf, sizeof buf, "%ld", t);
		t += strlen(buf);
	}
	printf("%ld\n", t);
	return 0;
}
