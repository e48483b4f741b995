/* Bit manipulation with a sparse switch over powers of two (a compare
 * tree), GNU case ranges, loops whose condition continues on the next line
 * with a call, and a non-void function without a final return. */
#include <stdio.h>
#include <stdlib.h>

static int popcount(unsigned v)
{
	int n = 0;
	while (v) {
		v &= v - 1;
		n++;
	}
	return n;
}

static int log2_exact(unsigned v)
{
	switch (v) {
	case 1: return 0;
	case 2: return 1;
	case 4: return 2;
	case 8: return 3;
	case 16: return 4;
	case 256: return 8;
	case 4096: return 12;
	case 65536: return 16;
	case 1u << 20: return 20;
	case 1u << 31: return 31;
	default: return -1;
	}
}

static const char *range_name(int v)
{
	switch (v) {
	case 0 ... 9:
		return "digit";
	case 10 ... 99:
		return "tens";
	case 100 ... 999:
	case 1000:
		return "hundreds";
	case -9 ... -1:
		return "negative";
	}
	return "other";
}

static int ok(unsigned v)
{
	return v < 1000000u;
}

static int spread(unsigned v)
{
	int s = 0;
	while (v > 1 &&
	       ok(v)) {
		if (v & 1)
			v = 3 * v + 1;
		else
			v >>= 1;
		s++;
	}
	if (s > 0)
		return s;
}

int main(int argc, char **argv)
{
	int acc = 0;
	for (int i = 1; i < argc; i++) {
		long l = strtol(argv[i], NULL, 0);
		unsigned v = (unsigned)l;
		printf("%u pop %d log %d %s\n", v, popcount(v), log2_exact(v), range_name((int)l));
		if (v > 1)
			acc += spread(v);
	}
	printf("%d\n", acc);
	return 0;
}
