/* operand.c: conditions continued on the next line whose later operand
 * calls a small static function (inlined at -O2), in while, if and for
 * heads, with && and ||; a word splitter and a range checker. */
#include <stdio.h>
#include <string.h>

static int is_sep(int c)
{
	return c == ' ' || c == ',' || c == ';';
}

static int is_vowel(int c)
{
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

static int in_band(int v, int lo, int hi)
{
	return v >= lo && v <= hi;
}

static int words(const char *s, int *vowels)
{
	int n = 0;
	while (*s) {
		while (*s &&
		       is_sep(*s))
			s++;
		if (!*s)
			break;
		n++;
		while (*s &&
		       !is_sep(*s)) {
			if (*s != 'y' &&
			    is_vowel(*s))
				(*vowels)++;
			s++;
		}
	}
	return n;
}

static int score(int v)
{
	int r = 0;
	if (v < 0 ||
	    in_band(v, 90, 99))
		r += 1;
	if (v > 10 &&
	    in_band(v % 10, 3, 6))
		r += 2;
	for (int k = v; k > 0 &&
	     !in_band(k, 40, 45); k -= 7)
		r++;
	return r;
}

int main(int argc, char **argv)
{
	int total = 0, vowels = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] >= '0' && a[0] <= '9') {
			int v = 0;
			while (*a >= '0' &&
			       *a <= '9')
				v = v * 10 + (*a++ - '0');
			total += score(v);
		} else {
			total += words(a, &vowels);
		}
	}
	printf("%d %d %zu\n", total, vowels, strlen(argc > 1 ? argv[1] : ""));
	return 0;
}
