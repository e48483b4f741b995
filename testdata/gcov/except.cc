// Exceptions: throw and catch across frames, destructors run while
// unwinding, rethrow, catch by base class, noexcept functions and a
// function-try-block-free cleanup object.
#include <cstdio>
#include <cstdlib>
#include <cstring>

struct Error {
	int code;
	explicit Error(int c) : code(c) {}
	virtual ~Error() {}
	virtual const char *what() const { return "error"; }
};

struct ParseError : Error {
	int pos;
	ParseError(int c, int p) : Error(c), pos(p) {}
	const char *what() const override { return "parse error"; }
};

static int guards;

struct Guard {
	const char *tag;
	explicit Guard(const char *t) : tag(t) { guards++; }
	~Guard() { guards--; }
};

static int digit(char c, int pos)
{
	if (c < '0' || c > '9')
		throw ParseError(1, pos);
	return c - '0';
}

static int parse(const char *s)
{
	Guard g("parse");
	int v = 0;
	for (int i = 0; s[i]; i++) {
		v = v * 10 + digit(s[i], i);
		if (v > 100000)
			throw Error(2);
	}
	return v;
}

static int safe_parse(const char *s) noexcept
{
	try {
		return parse(s);
	} catch (const ParseError &e) {
		return -e.pos - 1;
	} catch (...) {
		return -1000;
	}
}

static int relay(const char *s)
{
	Guard g("relay");
	try {
		return parse(s);
	} catch (const Error &e) {
		if (e.code == 2)
			throw;
		return 0;
	}
}

int main(int argc, char **argv)
{
	int total = 0;
	for (int i = 1; i < argc; i++) {
		total += safe_parse(argv[i]);
		try {
			total += relay(argv[i]);
		} catch (const Error &e) {
			std::printf("%s %d\n", e.what(), e.code);
		}
	}
	std::printf("total %d guards %d\n", total, guards);
	return 0;
}
