/* mix: PLT calls, a vdso call, a jump table, deep recursion, a signal
 * handler entered from a syscall (raise) and one entered from a fault. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile int hits;
static sigjmp_buf env;

static void on_usr1(int sig) { hits += sig; }

static void on_segv(int sig) {
	hits += sig;
	siglongjmp(env, 1);
}

/* A dense switch: gcc emits an indirect jump through a table. */
__attribute__((noinline)) static int table(int x) {
	switch (x) {
	case 0: return x + 3;
	case 1: return x * 5;
	case 2: return x - 7;
	case 3: return x ^ 9;
	case 4: return x + 11;
	case 5: return x * 13;
	case 6: return x - 17;
	case 7: return x ^ 19;
	default: return -1;
	}
}

/* Deeper than the 64-entry return-compression stack. */
__attribute__((noinline)) static int deep(int n) {
	if (n == 0)
		return 0;
	return 1 + deep(n - 1) + (n & 1);
}

int main(int argc, char **argv) {
	int sum = 0;
	for (int i = 0; i < 40; i++)
		sum += table(i % 9);
	sum += deep(100);
	sum += (int)strlen(argv[0]);

	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* vdso */
	sum += ts.tv_sec > 0;

	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);

	signal(SIGSEGV, on_segv);
	if (sigsetjmp(env, 1) == 0) {
		volatile int *p = (volatile int *)(long)argc - argc; /* NULL, opaque to gcc */
		sum += *p;
	}
	printf("mix %d %d\n", sum, hits);
	return 0;
}
