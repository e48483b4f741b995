// A small bank written in round 13 to measure the C++ rules on code they
// were not made for: accounts in a std::map keyed by std::string, a class
// hierarchy with virtual fees, an exception class of its own thrown from
// deep calls and caught by reference, an RAII audit scope left by return,
// break, continue and exceptions, a function template, lambdas given to
// std::sort and std::for_each, std::string concatenation in messages.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

class BankError : public std::runtime_error {
public:
	int code;
	BankError(const std::string &what, int c) : std::runtime_error(what), code(c) {}
};

static int audits_open;

struct Audit {
	std::string tag;
	explicit Audit(std::string t) : tag(std::move(t)) { audits_open++; }
	~Audit() { audits_open--; }
};

class Account {
public:
	std::string owner;
	long balance = 0;
	explicit Account(std::string o) : owner(std::move(o)) {}
	virtual ~Account() = default;
	virtual long fee(long amount) const { return amount / 100; }
	virtual const char *kind() const { return "basic"; }
	void withdraw(long amount)
	{
		long total = amount + fee(amount);
		if (total > balance)
			throw BankError("insufficient funds for " + owner, 2);
		balance -= total;
	}
};

class Premium : public Account {
public:
	explicit Premium(std::string o) : Account(std::move(o)) {}
	long fee(long amount) const override { return amount > 1000 ? 0 : 1; }
	const char *kind() const override { return "premium"; }
};

template <typename T>
static T clamp_to(T v, T lo, T hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

using Book = std::map<std::string, std::unique_ptr<Account>>;

static Account &find(Book &book, const std::string &name)
{
	auto it = book.find(name);
	if (it == book.end())
		throw BankError("no account " + name, 1);
	return *it->second;
}

static long run_ops(Book &book, const std::vector<std::string> &ops)
{
	long moved = 0;
	for (size_t i = 0; i + 2 < ops.size(); i += 3) {
		Audit a(ops[i]);
		const std::string &who = ops[i + 1];
		long amount = clamp_to<long>(std::atol(ops[i + 2].c_str()), -5000, 5000);
		if (amount == 0)
			continue;
		if (ops[i] == "stop")
			break;
		Account &acc = find(book, who);
		if (ops[i] == "dep") {
			acc.balance += amount;
		} else if (ops[i] == "wd") {
			acc.withdraw(amount);
		} else {
			return -1;
		}
		moved += amount;
	}
	return moved;
}

int main(int argc, char **argv)
{
	Book book;
	book["ann"] = std::make_unique<Account>("ann");
	book["bob"] = std::make_unique<Premium>("bob");
	book["cy"] = std::make_unique<Account>("cy");
	std::vector<std::string> ops(argv + 1, argv + argc);
	long moved = 0;
	int errors = 0;
	try {
		moved = run_ops(book, ops);
	} catch (const BankError &e) {
		std::printf("error %d: %s\n", e.code, e.what());
		errors += e.code;
	} catch (const std::exception &e) {
		std::printf("other: %s\n", e.what());
		errors += 10;
	}
	std::vector<Account *> accs;
	for (auto &[name, acc] : book)
		accs.push_back(acc.get());
	std::sort(accs.begin(), accs.end(), [](const Account *a, const Account *b) { return a->balance > b->balance; });
	long total = 0;
	std::for_each(accs.begin(), accs.end(), [&total](const Account *a) {
		total += a->balance;
		std::printf("%s %s %ld\n", a->owner.c_str(), a->kind(), a->balance);
	});
	std::printf("moved %ld total %ld errors %d audits %d\n", moved, total, errors, audits_open);
	return errors > 0 ? 1 : 0;
}
