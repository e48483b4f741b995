// Grid<N> (grid.h) instantiated for two sizes: copies, moves, operators,
// default arguments, a static member per instance, and a power function
// by squaring with early returns.
#include <cstdio>
#include <cstdlib>
#include <utility>
#include "grid.h"

template <int N>
static Grid<N> identity()
{
	Grid<N> g;
	for (int i = 0; i < N; i++)
		g.at(i, i) = 1;
	return g;
}

template <int N>
static Grid<N> power(const Grid<N> &g, int e)
{
	if (e <= 0)
		return identity<N>();
	if (e == 1)
		return g;
	Grid<N> half = power(g, e / 2);
	Grid<N> sq = half * half;
	if (e % 2)
		return sq * g;
	return sq;
}

template <int N>
static void show(const Grid<N> &g, const char *title)
{
	std::printf("%s trace %ld\n", title, g.trace());
	for (int i = 0; i < N; i++)
		std::printf("  %s\n", g.row(i, i % 2 ? "," : " ").c_str());
}

int main(int argc, char **argv)
{
	int e = argc > 1 ? std::atoi(argv[1]) : 3;
	int seed = argc > 2 ? std::atoi(argv[2]) : 1;
	Grid<2> fib;
	fib.at(0, 0) = fib.at(0, 1) = fib.at(1, 0) = 1;
	show(power(fib, e), "fib");
	Grid<3> m;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			m.at(i, j) = (seed * (i + 1) + j) % 5;
	Grid<3> acc = identity<3>();
	for (int k = 0; k < e % 4; k++)
		acc += power(m, k);
	Grid<3> moved = std::move(acc);
	show(moved, "sum");
	std::printf("made %d %d\n", Grid<2>::made, Grid<3>::made);
	return 0;
}
