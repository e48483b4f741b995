package perfopt

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/perfpt/perfpt/internal/cnum"
)

// TimeRange is one interval of perf's --time, in perf time (nanoseconds);
// 0 is an open end (struct perf_time_interval).
type TimeRange struct{ Start, End uint64 }

// TimeRanges is perf's --time of perf script and perf report: the ranges
// of perf_time__parse_for_ranges. nil selects everything.
type TimeRanges []TimeRange

// ErrNoSampleTime is perf's refusal of percentages for a recording whose
// header has no first and last sample times (HEADER_SAMPLE_TIME).
var ErrNoSampleTime = errors.New("HINT: no first/last sample time found in perf data.\n" +
	"Please use latest perf binary to execute 'perf record'\n" +
	"(if '--buildid-all' is enabled, please set '--timestamp-boundary').")

// ParseTimeRanges parses --time as perf script and perf report do
// (perf_time__parse_for_ranges): either ranges of seconds, "START,STOP",
// several of them separated by spaces ("1.5,2 3,3.5"), ascending and not
// overlapping, each end possibly empty (open); or percentages of the time
// between the recording's first and last samples (first and last, from its
// header): "10%/2" (the second tenth), "0%-10%" (a range), "50%" (the first
// half), several separated by commas. A string without a comma that is not
// a percentage is invalid, unlike perf_time__parse_str's single value. The
// errors are perf's, as an *Exit with its status.
func ParseTimeRanges(s string, first, last uint64) (TimeRanges, error) {
	if s == "" {
		return nil, nil
	}
	size := 1 + strings.Count(s, ",") // perf_time__range_alloc
	var r TimeRanges
	var err error
	if strings.Contains(s, "%") {
		if first == 0 && last == 0 {
			return nil, &Exit{Msg: ErrNoSampleTime.Error(), Status: 234}
		}
		r, err = parsePercentRanges(s, size, first, last)
	} else {
		r, err = parseRanges(s)
	}
	if err != nil {
		return nil, &Exit{Msg: ErrInvalidTime.Error(), Status: 234}
	}
	return r, nil
}

// Skip mirrors perf_time__ranges_skip_sample: whether a sample at t is
// outside every range (a sample without time is kept).
func (r TimeRanges) Skip(t uint64) bool {
	if len(r) == 0 || t == 0 {
		return false
	}
	if len(r) == 1 { // perf_time__skip_sample
		return r[0].Start != 0 && t < r[0].Start || r[0].End != 0 && t > r[0].End
	}
	for _, x := range r {
		if t >= x.Start && (t <= x.End || x.End == 0) {
			return false
		}
	}
	return true
}

var errRange = errors.New("invalid range")

// parseRanges mirrors perf_time__parse_strs: one range per comma; each but
// the last ends at the first white space after its comma.
func parseRanges(s string) (TimeRanges, error) {
	num := strings.Count(s, ",")
	if num == 0 {
		return nil, errRange
	}
	r := make(TimeRanges, num)
	p := s
	for i := 0; i < num-1; i++ {
		c := strings.IndexByte(p, ',')
		j := c + 1
		for j < len(p) && isSpace(p[j]) { // skip_spaces
			j++
		}
		for j < len(p) && !isSpace(p[j]) {
			if p[j] == ',' {
				return nil, errRange
			}
			j++
		}
		arg := p[:j]
		if j < len(p) {
			j++ // the white space that ends the piece
		}
		p = p[j:]
		var err error
		if r[i], err = parseRange(arg); err != nil {
			return nil, err
		}
	}
	var err error
	if r[num-1], err = parseRange(p); err != nil {
		return nil, err
	}
	for i := 0; i+1 < num; i++ {
		if r[i].End >= r[i+1].Start {
			return nil, errRange
		}
	}
	return r, nil
}

// parseRange mirrors perf_time__parse_str on one "START,STOP".
func parseRange(s string) (TimeRange, error) {
	if s == "" {
		return TimeRange{}, nil
	}
	a, b, _ := strings.Cut(s, ",")
	var x TimeRange
	var err error
	if x.Start, err = parseNsec(a); err != nil {
		return TimeRange{}, err
	}
	if x.End, err = parseNsec(b); err != nil {
		return TimeRange{}, err
	}
	if x.End != 0 && x.End < x.Start {
		return TimeRange{}, errRange
	}
	return x, nil
}

