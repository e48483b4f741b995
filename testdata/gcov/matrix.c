/* Nested loops over 2-D arrays, for headers and conditions split over
 * lines, break/continue, a matrix passed by pointer and a function with a
 * local matrix and several returns. */
#include <stdio.h>
#include <stdlib.h>

#define N 6

static void fill(int m[N][N], int seed)
{
	for (int i = 0;
	     i < N;
	     i++)
		for (int j = 0; j < N; j++)
			m[i][j] = (i * 7 + j * 3 + seed) % 10;
}

static void mul(int a[N][N], int b[N][N], int c[N][N])
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			int s = 0;
			for (int k = 0; k < N; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s;
		}
}

static int find_first(int m[N][N], int v, int *ri, int *rj)
{
	for (int i = 0; i < N; i++) {
		for (int j = 0; j < N; j++) {
			if (m[i][j] != v)
				continue;
			*ri = i;
			*rj = j;
			return 1;
		}
	}
	return 0;
}

static int symmetric(int seed)
{
	int m[N][N];
	fill(m, seed);
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < N; j++)
			if (m[i][j] != m[j][i])
				return 0;
	if (seed < 0)
		return -1;
	return 1;
}

static long trace(int m[N][N])
{
	long t = 0;
	int i = 0;
	while (i < N &&
	       abs(m[i][i]) < 1000000) {
		t += m[i][i];
		i++;
	}
	return t;
}

int main(int argc, char **argv)
{
	static int a[N][N], b[N][N], c[N][N];
	for (int k = 1; k < argc; k++) {
		int s = atoi(argv[k]);
		fill(a, s);
		fill(b, s + 1);
		mul(a, b, c);
		int i, j;
		if (find_first(c, s, &i, &j))
			printf("found %d at %d,%d\n", s, i, j);
		else
			printf("no %d\n", s);
		printf("trace %ld sym %d\n", trace(c), symmetric(s));
	}
	return 0;
}
