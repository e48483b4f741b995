// swbreak.c: a switch whose default only breaks to the code after it, reached
// by the compare tree's last jump (round 15: that jump carries the
// default's line, and the break's nop was no block of gcc's).
#include <stdio.h>

enum genre { ROCK, JAZZ, FOLK, OTHER };

static enum genre genre_of(char c)
{
	switch (c) {
	case 'r':
	case 'R':
		return ROCK;
	case 'j':
		return JAZZ;
	case 'f':
		return FOLK;
	default:
		break;
	}
	return OTHER;
}

int main(int argc, char **argv)
{
	int n = 0;
	for (int i = 1; i < argc; i++)
		n += genre_of(argv[i][0]);
	printf("%d\n", n);
	return 0;
}
