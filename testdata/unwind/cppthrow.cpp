// cppthrow: C++ call stacks caught while exceptions are being thrown:
// samples land in libstdc++'s __cxa_throw and personality routine and in
// libgcc's unwinder (_Unwind_RaiseException, its FDE search), below
// recursive frames, a virtual call and an inlined helper.
#include <cstdlib>
#include <stdexcept>
#include <string>

struct Step {
	virtual ~Step() {}
	virtual int run(int depth) const = 0;
};

static inline int check(int v)
{
	if (v < 0)
		throw std::out_of_range("negative " + std::to_string(v));
	return v;
}

struct Dive : Step {
	__attribute__((noinline)) int run(int depth) const override
	{
		if (depth == 0)
			return check(-depth - 1);
		return run(depth - 1) + 1;
	}
};

__attribute__((noinline)) int attempt(const Step &s, int depth)
{
	try {
		return s.run(depth);
	} catch (const std::out_of_range &e) {
		return static_cast<int>(e.what()[0]);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000;
	Dive d;
	volatile long sum = 0;
	for (int i = 0; i < n; i++)
		sum = sum + attempt(d, 8 + i % 8);
	return sum == 42;
}
