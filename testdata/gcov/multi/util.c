#include "util.h"

int scale(int v)
{
	return clamp(v * 3, -100, 100);
}
