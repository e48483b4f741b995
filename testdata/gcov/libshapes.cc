// libshapes.cc: shapes libstdc++'s headers have, in code of our own: a
// one-line destructor of a class template over a base with one, a void
// function template whose #if group holds a return left out, calls of
// functions declared pure (std::map's iterators call _Rb_tree_increment
// and _Rb_tree_decrement, declared _GLIBCXX_PURE), and destructors
// called explicitly, of trivial types (a clobber, no call) and others
// (a call, no temporary), as std::function's _M_destroy and _Destroy,
// and one-line functions returning a class in memory, built by a call
// (allocator_traits' select_on_container_copy_construction), and a
// one-line return through temporaries (vector's back()).
#include <cstdio>
#include <map>
#include <new>
#include <string>
#include <vector>

struct Base {
  ~Base() noexcept { }
  int tag = 1;
};

template <class T>
struct Holder : Base {
  T v{};
  ~Holder() noexcept { }
};

template <typename It>
inline void
clear_all(It first, It last)
{
#if __cplusplus >= 202002L
  if (first == last)
    return clear_all(first, first);
#endif
  for (; first != last; ++first)
    *first = 0;
}

struct Plain {
  int a;
};

static Plain *
plain_of(Plain *p)
{
  return p;
}

static void
end_plain(Plain *p)
{
  plain_of(p)->~Plain();
}

struct Val {
  int v;
  Val(int x) : v(x) {}
  Val(const Val &o) : v(o.v) {}
};

static Val copy_val(const Val &a) { return a; }

struct Stack {
  std::vector<long> v;
  long &top() { return *(v.end() - 1); }
};

static std::allocator<long> alloc_of(const std::allocator<long> &a) { return std::allocator<long>(a); }

template <class T>
void
end_of(T *t)
{
  t->~T();
}

int
main(int argc, char **argv)
{
  std::map<std::string, int> m;
  for (int i = 1; i < argc; i++)
    m[argv[i]] += i;
  int sum = 0;
  for (auto it = m.begin(); it != m.end(); ++it)
    sum += it->second;
  if (!m.empty())
    {
      auto it = m.end();
      --it;
      sum += it->second;
    }
  Holder<long> h;
  long arr[4] = {1, 2, 3, 4};
  clear_all(arr, arr + 4);
  Plain pl{argc};
  end_plain(&pl);
  end_of(&pl);
  std::string *s = new std::string(argv[0]);
  end_of(s);
  ::operator delete(s);
  Val val = copy_val(Val(argc));
  Stack st;
  st.v.push_back(5);
  st.top() += 1;
  std::allocator<long> al;
  long *mem = alloc_of(al).allocate(1);
  al.deallocate(mem, 1);
  printf("%d %ld %d %d\n", sum, h.v + arr[2], h.tag, val.v);
  return 0;
}
