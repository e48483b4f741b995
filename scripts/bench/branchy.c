/*
 * branchy: the program scripts/bench.sh records for the perf.data benchmarks.
 *
 * A deterministic, branch-heavy workload: data-dependent conditional
 * branches, a dense switch (a jump table at -O0 and -O2), calls through
 * function pointers, short recursion and nested loops, so that its Intel PT
 * trace holds TNT bits, TIPs for indirect branches and compressed returns in
 * a realistic mix. Usage: branchy [UNITS]; the work grows linearly with UNITS.
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long state = 88172645463325252UL;

static unsigned next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (unsigned)state;
}

static int op_add(int a, int b) { return a + b; }
static int op_sub(int a, int b) { return a - b; }
static int op_xor(int a, int b) { return a ^ b; }
static int op_max(int a, int b) { return a > b ? a : b; }

static int (*const ops[4])(int, int) = { op_add, op_sub, op_xor, op_max };

static int classify(unsigned v)
{
	switch (v & 7) {
	case 0: return 3;
	case 1: return v & 1 ? 5 : 1;
	case 2: return 7;
	case 3: return (int)(v >> 3) & 15;
	case 4: return 2;
	case 5: return v > 1000u ? 9 : 4;
	case 6: return 11;
	default: return 0;
	}
}

static int walk(int depth, unsigned v)
{
	if (depth == 0 || (v & 3) == 0)
		return (int)(v & 255);
	return walk(depth - 1, v >> 2) + (int)(v & 1);
}

static int unit(void)
{
	int acc = 0;
	for (int i = 0; i < 16; i++) {
		unsigned v = next();
		if (v & 1)
			acc += classify(v);
		else if (v & 2)
			acc = ops[(v >> 2) & 3](acc, (int)(v >> 8) & 1023);
		else
			acc -= walk(6, v);
		for (unsigned j = v & 3; j > 0; j--)
			acc ^= (int)j;
	}
	return acc;
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 1000;
	long sum = 0;
	for (long i = 0; i < units; i++)
		sum += unit();
	printf("%ld\n", sum);
	return 0;
}
