// cppwork: C++ call stacks for DWARF unwinding tests: virtual calls,
// inlined templates, exceptions thrown through frames, std::vector.
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace shapes {
struct Shape {
	virtual ~Shape() {}
	virtual double area(int reps) const = 0;
};

template <typename T> inline T accumulate_sq(const std::vector<T> &v)
{
	T s = 0;
	for (const T &x : v)
		s += x * x;
	return s;
}

struct Square : Shape {
	std::vector<double> sides;
	explicit Square(int n) : sides(n, 1.5) {}
	double area(int reps) const override
	{
		double s = 0;
		for (int i = 0; i < reps; i++)
			s += accumulate_sq(sides);
		return s;
	}
};

struct Circle : Shape {
	std::vector<double> radii;
	explicit Circle(int n) : radii(n, 0.5) {}
	__attribute__((noinline)) double area(int reps) const override
	{
		double s = 0;
		for (int i = 0; i < reps; i++)
			s += 3.14159 * accumulate_sq(radii);
		if (reps < 0)
			throw std::runtime_error("negative");
		return s;
	}
};
} // namespace shapes

static volatile double sink;

__attribute__((noinline)) double measure(const shapes::Shape &s, int reps)
{
	return s.area(reps);
}

__attribute__((noinline)) void thrower(int depth, int reps)
{
	shapes::Circle c(64);
	if (depth == 0) {
		sink = measure(c, reps);
		throw std::runtime_error("done");
	}
	thrower(depth - 1, reps);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 20000;
	std::vector<shapes::Shape *> all{new shapes::Square(256), new shapes::Circle(256)};
	for (int round = 0; round < 10; round++) {
		for (shapes::Shape *s : all)
			sink = sink + measure(*s, reps);
		try {
			thrower(3, reps);
		} catch (const std::exception &) {
			sink = sink + 1;
		}
	}
	return 0;
}
