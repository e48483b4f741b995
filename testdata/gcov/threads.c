/* 2-4 threads summing slices of an array, with a mutex-protected total and
 * per-thread work that depends on the thread index. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4000

static int data[N];
static long total;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

struct job {
	int id, nthreads;
	long sum;
};

static long weight(int v, int id)
{
	if (id % 2)
		return v * 3;
	return v;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	int lo = j->id * N / j->nthreads, hi = (j->id + 1) * N / j->nthreads;
	for (int i = lo; i < hi; i++)
		j->sum += weight(data[i], j->id);
	pthread_mutex_lock(&mu);
	total += j->sum;
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 2;
	if (nt < 2 || nt > 4)
		nt = 2;
	for (int i = 0; i < N; i++)
		data[i] = i % 13;
	pthread_t th[4];
	struct job jobs[4];
	for (int t = 0; t < nt; t++) {
		jobs[t] = (struct job){.id = t, .nthreads = nt};
		pthread_create(&th[t], NULL, worker, &jobs[t]);
	}
	for (int t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	printf("%ld\n", total);
	return 0;
}
