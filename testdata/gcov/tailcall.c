/* tailcall.c: tail recursion gcc turns into loops (gcd, accumulating
   sums, a list walk), mutual tail calls and a non-tail recursion for
   contrast. */
#include <stdio.h>
#include <stdlib.h>

struct node {
	int v;
	struct node *next;
};

static unsigned long gcd(unsigned long a, unsigned long b)
{
	if (b == 0)
		return a;
	return gcd(b, a % b);
}

static long sum_to(long n, long acc)
{
	if (n <= 0)
		return acc;
	return sum_to(n - 1, acc + n);
}

static int is_even(unsigned n);

static int is_odd(unsigned n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1);
}

static int is_even(unsigned n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1);
}

static int list_max(const struct node *p, int best)
{
	if (!p)
		return best;
	if (p->v > best)
		best = p->v;
	return list_max(p->next, best);
}

static long power(long b, int e)
{
	if (e == 0)
		return 1;
	long h = power(b, e / 2);
	return e % 2 ? h * h * b : h * h;
}

int main(int argc, char **argv)
{
	struct node nodes[32];
	int n = 0;
	for (int i = 1; i < argc && n < 32; i++) {
		nodes[n].v = atoi(argv[i]);
		nodes[n].next = n + 1 < argc - 1 && n + 1 < 32 ? &nodes[n + 1] : NULL;
		n++;
	}
	if (n == 0)
		return 1;
	for (int i = 0; i + 1 < n; i++) {
		unsigned long a = labs(nodes[i].v), b = labs(nodes[i + 1].v);
		printf("gcd(%lu,%lu)=%lu\n", a, b, gcd(a, b));
	}
	for (int i = 0; i < n; i++)
		printf("%d: sum %ld %s 2^%d=%ld\n", nodes[i].v, sum_to(nodes[i].v, 0),
		       is_even(abs(nodes[i].v) % 50) ? "even" : "odd", nodes[i].v % 20, power(2, abs(nodes[i].v) % 20));
	printf("max %d\n", list_max(nodes, nodes[0].v));
	return 0;
}
