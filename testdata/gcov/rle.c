/* rle.c: a run-length coder. Inline helpers whose results initialise
   declarations and feed statements, an else-if chain over character kinds,
   a switch with the default first, and a loop whose condition calls a
   helper. */
#include <stdio.h>
#include <string.h>

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_num(int c)
{
	return c >= '0' && c <= '9';
}

static int run_length(const char *p, const char *end)
{
	int n = 1;
	while (p + n < end && p[n] == p[0] && n < 9)
		n++;
	return n;
}

static int kind(int c)
{
	if (is_alpha(c))
		return 'a';
	else if (is_num(c))
		return 'n';
	else if (c == ' ' || c == '\t')
		return 's';
	else
		return 'p';
}

static int weight(int k)
{
	switch (k) {
	default:
		return 4;
	case 'a':
		return 1;
	case 'n':
		return 2;
	case 's':
		return 0;
	}
}

static size_t encode(const char *in, char *out)
{
	const char *end = in + strlen(in);
	size_t o = 0;
	while (in < end) {
		int n = run_length(in, end);
		out[o++] = (char)('0' + n);
		out[o++] = *in;
		in += n;
	}
	out[o] = 0;
	return o;
}

static size_t decode(const char *in, char *out)
{
	size_t o = 0;
	while (in[0] && is_num(in[0]) && in[1]) {
		int n = in[0] - '0';
		for (int i = 0; i < n; i++)
			out[o++] = in[1];
		in += 2;
	}
	out[o] = 0;
	return o;
}

int main(int argc, char **argv)
{
	char enc[512], dec[256];
	int score = 0, bad = 0;
	for (int i = 1; i < argc; i++) {
		if (strlen(argv[i]) >= 200) {
			bad++;
			continue;
		}
		size_t e = encode(argv[i], enc);
		size_t d = decode(enc, dec);
		int same = strcmp(dec, argv[i]) == 0;
		for (const char *p = argv[i]; *p; p++)
			score += weight(kind((unsigned char)*p));
		printf("%s -> %s (%zu/%zu) %s\n", argv[i], enc, e, d, same ? "ok" : "differs");
	}
	printf("score %d bad %d\n", score, bad);
	return bad;
}
