// Small algorithms taking callables: instantiated once per lambda type.
#ifndef ALGO_H
#define ALGO_H

template <typename T, typename F>
int count_where(const T *v, int n, F pred)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		if (pred(v[i]))
			c++;
	return c;
}

template <typename T, typename F>
void for_each_index(T *v, int n, F f)
{
	for (int i = 0; i < n; i++)
		f(v[i], i);
}

template <typename T, typename Less>
void insertion_sort(T *v, int n, Less less)
{
	for (int i = 1; i < n; i++) {
		T x = v[i];
		int j = i - 1;
		while (j >= 0 &&
		       less(x, v[j])) {
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = x;
	}
}

#endif
