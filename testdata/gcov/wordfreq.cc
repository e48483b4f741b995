// Word frequencies, written in round 13 to measure the C++ rules on code
// they were not made for: std::string splitting and case folding, a
// std::map of counts, a class template Ring with bounds checked by
// exceptions, std::stoi that throws on bad numbers (caught, translated
// and rethrown), a visitor of virtual reports, lambdas capturing by value
// and by reference, a switch on characters in a function template, and a
// scope guard left by a loop's break and continue.
#include <cctype>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

template <typename T, int N>
class Ring {
	T items[N];
	int head = 0, count = 0;

public:
	void push(const T &v)
	{
		items[(head + count) % N] = v;
		if (count < N)
			count++;
		else
			head = (head + 1) % N;
	}
	const T &at(int i) const
	{
		if (i < 0 || i >= count)
			throw std::out_of_range("ring index " + std::to_string(i));
		return items[(head + i) % N];
	}
	int size() const { return count; }
};

template <typename C>
static int classify(C c)
{
	switch (c) {
	case 'a': case 'e': case 'i': case 'o': case 'u':
		return 1;
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return 2;
	case '-':
		return 3;
	default:
		return std::isalpha((unsigned char)c) ? 0 : 4;
	}
}

struct Report {
	virtual ~Report() {}
	virtual void line(const std::string &w, int n) = 0;
	virtual int done() { return 0; }
};

struct Plain : Report {
	int lines = 0;
	void line(const std::string &w, int n) override
	{
		std::printf("%s %d\n", w.c_str(), n);
		lines++;
	}
	int done() override { return lines; }
};

struct Stars : Report {
	int width;
	explicit Stars(int w) : width(w) {}
	void line(const std::string &w, int n) override
	{
		std::string bar(n > width ? width : n, '*');
		std::printf("%-8s %s\n", w.c_str(), bar.c_str());
	}
};

struct Counter {
	int *live;
	explicit Counter(int *l) : live(l) { ++*live; }
	~Counter() { --*live; }
};

static std::vector<std::string> split(const std::string &text)
{
	std::vector<std::string> out;
	std::string cur;
	for (char c : text) {
		if (c == ' ' || c == ',') {
			if (!cur.empty())
				out.push_back(cur);
			cur.clear();
			continue;
		}
		cur += (char)std::tolower((unsigned char)c);
	}
	if (!cur.empty())
		out.push_back(cur);
	return out;
}

static int number(const std::string &w)
{
	try {
		return std::stoi(w);
	} catch (const std::invalid_argument &) {
		throw std::runtime_error("not a number: " + w);
	}
}

int main(int argc, char **argv)
{
	std::map<std::string, int> freq;
	Ring<std::string, 3> recent;
	int live = 0, vowels = 0, sum = 0;
	for (int a = 1; a < argc; a++) {
		for (const std::string &w : split(argv[a])) {
			Counter c(&live);
			if (w == "end")
				break;
			int k = classify(w[0]);
			if (k == 3)
				continue;
			if (k == 1)
				vowels++;
			if (k == 2) {
				try {
					sum += number(w);
				} catch (const std::exception &e) {
					std::printf("skip: %s\n", e.what());
				}
				continue;
			}
			freq[w]++;
			recent.push(w);
		}
	}
	std::vector<std::unique_ptr<Report>> reports;
	reports.emplace_back(new Plain);
	reports.emplace_back(new Stars(5));
	int shown = 0;
	auto show = [&shown, &freq](Report &r, int min) {
		for (const auto &[w, n] : freq) {
			if (n < min)
				continue;
			r.line(w, n);
			shown++;
		}
		return r.done();
	};
	for (auto &r : reports)
		show(*r, reports.size() > 1 ? 1 : 2);
	try {
		for (int i = 0; i < 4; i++)
			std::printf("recent %d %s\n", i, recent.at(i).c_str());
	} catch (const std::out_of_range &e) {
		std::printf("stop: %s\n", e.what());
	}
	std::printf("vowels %d sum %d shown %d live %d\n", vowels, sum, shown, live);
	return 0;
}
