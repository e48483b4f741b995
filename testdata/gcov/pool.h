// A fixed-capacity object pool and a small result type, templates in a
// header for pool.cc.
#include <cstdio>
#include <stdexcept>

template <typename T, int N>
class Pool {
public:
	Pool() : used(0) {}
	~Pool()
	{
		if (used)
			std::printf("pool: %d left\n", used);
	}
	T *take(const T &init)
	{
		for (int i = 0; i < N; i++) {
			if (!busy[i]) {
				busy[i] = true;
				slots[i] = init;
				used++;
				return &slots[i];
			}
		}
		throw std::length_error("pool full");
	}
	void give(T *p)
	{
		int i = p - slots;
		if (i < 0 || i >= N || !busy[i])
			throw std::invalid_argument("not ours");
		busy[i] = false;
		used--;
	}
	template <typename F>
	int each(F f) const
	{
		int n = 0;
		for (int i = 0; i < N; i++)
			if (busy[i]) {
				f(slots[i]);
				n++;
			}
		return n;
	}
	int size() const { return used; }

private:
	T slots[N];
	bool busy[N] = {};
	int used;
};

template <typename T>
struct Result {
	bool ok;
	T value;
	static Result good(T v) { return Result{true, v}; }
	static Result bad() { return Result{false, T()}; }
	T or_else(T d) const { return ok ? value : d; }
};
