// shelf.cc: a shelf of items priced by strategy objects (written for the
// -O2 comparison of issue 20): a class template with inline members, a
// virtual call that devirtualises or not, a static helper, loops over a
// std::vector, a switch on the command, an exception for bad input.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

struct Pricing {
	virtual ~Pricing() {}
	virtual long price(long base, int qty) const = 0;
};

struct Flat : Pricing {
	long price(long base, int qty) const override { return base * qty; }
};

struct Bulk : Pricing {
	int threshold;
	explicit Bulk(int t) : threshold(t) {}
	long price(long base, int qty) const override
	{
		long p = base * qty;
		if (qty >= threshold)
			p -= p / 10;
		return p;
	}
};

template <typename T>
class Shelf {
	std::vector<T> items;

public:
	void add(const T &x) { items.push_back(x); }
	size_t size() const { return items.size(); }
	template <typename F>
	long total(F f) const
	{
		long t = 0;
		for (const T &x : items)
			t += f(x);
		return t;
	}
	bool remove_first(const std::string &name)
	{
		for (size_t i = 0; i < items.size(); i++) {
			if (items[i].name == name) {
				items.erase(items.begin() + i);
				return true;
			}
		}
		return false;
	}
};

struct Item {
	std::string name;
	long base;
	int qty;
};

static Item parse(const std::string &s)
{
	size_t a = s.find(':'), b = s.rfind(':');
	if (a == std::string::npos || a == b)
		throw std::invalid_argument("no price: " + s);
	Item it;
	it.name = s.substr(0, a);
	it.base = std::atol(s.c_str() + a + 1);
	it.qty = std::atoi(s.c_str() + b + 1);
	if (it.qty <= 0)
		throw std::invalid_argument("no quantity: " + s);
	return it;
}

int main(int argc, char **argv)
{
	Shelf<Item> shelf;
	Flat flat;
	Bulk bulk(5);
	const Pricing *pricing = &flat;
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		switch (a[0]) {
		case '-':
			if (!shelf.remove_first(a.substr(1)))
				bad++;
			break;
		case '=':
			pricing = a == "=bulk" ? static_cast<const Pricing *>(&bulk) : &flat;
			break;
		case '?':
			std::printf("%zu items, %ld\n", shelf.size(),
				    shelf.total([&](const Item &x) { return pricing->price(x.base, x.qty); }));
			break;
		default:
			try {
				shelf.add(parse(a));
			} catch (const std::invalid_argument &e) {
				std::printf("error: %s\n", e.what());
				bad++;
			}
		}
	}
	std::printf("final %ld, %d bad\n",
		    shelf.total([&](const Item &x) { return pricing->price(x.base, x.qty); }), bad);
	return bad != 0;
}
