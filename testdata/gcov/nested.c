/* nested.c: nested loops with break and continue at both levels, a
   labelled-style early exit through a flag, and a triangular loop. */
#include <stdio.h>
#include <stdlib.h>

#define N 8

static int grid[N][N];

static void fill(int seed)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			grid[i][j] = (seed * (i + 1) + j * 7) % 13 - 3;
}

static int row_sums_positive(void)
{
	int rows = 0;
	for (int i = 0; i < N; i++) {
		int s = 0;
		for (int j = 0; j < N; j++) {
			if (grid[i][j] < 0)
				continue;
			if (grid[i][j] > 8)
				break;
			s += grid[i][j];
		}
		if (s == 0)
			continue;
		rows++;
	}
	return rows;
}

static int first_zero_diag(void)
{
	int found = -1;
	for (int i = 0; i < N && found < 0; i++) {
		for (int j = 0; j <= i; j++) {
			if (grid[i][j] == 0 && grid[j][i] == 0) {
				found = i * N + j;
				break;
			}
		}
	}
	return found;
}

static long triangle(int n)
{
	long t = 0;
	for (int i = 0; i < n; i++)
		for (int j = i; j < n; j++)
			for (int k = j; k < n; k++)
				t += (i ^ j ^ k) & 1;
	return t;
}

int main(int argc, char **argv)
{
	for (int a = 1; a < argc; a++) {
		int seed = atoi(argv[a]);
		if (seed < 0)
			break;
		fill(seed);
		printf("seed %d: rows %d diag %d tri %ld\n", seed, row_sums_positive(), first_zero_diag(),
		       triangle(seed % 12));
	}
	return 0;
}
