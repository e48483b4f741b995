// virt: a C++ program with virtual calls: a scene of shapes behind a base
// class, visited through virtual functions, a visitor (double dispatch),
// std::sort with a comparator object and std::map. Benchmark input for
// scripts/bench.sh. Usage: virt N
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

struct Visitor;
struct Shape {
	virtual ~Shape() {}
	virtual double area() const = 0;
	virtual double perimeter() const = 0;
	virtual void accept(Visitor &v) const = 0;
	virtual int kind() const = 0;
};
struct Circle;
struct Rect;
struct Tri;
struct Visitor {
	virtual ~Visitor() {}
	virtual void visit(const Circle &) = 0;
	virtual void visit(const Rect &) = 0;
	virtual void visit(const Tri &) = 0;
};
struct Circle : Shape {
	double r;
	explicit Circle(double r) : r(r) {}
	double area() const override { return 3.14159 * r * r; }
	double perimeter() const override { return 2 * 3.14159 * r; }
	void accept(Visitor &v) const override { v.visit(*this); }
	int kind() const override { return 0; }
};
struct Rect : Shape {
	double w, h;
	Rect(double w, double h) : w(w), h(h) {}
	double area() const override { return w * h; }
	double perimeter() const override { return 2 * (w + h); }
	void accept(Visitor &v) const override { v.visit(*this); }
	int kind() const override { return 1; }
};
struct Tri : Shape {
	double a, b, c;
	Tri(double a, double b, double c) : a(a), b(b), c(c) {}
	double area() const override { return a * b / 2; }
	double perimeter() const override { return a + b + c; }
	void accept(Visitor &v) const override { v.visit(*this); }
	int kind() const override { return 2; }
};
struct Counter : Visitor {
	long n[3] = {0, 0, 0};
	double big = 0;
	void visit(const Circle &c) override { n[0]++; if (c.r > 5) big += c.r; }
	void visit(const Rect &r) override { n[1]++; if (r.w > r.h) big += r.w; }
	void visit(const Tri &t) override { n[2]++; big += t.c; }
};

static unsigned long rng = 0x2545F4914F6CDD1DUL;
static unsigned next() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (unsigned)rng; }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	std::vector<std::unique_ptr<Shape>> v;
	for (long i = 0; i < n; i++) {
		switch (next() % 3) {
		case 0: v.emplace_back(new Circle(next() % 10)); break;
		case 1: v.emplace_back(new Rect(next() % 10, next() % 10)); break;
		default: v.emplace_back(new Tri(next() % 10, next() % 10, next() % 10)); break;
		}
	}
	double total = 0;
	Counter c;
	std::map<int, double> byKind;
	for (int round = 0; round < 4; round++) {
		for (auto &s : v) {
			total += s->area() + s->perimeter();
			s->accept(c);
			byKind[s->kind()] += s->area();
		}
		std::sort(v.begin(), v.end(), [](const std::unique_ptr<Shape> &a, const std::unique_ptr<Shape> &b) {
			return a->area() < b->area() || (a->area() == b->area() && a->kind() < b->kind());
		});
	}
	std::printf("%.1f %ld %ld %ld %.1f %zu\n", total, c.n[0], c.n[1], c.n[2], c.big, byKind.size());
	return 0;
}
