/* tokens.c: counts the tokens of its arguments with a state machine
   (written for the -O2 comparison of issue 20): a switch on the state
   with a nested switch on character classes, static classifiers called
   from several places, tail calls between the states' handlers, a
   lookup loop over a keyword table. */
#include <stdio.h>
#include <string.h>

enum state { START, IDENT, NUMBER, STRING, DONE };

struct counts {
	int idents, numbers, strings, keywords, punct, errors;
};

static const char *const keywords[] = { "if", "else", "while", "for", "return", NULL };

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }

static int keyword(const char *s, size_t n)
{
	for (int i = 0; keywords[i]; i++)
		if (strlen(keywords[i]) == n && memcmp(keywords[i], s, n) == 0)
			return 1;
	return 0;
}

static const char *scan(const char *s, struct counts *c);

static const char *ident(const char *s, struct counts *c)
{
	const char *p = s;
	while (is_alpha(*p) || is_digit(*p))
		p++;
	if (keyword(s, p - s))
		c->keywords++;
	else
		c->idents++;
	return scan(p, c);
}

static const char *number(const char *s, struct counts *c)
{
	while (is_digit(*s))
		s++;
	if (is_alpha(*s)) {
		c->errors++;
		while (is_alpha(*s))
			s++;
	} else {
		c->numbers++;
	}
	return scan(s, c);
}

static const char *string(const char *s, struct counts *c)
{
	s++;
	while (*s && *s != '"') {
		if (*s == '\\' && s[1])
			s++;
		s++;
	}
	if (*s == '"') {
		c->strings++;
		s++;
	} else {
		c->errors++;
	}
	return scan(s, c);
}

static const char *scan(const char *s, struct counts *c)
{
	enum state st = START;
	while (st != DONE) {
		switch (st) {
		case START:
			if (*s == 0)
				st = DONE;
			else if (is_alpha(*s))
				st = IDENT;
			else if (is_digit(*s))
				st = NUMBER;
			else if (*s == '"')
				st = STRING;
			else {
				switch (*s) {
				case ' ': case '\t':
					break;
				case '(': case ')': case '{': case '}':
				case ';': case ',':
					c->punct++;
					break;
				case '+': case '-': case '*': case '/': case '=':
					c->punct++;
					if (s[1] == '=')
						s++;
					break;
				default:
					c->errors++;
				}
				s++;
			}
			break;
		case IDENT:
			return ident(s, c);
		case NUMBER:
			return number(s, c);
		case STRING:
			return string(s, c);
		case DONE:
			break;
		}
	}
	return s;
}

int main(int argc, char **argv)
{
	struct counts c = {0};
	for (int i = 1; i < argc; i++)
		scan(argv[i], &c);
	printf("idents %d numbers %d strings %d keywords %d punct %d errors %d\n",
	       c.idents, c.numbers, c.strings, c.keywords, c.punct, c.errors);
	return c.errors > 0;
}
