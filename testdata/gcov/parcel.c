/* parcel.c: shipping quotes for parcels given as WEIGHTxLxWxH@ZONE words.
 * Small helpers called twice in one expression, a zone switch that only
 * picks a rate, a size class from a chain of ifs, a parser with goto
 * error paths, a qsort callback, a do-while digit loop and a varargs
 * logger. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parcel {
	int grams;
	int dims[3];
	char zone;
	int cents;
};

static int verbose;

static void note(const char *fmt, ...)
{
	va_list ap;
	if (!verbose)
		return;
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
}

static int zone_rate(char z)
{
	switch (z) {
	case 'A': return 120;
	case 'B': return 180;
	case 'C': return 260;
	case 'D': return 410;
	case 'E': return 650;
	default: return 0;
	}
}

static int clamp(int v, int lo, int hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

static int size_class(const int *d)
{
	int sum = d[0] + d[1] + d[2];
	if (sum <= 60)
		return 0;
	else if (sum <= 120)
		return 1;
	else if (sum <= 200) {
		if (d[0] > 100 || d[1] > 100 || d[2] > 100)
			return 3;
		return 2;
	}
	return 3;
}

static const char *read_int(const char *s, int *out)
{
	int v = 0, n = 0;
	do {
		if (*s < '0' || *s > '9')
			break;
		v = v * 10 + (*s - '0');
		s++;
		n++;
	} while (n < 7);
	if (n == 0)
		return NULL;
	*out = v;
	return s;
}

static int parse(const char *w, struct parcel *p)
{
	const char *s = read_int(w, &p->grams);
	if (!s || *s != 'x')
		goto bad;
	for (int i = 0; i < 3; i++) {
		s = read_int(s + (i > 0 || *s == 'x'), &p->dims[i]);
		if (!s)
			goto bad;
		if (i < 2 && *s != 'x')
			goto bad;
	}
	if (*s != '@' || !zone_rate(s[1]))
		goto bad;
	p->zone = s[1];
	return 1;
bad:
	note("cannot read %s\n", w);
	return 0;
}

static int quote(const struct parcel *p)
{
	int base = zone_rate(p->zone);
	int kg = (p->grams + 999) / 1000;
	int c = base + clamp(kg, 1, 30) * 45;
	switch (size_class(p->dims)) {
	case 3:
		c += 900;
		/* fall through */
	case 2:
		c += 300;
		break;
	case 1:
		c += 100;
		break;
	}
	return c;
}

static int by_cents(const void *a, const void *b)
{
	const struct parcel *x = a, *y = b;
	if (x->cents != y->cents)
		return x->cents < y->cents ? -1 : 1;
	return x->zone - y->zone;
}

int main(int argc, char **argv)
{
	struct parcel ps[32];
	int n = 0, bad = 0;
	for (int i = 1; i < argc && n < 32; i++) {
		if (strcmp(argv[i], "-v") == 0) {
			verbose = 1;
			continue;
		}
		if (parse(argv[i], &ps[n])) {
			ps[n].cents = quote(&ps[n]);
			n++;
		} else
			bad++;
	}
	qsort(ps, n, sizeof ps[0], by_cents);
	int total = 0;
	for (int i = 0; i < n; i++) {
		int spread = clamp(ps[i].cents - ps[0].cents, 0, 5000) + clamp(ps[n - 1].cents - ps[i].cents, 0, 5000);
		note("%c %d g -> %d (%d)\n", ps[i].zone, ps[i].grams, ps[i].cents, spread);
		total += ps[i].cents;
	}
	printf("%d parcels, %d bad, total %d.%02d\n", n, bad, total / 100, total % 100);
	return bad > 0;
}
