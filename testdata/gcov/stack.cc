// Templates over int, double and a struct: an RPN calculator on Stack<long>
// and Stack<double>, and function templates instantiated several times.
#include <cstdio>
#include <cstdlib>
#include "stack.h"

struct Money {
	long cents = 0;
	Money &operator+=(const Money &o)
	{
		cents += o.cents;
		return *this;
	}
	bool operator<(const Money &o) const { return cents < o.cents; }
	bool operator>(const Money &o) const { return cents > o.cents; }
};

static long rpn(int argc, char **argv, Stack<long, 4> &st)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		long x, y;
		if (a[0] >= '0' && a[0] <= '9') {
			if (!st.push(std::atol(a)))
				return -1;
			continue;
		}
		if (!st.pop(&y) || !st.pop(&x))
			return -2;
		switch (a[0]) {
		case '+': st.push(x + y); break;
		case '-': st.push(x - y); break;
		case 'x': st.push(x * y); break;
		default: return -3;
		}
	}
	long r = 0;
	st.pop(&r);
	return r;
}

int main(int argc, char **argv)
{
	Stack<long, 4> ls;
	std::printf("rpn %ld size %d\n", rpn(argc, argv, ls), ls.size());
	Stack<double> ds;
	for (int i = 0; i < argc * 2; i++)
		ds.push(i * 0.5);
	std::printf("%.1f %d\n", ds.sum(), ds.size());
	Stack<Money, 3> ms;
	Money m;
	for (int i = 0; i < argc; i++) {
		m.cents = i * 100 - 150;
		ms.push(m);
	}
	std::printf("%ld\n", ms.sum().cents);
	std::printf("%d %.1f %ld\n", maxof(3, argc), maxof(2.5, 1.0 * argc), maxof(m, Money()).cents);
	long lv[] = {1, -2, 3, argc};
	double dv[] = {-1.0, 0.5};
	Money mv[2];
	mv[1].cents = argc;
	std::printf("%d %d %d\n", count_if_pos(lv, 4), count_if_pos(dv, 2), count_if_pos(mv, 2));
	return 0;
}
