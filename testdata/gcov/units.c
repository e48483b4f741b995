/* units.c: unit conversion with small static helpers called inside
   statements, if-chains that return constants, a switch on an enum whose
   cases only pick a value, and a switch with case ranges. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum unit { MM, CM, M, KM, IN, FT, YD, MI, BAD };

static double to_mm(enum unit u)
{
	switch (u) {
	case MM: return 1.0;
	case CM: return 10.0;
	case M: return 1000.0;
	case KM: return 1000000.0;
	case IN: return 25.4;
	case FT: return 304.8;
	case YD: return 914.4;
	case MI: return 1609344.0;
	default: return 0.0;
	}
}

static int metric(enum unit u)
{
	if (u == MM)
		return 1;
	if (u == CM)
		return 1;
	if (u == M || u == KM)
		return 1;
	return 0;
}

static enum unit parse_unit(const char *s)
{
	if (strcmp(s, "mm") == 0)
		return MM;
	else if (strcmp(s, "cm") == 0)
		return CM;
	else if (strcmp(s, "m") == 0)
		return M;
	else if (strcmp(s, "km") == 0)
		return KM;
	else if (strcmp(s, "in") == 0)
		return IN;
	else if (strcmp(s, "ft") == 0)
		return FT;
	else if (strcmp(s, "yd") == 0)
		return YD;
	else if (strcmp(s, "mi") == 0)
		return MI;
	return BAD;
}

static int digit_class(int c)
{
	switch (c) {
	case '0' ... '4':
		return 1;
	case '5' ... '9':
		return 2;
	case '.':
		return 3;
	case '-':
	case '+':
		return 4;
	}
	return 0;
}

static double clampd(double v, double lo, double hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

static double convert(double v, enum unit from, enum unit to)
{
	double mm = v * to_mm(from);
	double out = mm / to_mm(to);
	return clampd(out, -1e12, 1e12);
}

int main(int argc, char **argv)
{
	int classes[5] = { 0 };
	int metrics = 0;
	double total = 0;
	for (int i = 1; i + 2 < argc; i += 3) {
		const char *num = argv[i];
		enum unit from = parse_unit(argv[i + 1]);
		enum unit to = parse_unit(argv[i + 2]);
		for (const char *p = num; *p; p++)
			classes[digit_class((unsigned char)*p)]++;
		if (from == BAD || to == BAD) {
			printf("bad unit in %s %s\n", argv[i + 1], argv[i + 2]);
			continue;
		}
		metrics += metric(from) + metric(to);
		double v = convert(atof(num), from, to);
		total += v;
		printf("%s %s = %.4f %s\n", num, argv[i + 1], v, argv[i + 2]);
	}
	printf("metric %d total %.3f classes %d %d %d %d %d\n", metrics, total,
	       classes[0], classes[1], classes[2], classes[3], classes[4]);
	return 0;
}
