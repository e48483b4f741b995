// Reverse-Polish input built into a tree of virtual nodes (visitor.h),
// evaluated through virtual calls, with a template fold over a vector.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "visitor.h"

long Bin::eval() const
{
	long a = l->eval(), b = r->eval();
	switch (op) {
	case '+':
		return a + b;
	case '-':
		return a - b;
	case 'x':
	case '*':
		return a * b;
	case '/':
		if (b == 0)
			return 0;
		return a / b;
	default:
		return clampv(a, -b, b);
	}
}

template <typename T, typename F>
static T fold(const std::vector<T> &v, T init, F f)
{
	for (const T &x : v)
		init = f(init, x);
	return init;
}

static bool isop(const char *s)
{
	return std::strlen(s) == 1 && std::strchr("+-x*/%", s[0]) != nullptr;
}

int main(int argc, char **argv)
{
	std::vector<std::unique_ptr<Node>> st;
	std::vector<long> results;
	for (int i = 1; i < argc; i++) {
		if (isop(argv[i])) {
			if (st.size() < 2) {
				std::printf("underflow at %s\n", argv[i]);
				continue;
			}
			auto r = std::move(st.back());
			st.pop_back();
			auto l = std::move(st.back());
			st.pop_back();
			st.push_back(std::make_unique<Bin>(argv[i][0], std::move(l), std::move(r)));
		} else {
			st.push_back(std::make_unique<Num>(std::atol(argv[i])));
		}
	}
	for (const auto &n : st) {
		long v = n->eval();
		results.push_back(v);
		std::printf("%s = %ld depth %d\n", n->show().c_str(), v, n->depth());
	}
	long sum = fold(results, 0L, [](long a, long b) { return a + b; });
	long mx = fold(results, clampv(-1000L, -5L, 5L), [](long a, long b) { return a > b ? a : b; });
	std::printf("sum %ld max %ld\n", sum, mx);
	return 0;
}
