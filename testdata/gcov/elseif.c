/* else-if chains whose branches hold an inner if/else, and functions with
 * several returns and an array, struct or address-taken local. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pt { int x, y; };

static void bump(int *p) { (*p)++; }

static int grade(int score, int bonus)
{
	int g;
	if (score < 0) {
		g = -1;
	} else if (score < 50) {
		if (bonus)
			g = 1;
		else
			g = 0;
	} else if (score < 80) {
		if (bonus > 5) {
			g = 3;
		} else {
			g = 2;
		}
	} else {
		g = 4;
	}
	return g;
}

static int lookup(int k)
{
	int table[4] = {3, 1, 4, 1};
	if (k < 0)
		return -1;
	if (k >= 4)
		return -2;
	return table[k];
}

static int quadrant(int x, int y)
{
	struct pt p = {x, y};
	if (p.x == 0 || p.y == 0)
		return 0;
	if (p.x > 0)
		return p.y > 0 ? 1 : 4;
	return p.y > 0 ? 2 : 3;
}

static int tally(int n)
{
	int c = 0;
	if (n > 100)
		return 100;
	for (int i = 0; i < n; i++)
		bump(&c);
	if (c % 2)
		return c;
	else if (c % 3 == 0)
		return c / 3;
	return c + 1;
}

static int parse(const char *s)
{
	char buf[16];
	if (strlen(s) >= sizeof buf)
		return -1;
	strcpy(buf, s);
	if (buf[0] == '-')
		return -atoi(buf + 1);
	else if (buf[0] == '+')
		if (buf[1] == 0)
			return 0;
		else
			return atoi(buf + 1);
	else
		return atoi(buf);
}

int main(int argc, char **argv)
{
	int sum = 0;
	for (int i = 1; i < argc; i++) {
		int v = parse(argv[i]);
		sum += grade(v, i % 7);
		sum += lookup(v % 6);
		sum += quadrant(v, i - 3);
		sum += tally(v);
	}
	printf("%d\n", sum);
	return 0;
}
