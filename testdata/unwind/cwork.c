// cwork: call stacks for DWARF unwinding tests: recursion, inlined
// helpers, a signal handler that spins on the stack, and two threads.
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>

static volatile unsigned long sink;
static volatile int in_handler;

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	return x * 2654435761u ^ (x >> 7);
}

__attribute__((noinline)) unsigned long leaf(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += mix(i);
	sink = s;
	return s;
}

__attribute__((noinline)) unsigned long recurse(int depth, unsigned long n)
{
	if (depth == 0)
		return leaf(n);
	return recurse(depth - 1, n) + depth;
}

static void on_alarm(int sig)
{
	(void)sig;
	in_handler = 1;
	leaf(3000000);
	in_handler = 0;
}

__attribute__((noinline)) void *worker(void *arg)
{
	unsigned long n = (unsigned long)arg;
	for (int i = 0; i < 20; i++)
		recurse(i % 5, n);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 20000}, {0, 20000}};
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_t t;
	pthread_create(&t, NULL, worker, (void *)n);
	worker((void *)(n / 2));
	pthread_join(t, NULL);
	return 0;
}
