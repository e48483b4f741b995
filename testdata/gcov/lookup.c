/* lookup.c: functions with many early returns (validation chains,
   searches that return from inside loops), some with array locals. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

struct entry {
	const char *key;
	int value;
};

static const struct entry table[] = {
	{"alpha", 1}, {"beta", 2}, {"gamma", 3}, {"delta", 4},
	{"epsilon", 5}, {"zeta", 6}, {"eta", 7}, {"theta", 8},
};
#define NTABLE (int)(sizeof table / sizeof table[0])

static int find(const char *key)
{
	if (!key)
		return -1;
	if (!*key)
		return -2;
	for (int i = 0; i < NTABLE; i++) {
		if (key[0] != table[i].key[0])
			continue;
		if (strcmp(key, table[i].key) == 0)
			return table[i].value;
	}
	return 0;
}

static int validate(const char *s)
{
	size_t n = strlen(s);
	if (n == 0)
		return 0;
	if (n > 12)
		return 0;
	if (s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= 'a' && s[i] <= 'z')
			continue;
		if (s[i] == '_')
			continue;
		return 0;
	}
	return 1;
}

static int classify(const char *s)
{
	char buf[16];
	size_t n = strlen(s);
	if (n >= sizeof buf)
		return 'L';
	memcpy(buf, s, n + 1);
	for (size_t i = 0; i < n; i++) {
		if (buf[i] >= 'A' && buf[i] <= 'Z')
			buf[i] += 'a' - 'A';
	}
	if (strcmp(buf, s) != 0)
		return 'U';
	if (find(buf) > 0)
		return 'K';
	if (validate(buf))
		return 'I';
	return '?';
}

static int first_dup(int *v, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (v[i] == v[j])
				return v[i];
	return -1;
}

int main(int argc, char **argv)
{
	int lens[32], n = 0;
	for (int i = 1; i < argc; i++) {
		int c = classify(argv[i]);
		printf("%s: %c %d\n", argv[i], c, find(argv[i]));
		if (n < 32)
			lens[n++] = (int)strlen(argv[i]);
	}
	printf("dup len %d\n", first_dup(lens, n));
	return 0;
}
