// A C++ program over shapes.h: objects on the stack and the heap, virtual
// calls, copies and a small counting class with a non-trivial destructor.
#include <cstdlib>
#include <cstring>
#include "shapes.h"

int live_shapes;

Circle::Circle(double r) : Shape("circle"), r_(r)
{
	if (r_ < 0)
		r_ = -r_;
}

Circle::~Circle()
{
	std::printf("~circle %.1f\n", r_);
}

double Circle::area() const
{
	return 3.14159 * r_ * r_;
}

struct Counter {
	int n = 0;
	Counter() = default;
	Counter(const Counter &o) : n(o.n + 1) {}
	~Counter()
	{
		if (n > 2)
			std::printf("counter %d\n", n);
	}
};

static Counter pass(Counter c)
{
	c.n++;
	return c;
}

static Shape *make(const char *spec)
{
	double v = std::atof(spec + 1);
	switch (spec[0]) {
	case 'r':
		return new Rect(v, v + 1);
	case 's':
		return new Rect(v);
	case 'c':
		return new Circle(v);
	default:
		return nullptr;
	}
}

int main(int argc, char **argv)
{
	Shape *shapes[16];
	int n = 0;
	for (int i = 1; i < argc && n < 16; i++) {
		Shape *s = make(argv[i]);
		if (s)
			shapes[n++] = s;
	}
	double total = 0;
	for (int i = 0; i < n; i++) {
		total += clamp_area(shapes[i]->area());
		if (i > 0 && shapes[i]->bigger(*shapes[i - 1]))
			std::printf("%s > %s\n", shapes[i]->name(), shapes[i - 1]->name());
	}
	{
		Rect local(2);
		Circle c(1);
		total += local.area() + c.sides();
	}
	Counter c;
	Counter d = pass(pass(c));
	std::printf("total %.2f live %d sides %d n %d\n", total, live_shapes, n ? shapes[0]->sides() : -1, d.n);
	for (int i = 0; i < n; i++)
		delete shapes[i];
	return 0;
}
