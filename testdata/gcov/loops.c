/* One-line loops, do/while, goto, ternaries, && and ||, early returns and a
 * function that falls off its end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count_vowels(const char *s)
{
	int n = 0;
	for (; *s; s++) if (strchr("aeiou", *s)) n++;
	return n;
}

static void report(const char *s, int v)
{
	if (v < 0)
		return;
	printf("%s:%d\n", s, v);
}

static int collatz(long n)
{
	int steps = 0;
	while (n != 1) { n = n % 2 ? 3 * n + 1 : n / 2; steps++; }
	return steps;
}

static int digits(unsigned v)
{
	int d = 0;
	do {
		d++;
		v /= 10;
	} while (v);
	return d;
}

static int find(const char *s, char c)
{
	int i = 0;
again:
	if (s[i] == c)
		goto found;
	if (s[i] && i < 1000) {
		i++;
		goto again;
	}
	return -1;
found:
	return i;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		report("vowels", count_vowels(s));
		report("find", find(s, 'x'));
		long v = strtol(s, NULL, 10);
		if (v > 0 && v < 100000)
			report("collatz", collatz(v));
		if (v == 0 || strlen(s) > 5)
			report("digits", digits((unsigned)strlen(s)));
	}
	return 0;
}
