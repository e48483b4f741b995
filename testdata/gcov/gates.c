/* gates.c: short-circuit && and || in conditions, in returns and in
   assignments, some split over lines, some with calls in the operands. */
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>

static int calls;

static int positive(int v) { calls++; return v > 0; }
static int even(int v) { calls++; return (v & 1) == 0; }
static int small(int v) { calls++; return v < 100; }

static int in_range(int v, int lo, int hi)
{
	return v >= lo && v <= hi;
}

static int accept(int v)
{
	if (positive(v) && even(v) && small(v))
		return 1;
	if (!positive(v) || (v % 3 == 0 &&
			      small(v)))
		return 2;
	return 0;
}

static int is_word(const char *s)
{
	int ok = *s != 0;
	while (*s && ok)
		ok = isalpha((unsigned char)*s++) || *s == '-';
	return ok;
}

static int mixed(int a, int b)
{
	int r = 0;
	if ((a > 0 && b > 0) || (a < 0 && b < 0))
		r |= 1;
	if (a == b || a == -b)
		r |= 2;
	if (in_range(a, -10, 10) && !in_range(b, -10, 10))
		r |= 4;
	return r;
}

int main(int argc, char **argv)
{
	int counts[3] = {0, 0, 0};
	int prev = 0;
	for (int i = 1; i < argc; i++) {
		int v = atoi(argv[i]);
		counts[accept(v)]++;
		printf("%s word=%d mixed=%d\n", argv[i], is_word(argv[i]), mixed(prev, v));
		prev = v;
	}
	printf("%d %d %d calls=%d\n", counts[0], counts[1], counts[2], calls);
	return 0;
}
