/* cold: gcc -O2 splits the unlikely paths of work2 and work3 into
 * work2.cold and work3.cold, entered by a conditional jump. work2.cold
 * calls coldfn and returns from inside the .cold part (perf names that
 * return "work2.cold"); work3.cold ends with a tail call to helper. Built
 * on demand (testprog.Path) for convert/timeline's TestCallsAgainstPerf.
 * Argument: the number of rounds (1000). */
#include <stdlib.h>

volatile int sink;

__attribute__((noinline, cold)) int coldfn(int x) { sink -= x; return x & 2; }
__attribute__((noinline)) int helper(int x) { sink += x; return x & 1; }

__attribute__((noinline)) int work2(int x) {
    if (__builtin_expect(x % 89 == 0, 0)) { coldfn(x); return 5; }
    return x + 2;
}

__attribute__((noinline)) int work3(int x) {
    if (__builtin_expect(x % 83 == 0, 0)) { coldfn(x); return helper(x + 1); }
    return x - 2;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000, s = 0;
    for (int i = 0; i < n; i++) s += work2(i) + work3(i);
    sink = s;
    return 0;
}
