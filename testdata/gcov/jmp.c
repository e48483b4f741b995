/* setjmp/longjmp: an error path out of a recursive parser, and a retry loop. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf on_error;
static const char *in;

static int expr(void);

static int number(void)
{
	int v = 0;
	if (*in < '0' || *in > '9')
		longjmp(on_error, 1);
	while (*in >= '0' && *in <= '9')
		v = v * 10 + (*in++ - '0');
	return v;
}

static int factor(void)
{
	if (*in == '(') {
		in++;
		int v = expr();
		if (*in != ')')
			longjmp(on_error, 2);
		in++;
		return v;
	}
	return number();
}

static int expr(void)
{
	int v = factor();
	while (*in == '+' || *in == '*') {
		char op = *in++;
		int w = factor();
		v = op == '+' ? v + w : v * w;
	}
	return v;
}

static int parse(const char *s, int *out)
{
	int err;
	in = s;
	if ((err = setjmp(on_error)) != 0)
		return err;
	*out = expr();
	return 0;
}

int main(int argc, char **argv)
{
	int tries = 0;
	for (int i = 1; i < argc; i++) {
		int v = 0;
		int err = parse(argv[i], &v);
		if (err) {
			tries++;
			printf("%s: error %d\n", argv[i], err);
		} else
			printf("%s = %d\n", argv[i], v);
	}
	return tries > 3;
}
