/* Switches that only return constants, case labels on one line and on
 * consecutive lines, a varargs logger, qsort callbacks and goto error
 * paths that free what was allocated. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_SPACE, K_DIGIT, K_ALPHA, K_PUNCT, K_OTHER };

static enum kind classify(int c)
{
	switch (c) {
	case ' ': case '\t': case '\n':
		return K_SPACE;
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return K_DIGIT;
	case '.':
	case ',':
	case ';':
	case '!':
		return K_PUNCT;
	default:
		break;
	}
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return K_ALPHA;
	return K_OTHER;
}

static const char *kind_name(enum kind k)
{
	switch (k) {
	case K_SPACE: return "space";
	case K_DIGIT: return "digit";
	case K_ALPHA: return "alpha";
	case K_PUNCT: return "punct";
	default: return "other";
	}
}

static int verbose;

static void logf_(const char *fmt, ...)
{
	va_list ap;
	if (!verbose)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

static int by_count_desc(const void *a, const void *b)
{
	const int *x = a, *y = b;
	if (x[1] != y[1])
		return y[1] - x[1];
	return x[0] - y[0];
}

static int histogram(const char *s, int out[][2])
{
	int *counts = calloc(5, sizeof *counts);
	char *copy = NULL;
	int n = 0;
	if (!counts)
		goto fail;
	copy = strdup(s);
	if (!copy)
		goto fail_counts;
	for (char *p = copy; *p; p++) {
		enum kind k = classify((unsigned char)*p);
		counts[k]++;
		logf_("%c -> %s\n", *p, kind_name(k));
	}
	for (int k = 0; k < 5; k++) {
		if (!counts[k])
			continue;
		out[n][0] = k;
		out[n][1] = counts[k];
		n++;
	}
	qsort(out, n, sizeof out[0], by_count_desc);
	free(copy);
	free(counts);
	return n;
fail_counts:
	free(counts);
fail:
	return -1;
}

int main(int argc, char **argv)
{
	int out[5][2];
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-v") == 0) {
			verbose = 1;
			continue;
		}
		int n = histogram(argv[i], out);
		for (int j = 0; j < n; j++)
			printf("%s=%d%c", kind_name(out[j][0]), out[j][1], j + 1 < n ? ' ' : '\n');
	}
	return 0;
}
