// An expression tree with virtual evaluation; small functions inline in
// the header.
#include <memory>
#include <string>

struct Node {
	virtual ~Node() {}
	virtual long eval() const = 0;
	virtual std::string show() const = 0;
	virtual int depth() const { return 1; }
};

struct Num : Node {
	long v;
	explicit Num(long x) : v(x) {}
	long eval() const override { return v; }
	std::string show() const override { return std::to_string(v); }
};

struct Bin : Node {
	char op;
	std::unique_ptr<Node> l, r;
	Bin(char o, std::unique_ptr<Node> a, std::unique_ptr<Node> b)
		: op(o), l(std::move(a)), r(std::move(b)) {}
	long eval() const override;
	std::string show() const override
	{
		return "(" + l->show() + op + r->show() + ")";
	}
	int depth() const override
	{
		int a = l->depth(), b = r->depth();
		return 1 + (a > b ? a : b);
	}
};

template <typename T>
inline T clampv(T v, T lo, T hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}
