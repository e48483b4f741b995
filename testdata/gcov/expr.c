/* expr.c: a small recursive-descent calculator: character-class helpers
   with || inlined into loop conditions, a switch on the operator inside
   a loop, recursion through three functions, an error path with goto,
   and a ternary chain for the result's sign. */
#include <stdio.h>
#include <stdlib.h>

struct lex {
	const char *p;
	int err;
};

static int is_blank(int c)
{
	return c == ' ' || c == '\t';
}

static int is_dig(int c)
{
	return c >= '0' && c <= '9';
}

static void skip(struct lex *l)
{
	while (is_blank(*l->p))
		l->p++;
}

static long expr(struct lex *l);

static long number(struct lex *l)
{
	long v = 0;
	skip(l);
	if (*l->p == '(') {
		l->p++;
		v = expr(l);
		skip(l);
		if (*l->p != ')')
			l->err = 1;
		else
			l->p++;
		return v;
	}
	if (*l->p == '-') {
		l->p++;
		return -number(l);
	}
	if (!is_dig(*l->p)) {
		l->err = 2;
		return 0;
	}
	while (is_dig(*l->p))
		v = v * 10 + (*l->p++ - '0');
	return v;
}

static long term(struct lex *l)
{
	long v = number(l);
	for (;;) {
		skip(l);
		char op = *l->p;
		if (op != '*' && op != '/' && op != '%')
			return v;
		l->p++;
		long r = number(l);
		switch (op) {
		case '*':
			v *= r;
			break;
		case '/':
		case '%':
			if (r == 0) {
				l->err = 3;
				return 0;
			}
			v = op == '/' ? v / r : v % r;
			break;
		}
	}
}

static long expr(struct lex *l)
{
	long v = term(l);
	skip(l);
	while (*l->p == '+' || *l->p == '-') {
		int neg = *l->p++ == '-';
		long r = term(l);
		v = neg ? v - r : v + r;
		skip(l);
	}
	return v;
}

static const char *sign_word(long v)
{
	return v < 0 ? "negative" : v == 0 ? "zero" : v < 100 ? "small" : "large";
}

static int eval(const char *s, long *out)
{
	struct lex l = {s, 0};
	long v = expr(&l);
	if (l.err)
		goto bad;
	skip(&l);
	if (*l.p)
		goto bad;
	*out = v;
	return 0;
bad:
	return l.err ? l.err : 4;
}

int main(int argc, char **argv)
{
	int bad = 0;
	long sum = 0;
	for (int i = 1; i < argc; i++) {
		long v;
		int e = eval(argv[i], &v);
		if (e) {
			printf("%s: error %d\n", argv[i], e);
			bad++;
			continue;
		}
		sum += v;
		printf("%s = %ld (%s)\n", argv[i], v, sign_word(v));
	}
	printf("sum %ld, %d bad\n", sum, bad);
	return bad > 3;
}
