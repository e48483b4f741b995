/* Variadic functions (va_list walked in loops and passed on), a formatter
 * that switches on conversion characters, and double functions with
 * several returns. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int sum_ints(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

static double mean(int n, ...)
{
	va_list ap;
	double s = 0;
	if (n <= 0)
		return 0.0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, double);
	va_end(ap);
	return s / n;
}

static double clampd(double v, double lo, double hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

static int vfmt(char *out, size_t cap, const char *f, va_list ap)
{
	size_t n = 0;
	for (; *f && n + 24 < cap; f++) {
		if (*f != '%') {
			out[n++] = *f;
			continue;
		}
		switch (*++f) {
		case 'd': case 'i':
			n += (size_t)sprintf(out + n, "%d", va_arg(ap, int));
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			while (*s && n + 24 < cap)
				out[n++] = *s++;
			break;
		}
		case 'c':
			out[n++] = (char)va_arg(ap, int);
			break;
		case '%':
			out[n++] = '%';
			break;
		case 0:
			f--;
			break;
		default:
			out[n++] = '?';
		}
	}
	out[n] = 0;
	return (int)n;
}

static int fmt(char *out, size_t cap, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vfmt(out, cap, f, ap);
	va_end(ap);
	return n;
}

int main(int argc, char **argv)
{
	char line[256];
	int k = argc > 1 ? atoi(argv[1]) : 0;
	printf("%d\n", sum_ints(3, k, k + 1, k + 2));
	printf("%d\n", sum_ints(0));
	printf("%.2f\n", mean(2, 1.5, (double)k));
	printf("%.2f\n", mean(k > 3 ? 0 : 1, 4.0));
	for (int i = 2; i < argc; i++) {
		fmt(line, sizeof line, argv[i], k, "arg", 'c', i);
		puts(line);
		printf("%.1f\n", clampd(atof(argv[i]), -1.0, 10.0));
	}
	return 0;
}
