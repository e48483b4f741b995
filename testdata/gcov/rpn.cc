// Fresh C++ program (round 11): an RPN evaluator with a token class,
// operators as virtual objects in a std::vector of unique_ptr, a scope
// guard (RAII) that logs on every way out, lambdas stored in a table,
// a function template with a switch, exceptions thrown, caught,
// rethrown and translated.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct EvalError : std::runtime_error {
	int pos;
	EvalError(const std::string &what, int p) : std::runtime_error(what), pos(p) {}
};

class Guard {
public:
	explicit Guard(const char *w) : what(w), depth(++level) {}
	~Guard()
	{
		level--;
		if (depth > 2)
			std::printf("  leave %s at depth %d\n", what, depth);
	}

private:
	const char *what;
	int depth;
	static int level;
};

int Guard::level = 0;

struct Op {
	virtual ~Op() = default;
	virtual char sym() const = 0;
	virtual long apply(long a, long b) const = 0;
};

struct Add : Op {
	char sym() const override { return '+'; }
	long apply(long a, long b) const override { return a + b; }
};

struct Div : Op {
	char sym() const override { return '/'; }
	long apply(long a, long b) const override
	{
		if (b == 0)
			throw std::domain_error("division by zero");
		return a / b;
	}
};

struct Fn : Op {
	char c;
	long (*f)(long, long);
	Fn(char ch, long (*fp)(long, long)) : c(ch), f(fp) {}
	char sym() const override { return c; }
	long apply(long a, long b) const override { return f(a, b); }
};

template <typename T>
T pick(char how, T a, T b)
{
	switch (how) {
	case '<':
		return a < b ? a : b;
	case '>':
		return a > b ? a : b;
	case '=':
	case '_':
		return b;
	default:
		return a;
	}
}

static long eval(const std::vector<std::unique_ptr<Op>> &ops, const std::string &expr)
{
	Guard g("eval");
	std::vector<long> st;
	int pos = 0;
	for (char ch : expr) {
		pos++;
		if (ch >= '0' && ch <= '9') {
			st.push_back(ch - '0');
			continue;
		}
		const Op *op = nullptr;
		for (const auto &o : ops)
			if (o->sym() == ch)
				op = o.get();
		if (!op)
			throw EvalError(std::string("bad token ") + ch, pos);
		if (st.size() < 2)
			throw EvalError("stack underflow", pos);
		long b = st.back();
		st.pop_back();
		long a = st.back();
		st.pop_back();
		try {
			st.push_back(op->apply(a, b));
		} catch (const std::domain_error &) {
			Guard inner("div");
			throw EvalError("domain", pos);
		}
	}
	return st.empty() ? 0 : st.back();
}

int main(int argc, char **argv)
{
	Guard top("main");
	std::vector<std::unique_ptr<Op>> ops;
	ops.push_back(std::make_unique<Add>());
	ops.push_back(std::make_unique<Div>());
	ops.push_back(std::make_unique<Fn>('*', [](long a, long b) { return a * b; }));
	ops.push_back(std::make_unique<Fn>('<', [](long a, long b) { return pick('<', a, b); }));
	int bad = 0;
	long last = 0;
	for (int i = 1; i < argc; i++) {
		try {
			last = eval(ops, argv[i]);
			std::printf("%s = %ld (%ld)\n", argv[i], last, pick(argv[i][0], last, 0L));
		} catch (const EvalError &e) {
			std::printf("%s: %s at %d\n", argv[i], e.what(), e.pos);
			bad++;
		}
	}
	std::printf("bad %d last %ld %d\n", bad, last, pick('>', 3, bad));
	return bad;
}
