// A class template and function templates in a header: gcc instantiates
// them once per type, each a weak function of its own.
#ifndef STACK_H
#define STACK_H

template <typename T, int Cap = 8>
class Stack {
public:
	bool push(const T &v)
	{
		if (n_ == Cap)
			return false;
		data_[n_++] = v;
		return true;
	}
	bool pop(T *out)
	{
		if (n_ == 0)
			return false;
		*out = data_[--n_];
		return true;
	}
	int size() const { return n_; }
	T sum() const
	{
		T s = T();
		for (int i = 0; i < n_; i++)
			s += data_[i];
		return s;
	}

private:
	T data_[Cap];
	int n_ = 0;
};

template <typename T>
T maxof(const T &a, const T &b)
{
	return a < b ? b : a;
}

template <typename T>
int count_if_pos(const T *v, int n)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		if (v[i] > T())
			c++;
	return c;
}

#endif
