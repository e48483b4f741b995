// cxxwork: templates, lambdas, virtual calls, exceptions and std containers,
// busy enough for a few hundred cpu-clock samples.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#include <algorithm>

namespace app {

struct Shape {
	virtual ~Shape() = default;
	virtual double area(int n) const = 0;
};

struct Square : Shape {
	double s;
	explicit Square(double v) : s(v) {}
	double area(int n) const override {
		double a = 0;
		for (int i = 0; i < n; i++) a += s * s / (i + 1);
		return a;
	}
};

struct Circle : Shape {
	double r;
	explicit Circle(double v) : r(v) {}
	double area(int n) const override {
		double a = 0;
		for (int i = 0; i < n; i++) a += 3.14159 * r * r / (i + 2);
		return a;
	}
};

template <typename T, int N>
struct Matrix {
	T m[N][N];
	Matrix() { for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) m[i][j] = T(i + j); }
	Matrix mul(const Matrix &o) const {
		Matrix r;
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++) {
				T s = 0;
				for (int k = 0; k < N; k++) s += m[i][k] * o.m[k][j];
				r.m[i][j] = s;
			}
		return r;
	}
};

template <typename K, typename V>
V sum_map(const std::map<K, V> &m) {
	V s{};
	for (auto &kv : m) s += kv.second;
	return s;
}

int may_throw(int i) {
	if (i % 7 == 3) throw std::runtime_error("seven");
	return i * 2;
}

long work(int rounds) {
	std::vector<std::unique_ptr<Shape>> shapes;
	for (int i = 0; i < 8; i++) {
		if (i & 1) shapes.emplace_back(new Square(i));
		else shapes.emplace_back(new Circle(i));
	}
	std::map<std::string, long> counts;
	long total = 0;
	for (int r = 0; r < rounds; r++) {
		for (auto &s : shapes) total += (long)s->area(2000);
		Matrix<double, 24> a, b;
		total += (long)a.mul(b).m[3][4];
		Matrix<int, 16> c, d;
		total += c.mul(d).m[1][2];
		auto add = [&counts](const std::string &k, long v) { counts[k] += v; };
		for (int i = 0; i < 200; i++) add("k" + std::to_string(i % 50), i);
		std::vector<int> v(5000);
		for (int i = 0; i < 5000; i++) v[i] = (i * 7919) % 5003;
		std::sort(v.begin(), v.end(), [](int x, int y) { return x > y; });
		total += v[17];
		for (int i = 0; i < 100; i++) {
			try {
				total += may_throw(i);
			} catch (const std::exception &e) {
				total += e.what()[0];
			}
		}
	}
	return total + sum_map(counts);
}

} // namespace app

int main(int argc, char **argv) {
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	printf("%ld\n", app::work(rounds));
	return 0;
}
