// Callbacks held in std::function inside a std::vector, lambdas capturing
// by value, by reference and mutable, a lambda returning a lambda, a
// template queue, range-for with break and continue, and exceptions
// rethrown through nested try blocks while destructors run.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <vector>

template <typename T>
class Queue {
	std::vector<T> items;
	size_t head = 0;

public:
	void push(const T &v) { items.push_back(v); }
	bool empty() const { return head == items.size(); }
	T pop()
	{
		if (empty())
			throw std::out_of_range("queue empty");
		return items[head++];
	}
	size_t size() const { return items.size() - head; }
};

struct Tracer {
	int id;
	static int live;
	Tracer(int i) : id(i) { live++; }
	Tracer(const Tracer &o) : id(o.id) { live++; }
	~Tracer() { live--; }
};
int Tracer::live = 0;

static std::function<int(int)> adder(int k)
{
	return [k](int x) { return x + k; };
}

static int dispatch(Queue<int> &q, const std::vector<std::function<int(int)>> &handlers)
{
	int acc = 0;
	while (!q.empty()) {
		int ev = q.pop();
		Tracer t(ev);
		if (ev < 0)
			break;
		if (ev >= (int)handlers.size()) {
			if (ev > 100)
				throw std::runtime_error("event out of range");
			continue;
		}
		acc += handlers[ev](acc);
	}
	return acc;
}

static int guarded(Queue<int> &q, const std::vector<std::function<int(int)>> &h)
{
	try {
		Tracer outer(-1);
		try {
			return dispatch(q, h);
		} catch (const std::runtime_error &) {
			std::printf("inner caught, %zu left\n", q.size());
			throw;
		}
	} catch (const std::exception &e) {
		std::printf("outer: %s live %d\n", e.what(), Tracer::live);
		return -1;
	}
}

int main(int argc, char **argv)
{
	int calls = 0;
	int scale = argc;
	std::vector<std::function<int(int)>> handlers;
	handlers.push_back([&calls](int a) { calls++; return a + 1; });
	handlers.push_back([scale](int a) { return a * scale; });
	handlers.push_back(adder(7));
	handlers.push_back([n = 0](int a) mutable {
		n += 2;
		return a - n;
	});
	Queue<int> q;
	for (int i = 1; i < argc; i++)
		q.push(std::atoi(argv[i]));
	int r = guarded(q, handlers);
	int extra = 0;
	for (auto &h : handlers) {
		extra += h(1);
		if (extra > 50)
			break;
	}
	std::printf("result %d calls %d extra %d live %d\n", r, calls, extra, Tracer::live);
	return 0;
}
