/* A header with inline code: gcov writes util.h.gcov for it. */
static inline int clamp(int v, int lo, int hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

int scale(int v);
