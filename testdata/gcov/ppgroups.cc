// ppgroups.cc: functions whose bodies hold #if/#elif/#else groups that
// the preprocessor leaves out, with returns in them (as libstdc++'s
// __new_allocator::_M_max_size and std::__is_constant_evaluated).
#include <cstdio>
#include <cstdlib>

#define LIMIT 3

struct Box {
  long v;
  unsigned long
  cap() const noexcept
  {
#if LIMIT > 2
    return 1000 / sizeof(long);
#else
    return 10;
#endif
  }
  long
  scaled(long k) const
  {
#ifdef NO_SUCH_MACRO
    return v;
#elif LIMIT == 3
    return v * k;
#else
    return -v;
#endif
  }
  bool
  small() const
  {
#if LIMIT < 2
    if (v < 0)
      return true;
    return false;
#else
# if 1
    return v < 100;
# else
    return v < 10;
# endif
#endif
  }
};

static int
pick(int x)
{
#ifndef LIMIT
  return 0;
#else
  if (x > LIMIT)
    return x - LIMIT;
#endif
  return x;
}

int
main(int argc, char **argv)
{
  Box b{argc > 1 ? atol(argv[1]) : 7};
  long t = 0;
  for (int i = 0; i < argc + 3; i++)
    t += b.scaled(i) + pick(i) + (b.small() ? 1 : 0);
  printf("%lu %ld\n", b.cap(), t);
  return 0;
}
