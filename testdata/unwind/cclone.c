/* Two threads whose hot function gcc clones (crunch.constprop.0): perf
   report charges the samples' self to the clone's symbol while addr2line
   names the code "crunch". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long shared, iters;
__attribute__((noinline)) static long crunch(long x, int n) {
  for (int i = 0; i < n; i++) x = (x * 6364136223846793005L + 1442695040888963407L) ^ (x >> 13);
  return x;
}
__attribute__((noinline)) static void bump(long v) { pthread_mutex_lock(&mu); shared += v; pthread_mutex_unlock(&mu); }
static void *worker(void *arg) {
  long acc = (long)arg;
  for (long i = 0; i < iters; i++) {
    long x = crunch(i + acc, 50);
    acc ^= x;
    if ((i & 255) == 0) bump(x);
  }
  return NULL;
}
int main(int argc, char **argv) {
  iters = argc > 1 ? atol(argv[1]) : 1000000;
  pthread_t t[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  printf("%ld\n", shared);
  return 0;
}
