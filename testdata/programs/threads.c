/* threads: three worker threads and the main thread, each with its own loop. */
#include <pthread.h>
#include <stdio.h>

static long work(long n) {
	long s = 0;
	for (long i = 0; i < n; i++)
		s += (i & 3) ? i : -i;
	return s;
}

static void *worker(void *arg) {
	long n = (long)arg;
	return (void *)work(n * 100);
}

int main(void) {
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	long total = work(50);
	for (int i = 0; i < 3; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (long)r;
	}
	printf("threads %ld\n", total);
	return 0;
}
