// A small ledger: a class template with a constructor and destructor, a
// checked operation that throws, lambdas passed to a template algorithm,
// and a switch that returns constants.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

template <typename T, int N>
class Ring {
public:
	Ring() : head(0), size(0) {}
	~Ring() { std::printf("ring of %d dropped\n", size); }
	void push(T v)
	{
		data[(head + size) % N] = v;
		if (size < N)
			size++;
		else
			head = (head + 1) % N;
	}
	template <typename F>
	T fold(T init, F f) const
	{
		for (int i = 0; i < size; i++)
			init = f(init, data[(head + i) % N]);
		return init;
	}
	int count() const { return size; }

private:
	T data[N];
	int head, size;
};

struct Overdraft : std::runtime_error {
	explicit Overdraft(long need) : std::runtime_error("overdraft"), need(need) {}
	long need;
};

class Account {
public:
	explicit Account(long start) : balance(start) {}
	void apply(long amount)
	{
		if (balance + amount < 0)
			throw Overdraft(-(balance + amount));
		balance += amount;
		history.push(amount);
	}
	long total() const { return balance; }
	long deposits() const
	{
		return history.fold(0L, [](long acc, long v) { return v > 0 ? acc + v : acc; });
	}
	long largest() const
	{
		return history.fold(0L, [](long acc, long v) {
			long a = v < 0 ? -v : v;
			return a > acc ? a : acc;
		});
	}

private:
	long balance;
	Ring<long, 4> history;
};

static int weight(char op)
{
	switch (op) {
	case '+':
		return 1;
	case '-':
		return -1;
	case '*':
		return 2;
	default:
		return 0;
	}
}

int main(int argc, char **argv)
{
	Account acct(10);
	int failures = 0;
	for (int i = 1; i < argc; i++) {
		int w = weight(argv[i][0]);
		long amount = std::atol(argv[i] + 1) * (w ? w : 1);
		try {
			acct.apply(amount);
		} catch (const Overdraft &e) {
			std::printf("overdraft by %ld\n", e.need);
			failures++;
		}
	}
	std::printf("total %ld deposits %ld largest %ld failures %d\n", acct.total(), acct.deposits(),
		    acct.largest(), failures);
	return failures > 2;
}
