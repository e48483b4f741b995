/* codes.c: switches whose cases return constants (status codes mapped to
 * classes with a compare tree, characters to kinds, a first case that
 * does not return, a default in the middle, enumerators to names). */
#include <stdio.h>
#include <stdlib.h>

enum color { RED, GREEN, BLUE, GRAY };

static int status_class(int code)
{
	switch (code) {
	case 200: return 0;
	case 201: return 10;
	case 301: return 1;
	case 404: return 2;
	case 418: return 7;
	case 500: return 3;
	case 503: return 4;
	case 9000: return 5;
	default: return -1;
	}
}

static int kind(int c)
{
	switch (c) {
	case '(':
	case ')':
		return 1;
	case '+':
		return 2;
	default:
		return 0;
	case '=':
		return 3;
	case ';':
		return 4;
	}
}

static int weight(int n, int *odd)
{
	switch (n % 5) {
	case 0:
		(*odd)++;
		break;
	case 1:
		return 11;
	case 2:
		return 22;
	case 3:
		return 33;
	}
	return n;
}

static int letters(const char *s)
{
	int n = 0;
	for (; *s; s++) {
		switch (*s) {
		case 'a':
		case 'e':
			n += 3;
			break;
		case '(':
			break;
		case ';':
			return n;
		default:
			n++;
			break;
		}
	}
	return n;
}

static const char *color_name(enum color c)
{
	switch (c) {
	case RED: return "red";
	case GREEN: return "green";
	case BLUE: return "blue";
	case GRAY: return "gray";
	}
	return "?";
}

int main(int argc, char **argv)
{
	int sum = 0, odd = 0;
	for (int i = 1; i < argc; i++) {
		int v = atoi(argv[i]);
		sum += status_class(v);
		for (const char *s = argv[i]; *s; s++)
			sum += kind(*s);
		sum += weight(v, &odd) + letters(argv[i]);
		printf("%s %d\n", color_name((enum color)(v & 3)), sum);
	}
	printf("%d %d\n", sum, odd);
	return 0;
}
