// Fresh C++ program (round 11): a pool template in a header, RAII leases
// that give objects back, virtual jobs, lambdas passed to a template,
// exceptions thrown in a header and caught here, a result template.
#include <cstdlib>
#include <cstring>
#include "pool.h"

struct Job {
	virtual ~Job() {}
	virtual int run(int x) const = 0;
	virtual const char *name() const { return "job"; }
};

struct Double : Job {
	int run(int x) const override { return 2 * x; }
	const char *name() const override { return "double"; }
};

struct Clamp : Job {
	int lo, hi;
	Clamp(int l, int h) : lo(l), hi(h) {}
	int run(int x) const override
	{
		if (x < lo)
			return lo;
		if (x > hi)
			return hi;
		return x;
	}
};

struct Point {
	int x = 0, y = 0;
};

class Lease {
public:
	Lease(Pool<Point, 3> &p, int x) : pool(p), pt(p.take(Point{x, -x})) {}
	~Lease() { pool.give(pt); }
	Point *operator->() { return pt; }

private:
	Pool<Point, 3> &pool;
	Point *pt;
};

static Result<int> parse(const char *s)
{
	char *end;
	long v = std::strtol(s, &end, 10);
	if (end == s || *end)
		return Result<int>::bad();
	return Result<int>::good((int)v);
}

static int apply_all(const Job *const *jobs, int n, int x)
{
	for (int i = 0; i < n; i++) {
		int y = jobs[i]->run(x);
		std::printf("  %s(%d) = %d\n", jobs[i]->name(), x, y);
		x = y;
	}
	return x;
}

int main(int argc, char **argv)
{
	Pool<Point, 3> pool;
	Double d;
	Clamp c(-10, 10);
	const Job *jobs[] = {&d, &c, &d};
	int total = 0, errors = 0;
	for (int i = 1; i < argc; i++) {
		Result<int> r = parse(argv[i]);
		if (!r.ok) {
			errors++;
			continue;
		}
		try {
			Lease a(pool, r.value);
			Lease b(pool, r.value + 1);
			a->y += apply_all(jobs, 3, r.value);
			if (r.value > 50)
				Lease c2(pool, 0), d2(pool, 1);
			total += pool.each([&](const Point &p) { std::printf("  at %d,%d\n", p.x, p.y); });
		} catch (const std::length_error &e) {
			std::printf("full: %s\n", e.what());
			errors++;
		}
	}
	int sum = 0;
	pool.each([&sum](const Point &p) { sum += p.x; });
	std::printf("total %d errors %d sum %d left %d %d\n", total, errors, sum, pool.size(),
		    parse("12").or_else(-1) + parse("x").or_else(-1));
	return errors ? 1 : 0;
}
