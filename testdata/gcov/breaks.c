/* breaks.c: switches with cases that only break (a character counter,
 * a state machine whose final state only breaks), in loops. */
#include <stdio.h>

enum state { OUT, WORD, NUM, STOP };

static int spaces, others;

static void count(const char *s, int *letters, int *digits)
{
	for (; *s; s++) {
		switch (*s) {
		case 'a' ... 'z':
			(*letters)++;
			break;
		case '0' ... '9':
			(*digits)++;
			break;
		default:
			others++;
			break;
		case ' ':
			break;
		}
	}
}

static int words(const char *s)
{
	enum state st = OUT;
	int n = 0;
	while (st != STOP) {
		char c = *s++;
		switch (st) {
		case OUT:
			if (c >= 'a' && c <= 'z') {
				st = WORD;
				n++;
			} else if (c >= '0' && c <= '9') {
				st = NUM;
			} else if (c == 0) {
				st = STOP;
			}
			break;
		case WORD:
		case NUM:
			if (c == ' ')
				st = OUT;
			else if (c == 0)
				st = STOP;
			break;
		case STOP:
			break;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	int letters = 0, digits = 0, n = 0;
	for (int i = 1; i < argc; i++) {
		count(argv[i], &letters, &digits);
		n += words(argv[i]);
	}
	printf("%d %d %d %d %d\n", letters, digits, n, spaces, others);
	return 0;
}
