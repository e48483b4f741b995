#include <stdlib.h>
#include <unistd.h>
#include <sched.h>
static volatile unsigned long sink;
__attribute__((noinline)) static unsigned long leaf(unsigned long x) {
	for (int i = 0; i < 1000; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}
__attribute__((noinline)) static unsigned long mid(unsigned long x) { return leaf(x) ^ leaf(x + 1); }
int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 20000;
	for (long i = 0; i < n; i++) {
		sink += mid(i);
		if (i % 2000 == 0) { sched_yield(); usleep(100); }
	}
	return 0;
}
