// An inventory kept in a std::map of std::string to counts, orders in a
// std::vector, range-for with structured bindings, an RAII guard whose
// destructor runs on every way out (returns, exceptions), and
// std::runtime_error thrown on bad input and caught in main.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

static int guards_open;

struct Guard {
	const char *what;
	explicit Guard(const char *w) : what(w) { guards_open++; }
	~Guard()
	{
		guards_open--;
	}
};

struct Order {
	std::string item;
	int qty;
};

static std::vector<Order> parse(int argc, char **argv)
{
	std::vector<Order> out;
	for (int i = 1; i + 1 < argc; i += 2) {
		Guard g("parse");
		int q = std::atoi(argv[i + 1]);
		if (q == 0 && argv[i + 1][0] != '0')
			throw std::runtime_error(std::string("bad quantity for ") + argv[i]);
		out.push_back(Order{argv[i], q});
	}
	return out;
}

static void apply(std::map<std::string, int> &stock, const Order &o)
{
	Guard g("apply");
	auto it = stock.find(o.item);
	if (it == stock.end()) {
		if (o.qty < 0)
			throw std::invalid_argument("removing unknown " + o.item);
		stock[o.item] = o.qty;
		return;
	}
	it->second += o.qty;
	if (it->second < 0) {
		it->second = 0;
		throw std::range_error("stock of " + o.item + " below zero");
	}
}

static int total(const std::map<std::string, int> &stock)
{
	int sum = 0;
	for (const auto &[name, n] : stock) {
		if (name.empty())
			continue;
		sum += n;
	}
	return sum;
}

int main(int argc, char **argv)
{
	std::map<std::string, int> stock;
	std::vector<Order> orders;
	try {
		orders = parse(argc, argv);
	} catch (const std::exception &e) {
		std::printf("parse: %s\n", e.what());
		return 1;
	}
	int errors = 0;
	for (const Order &o : orders) {
		try {
			apply(stock, o);
		} catch (const std::invalid_argument &e) {
			std::printf("invalid: %s\n", e.what());
			errors++;
		} catch (const std::exception &e) {
			std::printf("error: %s\n", e.what());
			errors += 2;
		}
	}
	for (auto &[name, n] : stock)
		std::printf("%s=%d\n", name.c_str(), n);
	std::printf("total %d errors %d guards %d\n", total(stock), errors, guards_open);
	return errors > 3 ? 2 : 0;
}
