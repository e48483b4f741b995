/* Jumps out of scopes whose locals live in memory (address-taken or
 * arrays): continue, break and goto after a call and alone in an if,
 * do-while loops with unbraced bodies, returns split over lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end != '\0')
		return -1;
	*out = (int)v;
	return 0;
}

static int sum_args(int argc, char **argv)
{
	int total = 0;
	for (int i = 1; i < argc; i++) {
		int v = 0;
		if (parse(argv[i], &v) < 0) {
			printf("skip %s\n", argv[i]);
			continue;
		}
		if (v > 1000) {
			puts("too big");
			break;
		}
		if (v == 0)
			continue;
		total += v;
	}
	return total;
}

static int first_negative(int argc, char **argv)
{
	int found = -1;
	for (int i = 1; i < argc; i++) {
		char buf[16];
		strncpy(buf, argv[i], sizeof buf - 1);
		buf[sizeof buf - 1] = '\0';
		if (buf[0] != '-')
			continue;
		if (strlen(buf) > 3) {
			printf("long %s\n", buf);
			goto out;
		}
		found = i;
		break;
	}
out:
	return found;
}

static int count_digits(unsigned long v)
{
	int n = 0;
	do
		n++;
	while (v /= 10);
	return n;
}

static int sign_of(int v)
{
	if (v < 0)
		return
			-1;
	return v > 0;
}

static long scaled(int v, int k)
{
	long r = (long)v *
		k;
	return r;
}

int main(int argc, char **argv)
{
	int total = sum_args(argc, argv);
	int neg = first_negative(argc, argv);
	printf("total %d neg %d digits %d sign %d scaled %ld\n", total, neg,
	       count_digits((unsigned long)abs(total)), sign_of(total), scaled(total, 3));
	for (int i = 1; i < argc; i++) {
		int v = 0;
		if (parse(argv[i], &v) == 0)
			printf("%d:%d ", count_digits((unsigned long)abs(v)), sign_of(v));
	}
	putchar('\n');
	return 0;
}
