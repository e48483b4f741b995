/* String routines: struct returns by value, local arrays, early returns
 * inside loops, a character-class switch with consecutive labels and a
 * do/while. */
#include <stdio.h>
#include <string.h>

struct span {
	int start, len;
};

static struct span longest_word(const char *s)
{
	struct span best = {0, 0}, cur = {0, 0};
	int i = 0;
	do {
		char c = s[i];
		if ((c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z')) {
			if (cur.len == 0)
				cur.start = i;
			cur.len++;
		} else {
			if (cur.len > best.len)
				best = cur;
			cur.len = 0;
		}
	} while (s[i++]);
	return best;
}

static int vowel_class(char c)
{
	switch (c) {
	case 'a':
	case 'e':
	case 'i':
	case 'o':
	case 'u':
		return 1;
	case 'y':
		return 2;
	case ' ':
	case '\t':
		return 0;
	}
	return 3;
}

static int first_repeat(const char *s)
{
	char seen[256];
	memset(seen, 0, sizeof seen);
	for (int i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (seen[c])
			return i;
		seen[c] = 1;
	}
	return -1;
}

static void reverse(char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
		char t = s[i];
		s[i] = s[j];
		s[j] = t;
	}
}

int main(int argc, char **argv)
{
	char tmp[64];
	int classes[4] = {0};
	for (int i = 1; i < argc; i++) {
		struct span w = longest_word(argv[i]);
		printf("%.*s %d\n", w.len, argv[i] + w.start, first_repeat(argv[i]));
		for (const char *p = argv[i]; *p; p++)
			classes[vowel_class(*p)]++;
		snprintf(tmp, sizeof tmp, "%s", argv[i]);
		reverse(tmp);
		puts(tmp);
	}
	printf("%d %d %d %d\n", classes[0], classes[1], classes[2], classes[3]);
	return 0;
}
