/* runs.c: loops of several shapes over an array given on the command line
   (for, while, do-while, nested, early exit, break and continue). */
#include <stdio.h>
#include <stdlib.h>

static int vals[64];
static int nvals;

static int sum_for(void)
{
	int s = 0;
	for (int i = 0; i < nvals; i++)
		s += vals[i];
	return s;
}

static int count_while(int limit)
{
	int i = 0, n = 0;
	while (i < nvals) {
		if (vals[i] > limit)
			n++;
		i++;
	}
	return n;
}

static int digits(int v)
{
	int d = 0;
	if (v < 0)
		v = -v;
	do {
		d++;
		v /= 10;
	} while (v != 0);
	return d;
}

static int find_first(int want)
{
	for (int i = 0; i < nvals; i++) {
		if (vals[i] == want)
			return i;
	}
	return -1;
}

static int pairs(int total)
{
	int found = 0;
	for (int i = 0; i < nvals; i++) {
		for (int j = i + 1; j < nvals; j++) {
			if (vals[i] + vals[j] == total)
				found++;
		}
	}
	return found;
}

static int skip_odd(void)
{
	int s = 0;
	for (int i = 0; i < nvals; i++) {
		if (vals[i] & 1)
			continue;
		if (vals[i] > 1000)
			break;
		s += vals[i];
	}
	return s;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc && nvals < 64; i++)
		vals[nvals++] = atoi(argv[i]);
	printf("sum %d\n", sum_for());
	printf("over %d\n", count_while(5));
	int dsum = 0;
	for (int i = 0; i < nvals; i++)
		dsum += digits(vals[i]);
	printf("digits %d\n", dsum);
	printf("find %d %d\n", find_first(7), find_first(-99));
	printf("pairs %d\n", pairs(10));
	printf("even %d\n", skip_odd());
	return 0;
}
