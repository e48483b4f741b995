/* Two translation units and a header with inline code. */
#include <stdio.h>
#include <stdlib.h>
#include "util.h"

int main(int argc, char **argv)
{
	int sum = 0;
	for (int i = 1; i < argc; i++)
		sum += clamp(scale(atoi(argv[i])), -150, 150);
	printf("%d\n", sum);
	return 0;
}
