/* addrcall.c: call results stored into locals whose address is taken
   (passed by pointer, as std::min takes its arguments by reference):
   gcc stores the result through a temporary, a statement of the block
   after the call's. */
#include <stdio.h>
#include <stdlib.h>

static long
twice (long v)
{
  return 2 * v;
}

static void
bump (long *p)
{
  (*p)++;
}

static long
lower (const long *a, const long *b)
{
  return *a < *b ? *a : *b;
}

static long
init_taken (long x)
{
  const long limit = 100;
  const long got = twice (x);
  long r = lower (&limit, &got);
  return r;
}

static long
assign_taken (long x)
{
  long v;
  v = twice (x);
  bump (&v);
  return v;
}

static long
not_taken (long x)
{
  long v = twice (x);
  return v + 1;
}

int
main (int argc, char **argv)
{
  long x = argc > 1 ? atol (argv[1]) : 21;
  printf ("%ld %ld %ld\n", init_taken (x), assign_taken (x), not_taken (x));
  return 0;
}
