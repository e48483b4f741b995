/* Sparse switches lowered to compare trees (with a dense cluster that gets
 * a jump table of its own), several case labels on one line, consecutive
 * labels, and functions that can fall off their end. */
#include <stdio.h>
#include <stdlib.h>

static int classify(int code)
{
	switch (code) {
	case 1: case 2: case 3:
		return 10;
	case 4:
	case 5:
	case 6:
	case 7:
		return 20;
	case 100:
		return 30;
	case 1000:
	case 1001:
		return 40;
	case 20000:
		return 50;
	case 300000: case 300001:
		return 60;
	}
	return -1;
}

static int http(int status)
{
	int r = 0;
	switch (status) {
	case 200: r = 1; break;
	case 201: case 202: case 204: r = 2; break;
	case 301: case 302:
		r = 3;
		break;
	case 400:
	case 401:
	case 403:
	case 404:
		r = 4;
		break;
	case 500: r = 5; break;
	case 502: case 503:
		r = 6;
	default:
		r += 100;
	}
	return r;
}

static int weight(int c)
{
	if (c < 0)
		return 0;
	switch (c % 7) {
	case 0: return 1;
	case 3: return 4;
	case 5: return 9;
	}
	if (c > 50)
		return 2;
}

int main(int argc, char **argv)
{
	long total = 0;
	for (int i = 1; i < argc; i++) {
		int v = atoi(argv[i]);
		total += classify(v);
		total += http(v);
		if (v < 60)
			total += weight(v);
	}
	printf("%ld\n", total);
	return 0;
}