// parsePercentRanges mirrors perf_time__percent_parse_str: the pieces
// between commas are "P%/N" when the string has a slash anywhere, else
// "P%-Q%" when it has a dash, else the string is one "P%".
func parsePercentRanges(s string, size int, first, last uint64) (TimeRanges, error) {
	var split func(string) (TimeRange, error)
	switch {
	case strings.Contains(s, "/"):
		split = func(p string) (TimeRange, error) { return percentSlash(p, first, last) }
	case strings.Contains(s, "-"):
		split = func(p string) (TimeRange, error) { return percentDash(p, first, last) }
	default:
		// one_percent_convert: the first '%' ends the string.
		if strings.IndexByte(s, '%') != len(s)-1 {
			return nil, errRange
		}
		x, err := percentSlash(s+"/1", first, last)
		if err != nil {
			return nil, err
		}
		return TimeRanges{x}, nil
	}
	// percent_comma_split
	var r TimeRanges
	for p := s; p != ""; {
		if len(r) >= size {
			return nil, errRange
		}
		piece, rest, more := strings.Cut(p, ",")
		x, err := split(piece)
		if err != nil {
			return nil, err
		}
		r = append(r, x)
		if !more {
			break
		}
		p = rest
	}
	return r, nil
}

// percentSlash mirrors percent_slash_split: "P%/N" is the Nth slice of P
// percent.
func percentSlash(s string, first, last uint64) (TimeRange, error) {
	pc, n, ok := strings.Cut(s, "/")
	if !ok {
		return TimeRange{}, errRange
	}
	pcnt, err := parsePercent(pc)
	if err != nil {
		return TimeRange{}, err
	}
	i, ok := strtolAll(n)
	if !ok || pcnt <= 0 {
		return TimeRange{}, errRange
	}
	return percentTime(pcnt*float64(i-1), pcnt*float64(i), first, last)
}

// percentDash mirrors percent_dash_split: "P%-Q%". An empty piece is the
// whole recording (split_start_end finds no start). A piece without a dash
// crashes perf 6.1 (parse_percent of NULL): it is invalid here.
func percentDash(s string, first, last uint64) (TimeRange, error) {
	if s == "" {
		return TimeRange{}, nil
	}
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return TimeRange{}, errRange
	}
	from, err := parsePercent(a)
	if err != nil {
		return TimeRange{}, err
	}
	to, err := parsePercent(b)
	if err != nil {
		return TimeRange{}, err
	}
	return percentTime(from, to, first, last)
}

// percentTime mirrors set_percent_time.
func percentTime(from, to float64, first, last uint64) (TimeRange, error) {
	if from < 0 || from > 1 || to < 0 || to > 1 {
		return TimeRange{}, errRange
	}
	// In floating point, as perf adds the u64 start and round()'s double.
	total := float64(last - first)
	x := TimeRange{uint64(float64(first) + math.Round(from*total)), uint64(float64(first) + math.Round(to*total))}
	if x.End > x.Start && x.End != last {
		x.End--
	}
	return x, nil
}

// parsePercent mirrors parse_percent: the number before the first '%'
// (what follows it is ignored), as a fraction.
func parsePercent(s string) (float64, error) {
	num, _, ok := strings.Cut(s, "%")
	if !ok {
		return 0, errRange
	}
	d, ok := strtodAll(num)
	if !ok {
		return 0, errRange
	}
	return d / 100, nil
}

// strtodAll is C's strtod when it must read all of s: leading white space
// skipped, "" is 0 (but white space alone is not a number), hexadecimal
// without an exponent allowed.
func strtodAll(s string) (float64, bool) {
	if s == "" {
		return 0, true
	}
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	t := strings.ToLower(strings.TrimLeft(s, "+-"))
	if strings.HasPrefix(t, "0x") && !strings.Contains(t, "p") {
		s += "p0"
	}
	d, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return d, true
}

// strtolAll is C's strtol in base 10 when it must read all of s: leading
// white space skipped, "" is 0 (but white space alone is not a number),
// out-of-range values clamped.
func strtolAll(s string) (int64, bool) {
	v, n, _ := cnum.Strtol(s, 10)
	return v, cnum.Whole(s, n)
}

func isSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }
