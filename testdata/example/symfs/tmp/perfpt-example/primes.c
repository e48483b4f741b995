/* primes: a small program for perfpt's bundled example recording.
 * Counts primes below a limit with trial division and a sieve, so the
 * trace has loops, calls, a recursion and a switch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_prime(int n) {
	if (n < 2)
		return 0;
	for (int d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

static int sieve(int limit) {
	static char composite[1 << 12];
	int count = 0;
	memset(composite, 0, (size_t)limit);
	for (int i = 2; i < limit; i++) {
		if (composite[i])
			continue;
		count++;
		for (int j = i * i; j < limit; j += i)
			composite[j] = 1;
	}
	return count;
}

static int digits(int n) { return n < 10 ? 1 : 1 + digits(n / 10); }

static const char *kind(int n) {
	switch (n % 6) {
	case 1:
	case 5:
		return "candidate";
	case 0:
		return "six";
	case 2:
	case 4:
		return "even";
	default:
		return "three";
	}
}

int main(int argc, char **argv) {
	int limit = argc > 1 ? atoi(argv[1]) : 2000;
	if (limit < 2 || limit > (1 << 12))
		limit = 2000;
	int count = 0, width = 0, candidates = 0;
	for (int n = 0; n < limit; n++) {
		count += is_prime(n);
		width += digits(n);
		candidates += kind(n)[0] == 'c';
	}
	printf("%d primes below %d (sieve: %d), %d digits, %d candidates\n", count, limit,
	       sieve(limit), width, candidates);
	return count == sieve(limit) ? 0 : 1;
}
