/* Word frequencies over the arguments: a chained hash table, character
 * classes with GNU case ranges, qsort with a comparator that breaks ties,
 * strtok over a copy, loops left by break and continue in several
 * places, and a report that stops early. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NB 16

struct word {
	char *text;
	int count;
	struct word *next;
};

static struct word *table[NB];
static int nwords;

static unsigned hash(const char *s)
{
	unsigned h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % NB;
}

static int classify(int c)
{
	switch (c) {
	case 'a' ... 'z':
		return 1;
	case 'A' ... 'Z':
		return 2;
	case '0' ... '9':
		return 3;
	case '\'':
	case '-':
		return 4;
	default:
		return 0;
	}
}

static void normalize(char *w)
{
	char *out = w;
	for (char *p = w; *p; p++) {
		int k = classify(*p);
		if (k == 0)
			continue;
		if (k == 2)
			*p += 'a' - 'A';
		else if (k == 4 && out == w)
			continue;
		*out++ = *p;
	}
	*out = '\0';
}

static struct word *lookup(const char *w, int add)
{
	unsigned h = hash(w);
	struct word *e;
	for (e = table[h]; e; e = e->next)
		if (strcmp(e->text, w) == 0)
			return e;
	if (!add)
		return NULL;
	e = malloc(sizeof *e);
	if (e == NULL)
		return NULL;
	e->text = strdup(w);
	e->count = 0;
	e->next = table[h];
	table[h] = e;
	nwords++;
	return e;
}

static int bycount(const void *a, const void *b)
{
	const struct word *x = *(struct word *const *)a, *y = *(struct word *const *)b;
	if (x->count != y->count)
		return y->count - x->count;
	return strcmp(x->text, y->text);
}

int main(int argc, char **argv)
{
	int limit = 5;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '#') {
			limit = atoi(argv[i] + 1);
			continue;
		}
		char *copy = strdup(argv[i]);
		for (char *t = strtok(copy, ",.;"); t; t = strtok(NULL, ",.;")) {
			normalize(t);
			if (!*t)
				continue;
			struct word *e = lookup(t, 1);
			if (!e)
				break;
			e->count++;
		}
		free(copy);
	}
	struct word **all = malloc((nwords + 1) * sizeof *all);
	int n = 0;
	for (int h = 0; h < NB; h++)
		for (struct word *e = table[h]; e; e = e->next)
			all[n++] = e;
	qsort(all, n, sizeof *all, bycount);
	for (int i = 0; i < n; i++) {
		if (i >= limit) {
			printf("... %d more\n", n - i);
			break;
		}
		printf("%3d %s\n", all[i]->count, all[i]->text);
	}
	printf("%s\n", lookup("the", 0) ? "has the" : "no the");
	free(all);
	return 0;
}
