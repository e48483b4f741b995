/* hot: about 0.3 s of CPU in three functions weighted 5:3:2, for sampling
 * tests (perf report should rank heavy > medium > light). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned long spin(unsigned long n, unsigned long x) {
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long heavy(unsigned long x) { return spin(5000, x) ^ spin(0, x); }
__attribute__((noinline)) unsigned long medium(unsigned long x) { return spin(3000, x + 1); }
__attribute__((noinline)) unsigned long light(unsigned long x) { return spin(2000, x + 2); }

int main(int argc, char **argv) {
	unsigned long rounds = argc > 1 ? strtoul(argv[1], 0, 0) : 30000;
	unsigned long x = 1;
	for (unsigned long r = 0; r < rounds; r++)
		x = heavy(x) + medium(x) + light(x);
	printf("hot %lu\n", x & 0xff);
	return 0;
}
