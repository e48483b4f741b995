/* constif.c: if statements whose conditions are constants (a debug
   macro, sizeof), folded by the front end: their lines have no code at
   -O0, but gcc's graph keeps a block for the arm they go to. */
#include <stdio.h>

#define DEBUG 0
#define CHECKS 1

static int total;

static void
note (int x)
{
  total += x;
}

static void
early (int x)
{
  if (DEBUG)
    {
      note (-1);
      return;
    }
  note (x);
}

static int
tally (int x)
{
  x++;
  if (DEBUG)
    note (x);
  x++;
  note (x);
  return x;
}

static int
either (int x)
{
  x++;
  if (DEBUG)
    {
      note (5);
    }
  else
    {
      x += 2;
    }
  x++;
  note (x);
  return x;
}

static int
checked (int x)
{
  x++;
  if (CHECKS)
    x += 3;
  else
    x--;
  x++;
  note (x);
  return x;
}

static int
sized (int x)
{
  for (int i = 0; i < x; i++)
    {
      if (sizeof (long) < 4)
        continue;
      total--;
    }
  if (sizeof (int) == 8)
    return 0;
  return x;
}

int
main (int argc, char **argv)
{
  (void) argv;
  early (argc);
  printf ("%d %d %d %d %d\n", tally (argc), either (argc), checked (argc), sized (argc + 2), total);
  return 0;
}
