/* interp: a bytecode stack machine with a switch dispatch (an indirect jump
 * through a jump table per instruction), running a small program that sums
 * the primes below N by trial division, with calls and returns in the
 * bytecode. Benchmark input for scripts/bench.sh: interpreters are
 * indirect-branch heavy. Usage: interp N */
#include <stdio.h>
#include <stdlib.h>

enum { PUSH, LOAD, STORE, ADD, SUB, MUL, MOD, LT, JZ, JMP, CALL, RET, HALT, DUP, POP, SWAP };

static long run(const long *code, long n)
{
	long stack[256], vars[16] = {0}, rstack[64];
	int sp = 0, rsp = 0;
	long pc = 0;
	vars[0] = n;
	for (;;) {
		long op = code[pc++];
		switch (op) {
		case PUSH: stack[sp++] = code[pc++]; break;
		case LOAD: stack[sp++] = vars[code[pc++]]; break;
		case STORE: vars[code[pc++]] = stack[--sp]; break;
		case ADD: sp--; stack[sp - 1] += stack[sp]; break;
		case SUB: sp--; stack[sp - 1] -= stack[sp]; break;
		case MUL: sp--; stack[sp - 1] *= stack[sp]; break;
		case MOD: sp--; stack[sp - 1] %= stack[sp]; break;
		case LT: sp--; stack[sp - 1] = stack[sp - 1] < stack[sp]; break;
		case JZ: if (stack[--sp] == 0) pc = code[pc]; else pc++; break;
		case JMP: pc = code[pc]; break;
		case CALL: rstack[rsp++] = pc + 1; pc = code[pc]; break;
		case RET: pc = rstack[--rsp]; break;
		case DUP: stack[sp] = stack[sp - 1]; sp++; break;
		case POP: sp--; break;
		case SWAP: { long t = stack[sp - 1]; stack[sp - 1] = stack[sp - 2]; stack[sp - 2] = t; } break;
		case HALT: return vars[1];
		default: abort();
		}
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	/* vars: 0 n, 1 sum, 2 i, 3 d, 4 prime flag; labels resolved as they
	 * are met */
	long prog[128];
	int k = 0;
#define E(x) prog[k++] = (x)
	E(PUSH); E(2); E(STORE); E(2);            /* 0: i = 2 */
	int loop = k;
	E(LOAD); E(2); E(LOAD); E(0); E(LT);      /* i < n */
	E(JZ); int jz_end = k; E(0);
	E(CALL); int call_isprime = k; E(0);
	E(LOAD); E(4); E(JZ); int jz_skip = k; E(0);
	E(LOAD); E(1); E(LOAD); E(2); E(ADD); E(STORE); E(1);
	int skip = k;
	E(LOAD); E(2); E(PUSH); E(1); E(ADD); E(STORE); E(2);
	E(JMP); E(loop);
	int end = k;
	E(HALT);
	int isprime = k;                          /* vars[4] = i is prime */
	E(PUSH); E(1); E(STORE); E(4);
	E(PUSH); E(2); E(STORE); E(3);
	int dloop = k;
	E(LOAD); E(3); E(LOAD); E(3); E(MUL); E(LOAD); E(2); E(SWAP); E(LT); /* i < d*d ? */
	E(JZ); int jz_cont = k; E(0);
	E(RET);
	int cont = k;
	E(LOAD); E(2); E(LOAD); E(3); E(MOD);
	E(JZ); int jz_comp = k; E(0);
	E(LOAD); E(3); E(PUSH); E(1); E(ADD); E(STORE); E(3);
	E(JMP); E(dloop);
	int comp = k;
	E(PUSH); E(0); E(STORE); E(4); E(RET);
	prog[jz_end] = end; prog[call_isprime] = isprime; prog[jz_skip] = skip;
	prog[jz_cont] = cont; prog[jz_comp] = comp;
	printf("%ld\n", run(prog, n));
	return 0;
}
