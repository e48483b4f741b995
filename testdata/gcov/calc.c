/* A recursive-descent calculator over its arguments joined by spaces:
 * a noreturn error function of its own, exit and abort paths, a switch
 * with fall-through and a default in the middle, a do/while retry with
 * goto, a function-pointer table, bit-fields and ternaries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

struct flags {
	unsigned verbose : 1;
	unsigned strict : 1;
	unsigned depth : 6;
};

static const char *src;
static int pos;
static struct flags fl;

__attribute__((noreturn)) static void die(const char *msg)
{
	fprintf(stderr, "error at %d: %s\n", pos, msg);
	exit(3);
}

static long expr(void);

static void skip(void)
{
	while (src[pos] == ' ' || src[pos] == '\t')
		pos++;
}

static long add(long a, long b) { return a + b; }
static long sub(long a, long b) { return a - b; }
static long mul(long a, long b) { return a * b; }
static long quo(long a, long b)
{
	if (b == 0) {
		if (fl.strict)
			die("division by zero");
		return 0;
	}
	return a / b;
}

static long (*const ops[])(long, long) = {add, sub, mul, quo};

static int opindex(char c)
{
	switch (c) {
	case '+':
		return 0;
	case '-':
		return 1;
	default:
		return -1;
	case '*':
	case 'x':
		return 2;
	case '/':
		return 3;
	}
}

static long number(void)
{
	long v = 0;
	int digits = 0;
	skip();
	while (isdigit((unsigned char)src[pos])) {
		v = v * 10 + (src[pos++] - '0');
		digits++;
	}
	if (!digits)
		die("number expected");
	return v;
}

static long factor(void)
{
	long v;
	skip();
	switch (src[pos]) {
	case '(':
		pos++;
		if (++fl.depth > 20)
			abort();
		v = expr();
		fl.depth--;
		skip();
		if (src[pos] != ')')
			die("missing )");
		pos++;
		return v;
	case '-':
		pos++;
		/* fall through */
	case '~':
		if (src[pos] == '~')
			pos++;
		return -factor();
	default:
		return number();
	}
}

static long term(void)
{
	long v = factor();
	for (;;) {
		skip();
		int k = opindex(src[pos]);
		if (k < 2)
			return v;
		pos++;
		v = ops[k](v, factor());
	}
}

static long expr(void)
{
	long v = term();
	int k;
	do {
		skip();
		k = opindex(src[pos]);
		if (k != 0 && k != 1)
			break;
		pos++;
		v = ops[k](v, term());
	} while (src[pos]);
	return v;
}

int main(int argc, char **argv)
{
	char buf[512] = "";
	int tries = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			fl.verbose = 1;
			continue;
		}
		if (!strcmp(argv[i], "-s")) {
			fl.strict = 1;
			continue;
		}
		strncat(buf, argv[i], sizeof buf - strlen(buf) - 2);
		strcat(buf, " ");
	}
	src = buf;
retry:
	pos = 0;
	tries++;
	long v = expr();
	skip();
	if (src[pos] != '\0') {
		if (tries < 2 && !fl.strict) {
			buf[pos] = '\0';
			goto retry;
		}
		die("trailing input");
	}
	printf(fl.verbose ? "%s= %ld\n" : "%.0s%ld\n", buf, v);
	return v < 0 ? 1 : 0;
}
