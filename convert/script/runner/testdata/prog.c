#include <stdio.h>
#include <string.h>
#include <stdlib.h>
static int sfunc(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * 3 % 7; return s; }
__attribute__((weak)) int wfunc(int x) { int s = 0; for (int i = 0; i < x; i++) s ^= i; return s; }
int gfunc(int x) { char a[256], b[256]; memset(a, x, sizeof a); int s = 0; for (int i = 0; i < x; i++) { memcpy(b, a, sizeof a); s += strlen(b) + sfunc(50); } return s; }
int main(int argc, char **argv) { int n = argc > 1 ? atoi(argv[1]) : 200000; long t = 0; for (int i = 0; i < n; i++) { t += gfunc(20) + wfunc(100); char buf[64]; snprintf(buf, sizeof buf, "%d", i); t += atoi(buf); } printf("%ld\n", t); return 0; }
