/* stock.c: a small inventory: records parsed from "name:qty:price"
   arguments with a do-while over fields, a lookup loop with strcmp in a
   static helper, a qsort callback comparing two keys, a switch on the
   first letter that groups categories, helpers returning the larger of
   two values and a clamped value, and a report loop with continue. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct item {
	char name[16];
	int qty;
	int price;
};

static struct item items[32];
static int nitems;

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static int clamp_qty(int q)
{
	if (q < 0)
		return 0;
	if (q > 999)
		return 999;
	return q;
}

static int find(const char *name)
{
	for (int i = 0; i < nitems; i++)
		if (strcmp(items[i].name, name) == 0)
			return i;
	return -1;
}

static int parse(const char *s, struct item *it)
{
	int field = 0;
	const char *p = s;
	memset(it, 0, sizeof *it);
	do {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (field == 0) {
			if (n == 0 || n >= sizeof it->name)
				return -1;
			memcpy(it->name, p, n);
		} else if (field == 1)
			it->qty = clamp_qty(atoi(p));
		else if (field == 2)
			it->price = atoi(p);
		else
			return -1;
		field++;
		p = end ? end + 1 : NULL;
	} while (p);
	return field == 3 ? 0 : -1;
}

static int category(const char *name)
{
	switch (name[0]) {
	case 'a':
	case 'b':
	case 'c':
		return 1;
	case 'p':
		return 2;
	case 'x':
	case 'y':
	case 'z':
		return 3;
	default:
		return 0;
	}
}

static int by_value(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	long vx = (long)x->qty * x->price, vy = (long)y->qty * y->price;
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
	int rejected = 0, most = 0;
	int cats[4] = {0};
	for (int i = 1; i < argc; i++) {
		struct item it;
		if (parse(argv[i], &it) < 0) {
			rejected++;
			continue;
		}
		int k = find(it.name);
		if (k >= 0) {
			items[k].qty = clamp_qty(items[k].qty + it.qty);
			items[k].price = max_int(items[k].price, it.price);
		} else if (nitems < 32) {
			items[nitems++] = it;
		}
	}
	qsort(items, nitems, sizeof items[0], by_value);
	for (int i = 0; i < nitems; i++) {
		cats[category(items[i].name)]++;
		if (items[i].qty == 0)
			continue;
		most = max_int(most, items[i].qty);
		printf("%-10s %4d x %5d\n", items[i].name, items[i].qty, items[i].price);
	}
	printf("%d items, %d rejected, most %d, cats %d %d %d %d\n", nitems, rejected, most,
	       cats[0], cats[1], cats[2], cats[3]);
	return 0;
}
