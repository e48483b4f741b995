/* scan.c: text scanning with loops of several shapes: a nested search,
   a while over characters with an early exit, do-while retries, a loop
   whose body is a single call, and a countdown. */
#include <stdio.h>
#include <string.h>
#include <ctype.h>

static int words(const char *s)
{
	int n = 0, in = 0;
	while (*s) {
		if (isspace((unsigned char)*s))
			in = 0;
		else if (!in) {
			in = 1;
			n++;
		}
		s++;
	}
	return n;
}

static const char *search(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = hay; *p; p++) {
		size_t k = 0;
		while (k < n && p[k] == needle[k])
			k++;
		if (k == n)
			return p;
	}
	return NULL;
}

static unsigned hash(const char *s)
{
	unsigned h = 5381;
	int c;
	while ((c = *s++) != 0)
		h = h * 33 + c;
	return h;
}

static int collatz(unsigned v)
{
	int steps = 0;
	while (v != 1) {
		if (v % 2)
			v = 3 * v + 1;
		else
			v /= 2;
		steps++;
		if (steps > 500)
			break;
	}
	return steps;
}

static int retries(int fail)
{
	int tries = 0;
	do {
		tries++;
		if (fail > 0)
			fail--;
	} while (fail > 0 && tries < 10);
	return tries;
}

static void countdown(int n, char *out)
{
	int k = 0;
	for (; n > 0; n--)
		out[k++] = (char)('0' + n % 10);
	out[k] = 0;
}

int main(int argc, char **argv)
{
	char buf[32];
	int total = 0;
	for (int i = 1; i < argc; i++) {
		total += words(argv[i]);
		if (search(argv[i], "ab"))
			printf("ab in %s\n", argv[i]);
		printf("%s %u %d\n", argv[i], hash(argv[i]) % 1000, collatz((unsigned)strlen(argv[i]) + 1));
	}
	printf("words %d retries %d %d\n", total, retries(argc), retries(0));
	countdown(argc + 3, buf);
	printf("%s\n", buf);
	return 0;
}
