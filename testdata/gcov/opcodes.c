/* opcodes.c: a small stack machine whose interpreter is a dense switch
   (a jump table at -O2), with a second, sparse switch for names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { PUSH, ADD, SUB, MUL, DIV, DUP, SWAP, DROP, NEG, PRINT, HALT };

static const char *op_name(int op)
{
	switch (op) {
	case PUSH: return "push";
	case ADD: return "add";
	case SUB: return "sub";
	case MUL: return "mul";
	case DIV: return "div";
	case DUP: return "dup";
	case SWAP: return "swap";
	case DROP: return "drop";
	case NEG: return "neg";
	case PRINT: return "print";
	case HALT: return "halt";
	}
	return "?";
}

static int parse(const char *w, int *arg)
{
	if (w[0] >= '0' && w[0] <= '9') {
		*arg = atoi(w);
		return PUSH;
	}
	for (int op = ADD; op <= HALT; op++)
		if (strcmp(w, op_name(op)) == 0)
			return op;
	return -1;
}

static long run(const int *code, const int *args, int n)
{
	long stack[32];
	int sp = 0;
	for (int pc = 0; pc < n; pc++) {
		long a, b;
		switch (code[pc]) {
		case PUSH:
			stack[sp++] = args[pc];
			break;
		case ADD:
		case SUB:
		case MUL:
		case DIV:
			if (sp < 2) {
				printf("underflow at %d\n", pc);
				return -1;
			}
			b = stack[--sp];
			a = stack[--sp];
			if (code[pc] == ADD)
				a += b;
			else if (code[pc] == SUB)
				a -= b;
			else if (code[pc] == MUL)
				a *= b;
			else
				a = b ? a / b : 0;
			stack[sp++] = a;
			break;
		case DUP:
			if (sp > 0) {
				stack[sp] = stack[sp - 1];
				sp++;
			}
			break;
		case SWAP:
			if (sp > 1) {
				a = stack[sp - 1];
				stack[sp - 1] = stack[sp - 2];
				stack[sp - 2] = a;
			}
			break;
		case DROP:
			sp = sp > 0 ? sp - 1 : 0;
			break;
		case NEG:
			if (sp)
				stack[sp - 1] = -stack[sp - 1];
			break;
		case PRINT:
			printf("%ld\n", sp ? stack[sp - 1] : 0L);
			break;
		case HALT:
			return sp ? stack[sp - 1] : 0;
		default:
			printf("bad op %d\n", code[pc]);
			return -2;
		}
	}
	return sp ? stack[sp - 1] : 0;
}

int main(int argc, char **argv)
{
	int code[64], args[64], n = 0;
	for (int i = 1; i < argc && n < 64; i++) {
		int arg = 0;
		int op = parse(argv[i], &arg);
		if (op < 0) {
			printf("unknown %s\n", argv[i]);
			continue;
		}
		code[n] = op;
		args[n] = arg;
		n++;
	}
	long r = run(code, args, n);
	printf("result %ld (%s last)\n", r, n ? op_name(code[n - 1]) : "none");
	return r < 0;
}
