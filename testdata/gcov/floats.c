/* double and float functions with several returns, piecewise functions
 * with else-if chains, Newton iterations, and a float function that can
 * fall off its end. */
#include <stdio.h>
#include <stdlib.h>

static double piecewise(double x)
{
	if (x < -1.0)
		return -1.0;
	else if (x < 0.0)
		return x * x * x;
	else if (x < 1.0) {
		if (x < 0.5)
			return x / 2;
		else
			return x * x;
	}
	return 1.0;
}

static double newton_sqrt(double v)
{
	if (v < 0)
		return -1;
	if (v == 0)
		return 0;
	double x = v > 1 ? v / 2 : 1;
	for (int i = 0; i < 40; i++) {
		double nx = 0.5 * (x + v / x);
		if (nx == x)
			break;
		x = nx;
	}
	return x;
}

static float lerp(float a, float b, float t)
{
	return a + (b - a) * t;
}

static float pick(float a, float b, int which)
{
	if (which == 0)
		return a;
	if (which == 1)
		return b;
}

static double avg(const double *v, int n)
{
	double s = 0;
	int i;
	for (i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : 0;
}

int main(int argc, char **argv)
{
	double v[16];
	int n = 0;
	for (int i = 1; i < argc && n < 16; i++) {
		double x = atof(argv[i]);
		v[n++] = piecewise(x);
		printf("%.3f %.3f %.3f\n", piecewise(x), newton_sqrt(x), (double)lerp(0, (float)x, 0.25f));
		if (i % 2)
			printf("%.1f\n", (double)pick(1, 2, i % 4 == 1));
	}
	printf("%.4f\n", avg(v, n));
	return 0;
}
