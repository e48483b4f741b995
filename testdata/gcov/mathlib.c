/* libm calls: a numeric integration, Newton's square root against sqrt, and
 * a table of trigonometric values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double f(double x) { return sin(x) * exp(-x / 4); }

static double integrate(double a, double b, int n)
{
	double h = (b - a) / n, s = (f(a) + f(b)) / 2;
	for (int i = 1; i < n; i++)
		s += f(a + i * h);
	return s * h;
}

static double newton_sqrt(double v)
{
	double x = v > 1 ? v / 2 : 1;
	int iter = 0;
	while (fabs(x * x - v) > 1e-12 * v && iter < 100) {
		x = (x + v / x) / 2;
		iter++;
	}
	return x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	double v = argc > 2 ? atof(argv[2]) : 2.0;
	printf("%.6f\n", integrate(0, M_PI, n));
	double r = newton_sqrt(v);
	if (fabs(r - sqrt(v)) < 1e-9)
		printf("sqrt ok %.9f\n", r);
	else
		printf("sqrt off %.9f %.9f\n", r, sqrt(v));
	for (int d = 0; d <= 360; d += 45)
		printf("%3d %8.5f %8.5f %8.5f\n", d, cos(d * M_PI / 180), pow(2, d / 90.0), log1p(d));
	return 0;
}
