/* calendar.c: dates. A switch of grouped month cases that gcc can turn
   into a table, leap years as an if-chain of constant returns, a validity
   test of && operands over several lines with calls, a day-of-week helper
   inlined into a loop, and a declaration initialised from a call. */
#include <stdio.h>
#include <stdlib.h>

static int leap(int y)
{
	if (y % 400 == 0)
		return 1;
	if (y % 100 == 0)
		return 0;
	if (y % 4 == 0)
		return 1;
	return 0;
}

static int days_in(int m, int y)
{
	switch (m) {
	case 1: case 3: case 5: case 7: case 8: case 10: case 12:
		return 31;
	case 4: case 6: case 9: case 11:
		return 30;
	case 2:
		return leap(y) ? 29 : 28;
	default:
		return 0;
	}
}

static int valid(int y, int m, int d)
{
	return y > 0 &&
	       m >= 1 && m <= 12 &&
	       d >= 1 &&
	       d <= days_in(m, y);
}

static int dow(int y, int m, int d)
{
	static const int t[] = { 0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4 };
	if (m < 3)
		y -= 1;
	return (y + y / 4 - y / 100 + y / 400 + t[m - 1] + d) % 7;
}

static int day_of_year(int y, int m, int d)
{
	int n = d;
	for (int i = 1; i < m; i++)
		n += days_in(i, y);
	return n;
}

int main(int argc, char **argv)
{
	static const char *names[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	int weekend = 0, invalid = 0;
	for (int i = 1; i < argc; i++) {
		int y, m, d;
		if (sscanf(argv[i], "%d-%d-%d", &y, &m, &d) != 3) {
			invalid++;
			continue;
		}
		if (!valid(y, m, d)) {
			printf("%s: invalid\n", argv[i]);
			invalid++;
			continue;
		}
		int w = dow(y, m, d);
		int doy = day_of_year(y, m, d);
		if (w == 0 || w == 6)
			weekend++;
		printf("%s: %s, day %d%s\n", argv[i], names[w], doy, leap(y) ? " (leap year)" : "");
	}
	printf("weekend %d invalid %d\n", weekend, invalid);
	return 0;
}
