/* retry.c: goto for error paths with cleanup, retry loops built from
   labels, and a goto out of nested loops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int attempts;

static int flaky(int v)
{
	attempts++;
	return (v + attempts) % 3 == 0;
}

static int try_hard(int v)
{
	int tries = 0;
again:
	tries++;
	if (!flaky(v)) {
		if (tries < 4)
			goto again;
		return -1;
	}
	return tries;
}

static char *build(const char *a, const char *b)
{
	char *x = NULL, *y = NULL, *out = NULL;
	x = malloc(strlen(a) + 1);
	if (!x)
		goto fail;
	strcpy(x, a);
	if (strlen(b) > 8)
		goto fail;
	y = malloc(strlen(b) + 1);
	if (!y)
		goto fail;
	strcpy(y, b);
	out = malloc(strlen(x) + strlen(y) + 2);
	if (!out)
		goto fail;
	sprintf(out, "%s+%s", x, y);
fail:
	free(x);
	free(y);
	return out;
}

static int find_pair(int *v, int n, int target, int *pi, int *pj)
{
	int i, j;
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			if (v[i] + v[j] == target)
				goto found;
		}
	}
	return 0;
found:
	*pi = i;
	*pj = j;
	return 1;
}

int main(int argc, char **argv)
{
	int v[32], n = 0;
	for (int i = 1; i < argc; i++) {
		if (n < 32)
			v[n++] = atoi(argv[i]);
		printf("%s: tries %d\n", argv[i], try_hard(atoi(argv[i])));
		if (i > 1) {
			char *s = build(argv[i - 1], argv[i]);
			printf("  %s\n", s ? s : "(none)");
			free(s);
		}
	}
	int a, b;
	if (find_pair(v, n, 10, &a, &b))
		printf("pair %d %d\n", v[a], v[b]);
	else
		printf("no pair\n");
	return 0;
}
