/* A small lexer: a switch on characters with grouped labels (several on one
 * line, runs of labels on consecutive lines), a state machine, and loop
 * conditions split over two lines with a call on the second. */
#include <stdio.h>
#include <string.h>

enum tok { T_EOF, T_NUM, T_IDENT, T_OP, T_STR, T_BAD };

static int is_ident(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int counts[6];

static enum tok next(const char **pp)
{
	const char *p = *pp;
	while (*p == ' ' ||
	       *p == '\t')
		p++;
	if (*p == 0) {
		*pp = p;
		return T_EOF;
	}
	enum tok t;
	switch (*p) {
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		while (*p &&
		       is_digit(*p))
			p++;
		t = T_NUM;
		break;
	case '+':
	case '-':
	case '*':
	case '/':
		p++;
		t = T_OP;
		break;
	case '"':
		p++;
		while (*p && *p != '"')
			p++;
		if (*p)
			p++;
		t = T_STR;
		break;
	default:
		if (is_ident(*p)) {
			while (is_ident(*p) ||
			       is_digit(*p))
				p++;
			t = T_IDENT;
		} else {
			p++;
			t = T_BAD;
		}
	}
	*pp = p;
	return t;
}

static const char *name(enum tok t)
{
	switch (t) {
	case T_NUM: return "num";
	case T_IDENT: return "ident";
	case T_OP: return "op";
	case T_STR: return "str";
	case T_BAD: return "bad";
	default: return "eof";
	}
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *p = argv[i];
		enum tok t;
		while ((t = next(&p)) != T_EOF) {
			counts[t]++;
			if (t == T_BAD)
				printf("bad token at %d\n", (int)(p - argv[i]));
		}
	}
	for (int k = T_NUM; k <= T_BAD; k++)
		printf("%s %d\n", name((enum tok)k), counts[k]);
	return 0;
}
