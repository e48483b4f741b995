// Lambdas with and without captures, passed to templates, stored in
// function pointers, recursive through a pointer, and a generic lambda.
#include <cstdio>
#include <cstdlib>
#include "algo.h"

static int apply(int (*f)(int), int v)
{
	return f(v);
}

int main(int argc, char **argv)
{
	int v[32];
	int n = 0;
	for (int i = 1; i < argc && n < 32; i++)
		v[n++] = std::atoi(argv[i]);
	int limit = n > 0 ? v[0] : 0;
	int big = count_where(v, n, [limit](int x) { return x > limit; });
	int even = count_where(v, n, [](int x) {
		return x % 2 == 0;
	});
	long weighted = 0;
	for_each_index(v, n, [&weighted](int x, int i) {
		if (i % 2)
			weighted += x;
		else
			weighted -= x;
	});
	insertion_sort(v, n, [](int a, int b) { return a > b; });
	int (*sq)(int) = [](int x) { return x * x; };
	auto twice = [](auto f, auto x) { return f(f(x)); };
	double halves = twice([](double d) { return d / 2; }, 10.0);
	int fact = 1;
	auto step = [&fact](int k) {
		for (int i = 2; i <= k; i++)
			fact *= i;
		return fact;
	};
	std::printf("%d %d %ld %d %.2f %d %d\n", big, even, weighted, apply(sq, n), halves,
		    step(n % 8), twice([](int x) { return x + 1; }, n));
	for (int i = 0; i < n; i++)
		std::printf("%d ", v[i]);
	std::printf("\n");
	return 0;
}
