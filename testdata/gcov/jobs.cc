// jobs.cc: a small job scheduler, written in round 16 before measuring
// it: a class template with a non-type parameter (a fixed ring of
// pending jobs), a function template with a lambda argument, lambdas
// capturing by value and by reference (std::sort's comparator, a
// std::function callback, a mutable counter), an exception hierarchy
// thrown from a constructor and from a member, caught by base class and
// rethrown, RAII guards whose constructors and destructors count, a
// virtual destructor, std::unique_ptr and std::vector<std::string>.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct JobError : std::runtime_error {
  int code;
  JobError(const std::string &what, int c) : std::runtime_error(what), code(c) {}
};

struct BadName : JobError {
  explicit BadName(const std::string &n) : JobError("bad name: " + n, 2) {}
};

static int guards = 0;

class Guard {
public:
  explicit Guard(const char *tag) : tag_(tag) { guards++; }
  ~Guard() { guards--; }
  const char *tag() const { return tag_; }

private:
  const char *tag_;
};

class Task {
public:
  Task(std::string name, int cost) : name_(std::move(name)), cost_(cost)
  {
    if (name_.empty() || name_[0] == '-')
      throw BadName(name_);
  }
  virtual ~Task() = default;
  virtual int run(int budget) const
  {
    if (cost_ > budget)
      throw JobError("over budget: " + name_, 3);
    return budget - cost_;
  }
  const std::string &name() const { return name_; }
  int cost() const { return cost_; }

private:
  std::string name_;
  int cost_;
};

class Urgent : public Task {
public:
  using Task::Task;
  int run(int budget) const override { return Task::run(budget + 10) - 5; }
};

template <typename T, int N>
class Ring {
public:
  bool push(T &v)
  {
    if (count_ == N)
      return false;
    items_[(head_ + count_) % N] = std::move(v);
    count_++;
    return true;
  }
  T pop()
  {
    T v = std::move(items_[head_]);
    head_ = (head_ + 1) % N;
    count_--;
    return v;
  }
  int size() const { return count_; }

private:
  T items_[N];
  int head_ = 0;
  int count_ = 0;
};

template <typename It, typename F>
static int
sum_if(It first, It last, F keep)
{
  int s = 0;
  for (; first != last; ++first)
    if (keep(*first))
      s += (*first)->cost();
  return s;
}

static std::unique_ptr<Task>
make_task(const std::string &spec)
{
  std::size_t colon = spec.find(':');
  std::string name = spec.substr(0, colon);
  int cost = colon == std::string::npos ? 1 : std::atoi(spec.c_str() + colon + 1);
  if (!name.empty() && name.back() == '!')
    return std::make_unique<Urgent>(name.substr(0, name.size() - 1), cost);
  return std::make_unique<Task>(name, cost);
}

static int
run_all(Ring<std::unique_ptr<Task>, 4> &ring, int budget, const std::function<void(const Task &, int)> &done)
{
  Guard g("run_all");
  while (ring.size() > 0) {
    std::unique_ptr<Task> t = ring.pop();
    try {
      budget = t->run(budget);
      done(*t, budget);
    } catch (const JobError &e) {
      std::printf("  %s (code %d)\n", e.what(), e.code);
      if (e.code == 3 && budget < 5)
        throw;
    }
  }
  return budget;
}

int
main(int argc, char **argv)
{
  std::vector<std::unique_ptr<Task>> tasks;
  int budget = 50;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a.rfind("--budget=", 0) == 0) {
      budget = std::atoi(a.c_str() + 9);
      continue;
    }
    try {
      tasks.push_back(make_task(a));
    } catch (const BadName &e) {
      std::printf("skip: %s\n", e.what());
    }
  }
  std::sort(tasks.begin(), tasks.end(), [](const std::unique_ptr<Task> &x, const std::unique_ptr<Task> &y) {
    return x->cost() < y->cost();
  });
  int limit = budget / 2;
  int cheap = sum_if(tasks.begin(), tasks.end(), [limit](const std::unique_ptr<Task> &t) { return t->cost() <= limit; });
  std::printf("tasks %zu cheap %d\n", tasks.size(), cheap);
  int finished = 0;
  auto report = [&finished](const Task &t, int left) {
    finished++;
    std::printf("  done %s, %d left\n", t.name().c_str(), left);
  };
  int rounds = 0;
  try {
    while (!tasks.empty()) {
      Ring<std::unique_ptr<Task>, 4> ring;
      while (!tasks.empty() && ring.push(tasks.back()))
        tasks.pop_back();
      rounds++;
      budget = run_all(ring, budget, report);
    }
  } catch (const std::exception &e) {
    std::printf("stopped: %s\n", e.what());
  }
  std::printf("finished %d in %d rounds, budget %d, guards %d\n", finished, rounds, budget, guards);
  return finished > 0 ? 0 : 1;
}
