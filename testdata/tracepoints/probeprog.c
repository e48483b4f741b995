/* A test program for uprobes: perf probe -x probeprog 'compute a b' and
 * 'compute%return $retval'. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long compute(long a, long b)
{
	return a * 3 + b;
}

int main(int argc, char **argv)
{
	long s = 0;
	int n = argc > 1 ? atoi(argv[1]) : 5;
	for (int i = 0; i < n; i++)
		s += compute(i, s & 7);
	printf("%ld\n", s);
	return 0;
}
