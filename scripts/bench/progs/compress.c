/* compress: an LZ77 compressor with a hash chain and a greedy matcher, then
 * a decompressor, on generated text. Benchmark input for scripts/bench.sh:
 * data-dependent branches in tight loops. Usage: compress KIB */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HBITS 14
#define WIN 32768

static unsigned long rng = 0x9e3779b97f4a7c15UL;
static unsigned next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (unsigned)rng; }

static const char *words[] = {"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "trace",
	"packet", "branch", "decoder", "block", "edge", "graph", "profile", "coverage", "return", "call", "loop"};

static long compress(const unsigned char *in, long n, unsigned char *out)
{
	static int head[1 << HBITS];
	static int prev[WIN];
	memset(head, -1, sizeof head);
	long o = 0, i = 0;
	while (i < n) {
		int best = 0, bdist = 0;
		if (i + 3 <= n) {
			unsigned h = ((in[i] << 10) ^ (in[i + 1] << 5) ^ in[i + 2]) & ((1 << HBITS) - 1);
			int c = head[h], tries = 32;
			while (c >= 0 && i - c < WIN && tries--) {
				int l = 0;
				while (i + l < n && l < 258 && in[c + l] == in[i + l]) l++;
				if (l > best) { best = l; bdist = (int)(i - c); }
				c = prev[c % WIN];
			}
			prev[i % WIN] = head[h];
			head[h] = (int)i;
		}
		if (best >= 3) {
			out[o++] = 0xff; out[o++] = (unsigned char)best; out[o++] = (unsigned char)(bdist >> 8);
			out[o++] = (unsigned char)bdist;
			for (int k = 1; k < best; k++) {
				long j = i + k;
				if (j + 3 <= n) {
					unsigned h = ((in[j] << 10) ^ (in[j + 1] << 5) ^ in[j + 2]) & ((1 << HBITS) - 1);
					prev[j % WIN] = head[h];
					head[h] = (int)j;
				}
			}
			i += best;
		} else {
			if (in[i] == 0xff) out[o++] = 0xff, out[o++] = 0;
			else out[o++] = in[i];
			i++;
		}
	}
	return o;
}

static long decompress(const unsigned char *in, long n, unsigned char *out)
{
	long o = 0;
	for (long i = 0; i < n;) {
		if (in[i] != 0xff) { out[o++] = in[i++]; continue; }
		int l = in[i + 1];
		if (l == 0) { out[o++] = 0xff; i += 2; continue; }
		int d = (in[i + 2] << 8) | in[i + 3];
		for (int k = 0; k < l; k++, o++) out[o] = out[o - d];
		i += 4;
	}
	return o;
}

int main(int argc, char **argv)
{
	long n = (argc > 1 ? atol(argv[1]) : 256) * 1024;
	unsigned char *in = malloc(n), *c = malloc(2 * n + 16), *d = malloc(n + 16);
	long i = 0;
	while (i < n) {
		const char *w = words[next() % 20];
		while (*w && i < n) in[i++] = (unsigned char)*w++;
		if (i < n) in[i++] = next() % 7 ? ' ' : '\n';
	}
	long cn = compress(in, n, c);
	long dn = decompress(c, cn, d);
	printf("%ld %ld %d\n", cn, dn, memcmp(in, d, n) != 0);
	return 0;
}
