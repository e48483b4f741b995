// playlist.cc: a music playlist, written for issue 20 in round 15 before
// that round's rules, to measure the C++ -O0 rules on code they were not
// made for: std::set and std::deque, std::optional returned by value,
// operator overloads, a class hierarchy with virtual destructors held in
// a std::vector of unique_ptr, a static member of a class template,
// std::string built with += and substr, exceptions of two classes caught
// by several catch clauses, std::out_of_range from at(), a switch on an
// enum class, std::accumulate and std::count_if with lambdas, copies and
// moves of a class with a string member.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

enum class Genre { Rock, Jazz, Folk, Other };

struct Track {
	std::string title;
	int seconds;
	Genre genre;

	Track(std::string t, int s, Genre g) : title(std::move(t)), seconds(s), genre(g) {}
	Track(const Track &o) = default;
	Track(Track &&o) noexcept = default;
	Track &operator=(const Track &o) = default;

	bool operator<(const Track &o) const {
		if (seconds != o.seconds)
			return seconds < o.seconds;
		return title < o.title;
	}
};

class BadTrack : public std::runtime_error {
public:
	explicit BadTrack(const std::string &why) : std::runtime_error("bad track: " + why) {}
};

template <typename T> class Counter {
public:
	static int made;
	T value;
	explicit Counter(T v) : value(v) { ++made; }
	Counter operator+(const Counter &o) const { return Counter(value + o.value); }
};

template <typename T> int Counter<T>::made = 0;

class Filter {
public:
	virtual ~Filter() = default;
	virtual bool keep(const Track &t) const = 0;
	virtual const char *name() const { return "filter"; }
};

class LongerThan : public Filter {
	int limit;

public:
	explicit LongerThan(int l) : limit(l) {}
	bool keep(const Track &t) const override { return t.seconds > limit; }
	const char *name() const override { return "longer"; }
};

class OfGenre : public Filter {
	Genre g;

public:
	explicit OfGenre(Genre x) : g(x) {}
	bool keep(const Track &t) const override { return t.genre == g; }
};

static Genre genreOf(char c)
{
	switch (c) {
	case 'r':
	case 'R':
		return Genre::Rock;
	case 'j':
		return Genre::Jazz;
	case 'f':
		return Genre::Folk;
	default:
		break;
	}
	return Genre::Other;
}

static const char *genreName(Genre g)
{
	switch (g) {
	case Genre::Rock:
		return "rock";
	case Genre::Jazz:
		return "jazz";
	case Genre::Folk:
		return "folk";
	case Genre::Other:
		return "other";
	}
	return "?";
}

// parse reads "title:seconds:g"; it throws BadTrack on a bad field.
static Track parse(const std::string &spec)
{
	auto a = spec.find(':');
	if (a == std::string::npos)
		throw BadTrack("no seconds in " + spec);
	auto b = spec.find(':', a + 1);
	std::string secs = spec.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
	int s = std::atoi(secs.c_str());
	if (s <= 0)
		throw BadTrack(spec.substr(0, a) + " lasts " + secs);
	Genre g = b == std::string::npos ? Genre::Other : genreOf(spec.at(b + 1));
	return Track(spec.substr(0, a), s, g);
}

static std::optional<Track> longest(const std::vector<Track> &ts)
{
	if (ts.empty())
		return std::nullopt;
	const Track *best = &ts[0];
	for (const auto &t : ts)
		if (best->seconds < t.seconds)
			best = &t;
	return *best;
}

static std::string clock(int secs)
{
	char buf[32];
	std::snprintf(buf, sizeof buf, "%d:%02d", secs / 60, secs % 60);
	return buf;
}

static int shuffleOrder(std::deque<Track> &q, int rounds)
{
	int moved = 0;
	while (rounds-- > 0 && q.size() > 1) {
		Track t = std::move(q.front());
		q.pop_front();
		if (t.seconds % 2)
			q.push_back(std::move(t));
		else
			q.insert(q.begin() + q.size() / 2, t);
		moved++;
	}
	return moved;
}

int main(int argc, char **argv)
{
	std::vector<Track> tracks;
	std::vector<std::unique_ptr<Filter>> filters;
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		if (std::strncmp(argv[i], "--longer=", 9) == 0) {
			filters.push_back(std::make_unique<LongerThan>(std::atoi(argv[i] + 9)));
			continue;
		}
		if (std::strncmp(argv[i], "--genre=", 8) == 0) {
			filters.push_back(std::make_unique<OfGenre>(genreOf(argv[i][8])));
			continue;
		}
		try {
			tracks.push_back(parse(argv[i]));
		} catch (const BadTrack &e) {
			std::printf("%s\n", e.what());
			bad++;
		} catch (const std::out_of_range &e) {
			std::printf("no genre after ':' in %s\n", argv[i]);
			bad++;
		}
	}
	std::set<Track> sorted(tracks.begin(), tracks.end());
	for (const auto &t : sorted)
		std::printf("%-12s %6s %s\n", t.title.c_str(), clock(t.seconds).c_str(), genreName(t.genre));
	for (const auto &f : filters) {
		long n = std::count_if(tracks.begin(), tracks.end(), [&f](const Track &t) { return f->keep(t); });
		std::printf("%s keeps %ld\n", f->name(), n);
	}
	int total = std::accumulate(tracks.begin(), tracks.end(), 0, [](int s, const Track &t) { return s + t.seconds; });
	Counter<int> c(0);
	for (const auto &t : tracks)
		c = c + Counter<int>(t.seconds / 60);
	std::printf("total %s, minutes %d, counters %d, bad %d\n", clock(total).c_str(), c.value, Counter<int>::made, bad);
	if (auto l = longest(tracks))
		std::printf("longest %s\n", l->title.c_str());
	else
		std::printf("empty\n");
	std::deque<Track> q(tracks.begin(), tracks.end());
	int moved = shuffleOrder(q, 5);
	std::printf("moved %d, first %s\n", moved, q.empty() ? "-" : q.front().title.c_str());
	return bad ? 1 : 0;
}
