/* An open-addressing hash table: a hash with a switch that falls through
 * (Duff-like tail handling), probing loops with conditions split over two
 * lines, deletion with tombstones and resizing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	const char *key;
	int val;
	int dead;
};

static struct slot *tab;
static size_t cap, used;

static unsigned hash(const char *s, size_t n)
{
	unsigned h = 2166136261u;
	size_t i = 0;
	for (; i + 4 <= n; i += 4)
		h = (h ^ (unsigned)(s[i] | s[i + 1] << 8 | s[i + 2] << 16 | s[i + 3] << 24)) * 16777619u;
	switch (n - i) {
	case 3:
		h ^= (unsigned)s[i + 2] << 16;
		/* fall through */
	case 2:
		h ^= (unsigned)s[i + 1] << 8;
		/* fall through */
	case 1:
		h ^= (unsigned)s[i];
		h *= 16777619u;
	}
	return h;
}

static int keyeq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

static void put(const char *k, int v);

static void grow(void)
{
	struct slot *old = tab;
	size_t oc = cap;
	cap = cap ? cap * 2 : 4;
	tab = calloc(cap, sizeof *tab);
	used = 0;
	for (size_t i = 0; i < oc; i++)
		if (old[i].key && !old[i].dead)
			put(old[i].key, old[i].val);
	free(old);
}

static void put(const char *k, int v)
{
	if ((used + 1) * 4 > cap * 3)
		grow();
	size_t i = hash(k, strlen(k)) & (cap - 1);
	while (tab[i].key &&
	       !keyeq(tab[i].key, k))
		i = (i + 1) & (cap - 1);
	if (!tab[i].key)
		used++;
	tab[i].key = k;
	tab[i].val = v;
	tab[i].dead = 0;
}

static struct slot *get(const char *k)
{
	if (!cap)
		return NULL;
	size_t i = hash(k, strlen(k)) & (cap - 1);
	for (size_t n = 0; n < cap && tab[i].key; n++) {
		if (!tab[i].dead && keyeq(tab[i].key, k))
			return &tab[i];
		i = (i + 1) & (cap - 1);
	}
	return NULL;
}

static int del(const char *k)
{
	struct slot *s = get(k);
	if (!s)
		return 0;
	s->dead = 1;
	return 1;
}

int main(int argc, char **argv)
{
	int hits = 0;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			hits += del(argv[i] + 1);
			continue;
		}
		struct slot *s = get(argv[i]);
		if (s)
			s->val++;
		else
			put(argv[i], 1);
	}
	for (int i = 1; i < argc; i++) {
		struct slot *s = get(argv[i]);
		if (s && s->val > 1)
			hits++;
	}
	printf("%d %zu %zu\n", hits, used, cap);
	free(tab);
	return 0;
}
