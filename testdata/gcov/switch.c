/* A dense switch (a jump table at -O0), a sparse one, and a loop over the
 * characters of the arguments. */
#include <stdio.h>
#include <string.h>

static int classify(int c)
{
	switch (c) {
	case 'a': return 1;
	case 'b': return 2;
	case 'c': return 3;
	case 'd': return 4;
	case 'e': return 5;
	case 'f': return 6;
	case 'g':
	case 'h': return 7;
	default:
		break;
	}
	return 0;
}

static const char *sparse(int n)
{
	switch (n) {
	case 1: return "one";
	case 100: return "hundred";
	case 1000: return "thousand";
	}
	return "other";
}

int main(int argc, char **argv)
{
	int hist[8] = {0};
	for (int i = 1; i < argc; i++) {
		size_t len = strlen(argv[i]);
		for (size_t j = 0; j < len; j++)
			hist[classify(argv[i][j])]++;
		printf("%s %s\n", argv[i], sparse((int)len));
	}
	for (int k = 0; k < 8; k++) if (hist[k]) printf("%d:%d\n", k, hist[k]);
	return 0;
}
