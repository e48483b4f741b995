// Package perfopt parses the option values that perf's commands share
// (--time, --pid/--tid, -C), with perf's rules, so that every perfpt
// command that takes them accepts and refuses the same strings.
package perfopt

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/perfpt/perfpt/internal/cnum"
)

// ErrInvalidTime is perf's "Invalid time string".
var ErrInvalidTime = errors.New("Invalid time string")

// parseNsec mirrors perf's parse_nsec_time: "SEC[.NSEC]", NSEC at most 9
// digits, padded with zeros; "" is 0.
func parseNsec(v string) (uint64, error) {
	if v == "" {
		return 0, nil
	}
	sec, frac, hasFrac := strings.Cut(v, ".")
	bad := fmt.Errorf("--time: %q: %w", v, ErrInvalidTime)
	var s uint64
	if sec != "" {
		var err error
		if s, err = strconv.ParseUint(strings.TrimLeft(sec, " "), 10, 64); err != nil {
			return 0, bad
		}
	}
	var ns uint64
	if hasFrac {
		if len(frac) > 9 {
			return 0, bad
		}
		if frac != "" {
			n, err := strconv.ParseUint(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
			if err != nil {
				return 0, bad
			}
			ns = n
		}
	}
	return s*1e9 + ns, nil
}

// ParseIDs parses a --pid or --tid list as perf's intlist__parse_list: ids
// separated by commas; an empty element is 0, as strtol makes it ("1," is
// 1 and 0). "" gives nil: no filter. name ("pid", "tid") goes into perf's
// error message.
func ParseIDs(s, name string) (map[int32]bool, error) {
	if s == "" {
		return nil, nil
	}
	m := map[int32]bool{}
	for _, f := range strings.Split(s, ",") {
		var v int64
		if f != "" {
			var err error
			if v, err = strconv.ParseInt(strings.TrimLeft(f, " "), 10, 32); err != nil {
				return nil, fmt.Errorf("problems parsing %s list %q", name, s)
			}
		}
		m[int32(v)] = true
	}
	return m, nil
}

// CPUList is a -C list as perf_cpu_map__new (tools/lib/perf/cpumap.c)
// reads it. perf checks it only after the recording is open
// (perf_session__cpu_bitmap), so the error is kept for then.
type CPUList struct {
	// CPUs are the CPUs listed below MaxCPUs (perf refuses the others
	// once it knows the recording's CPUs): empty, not nil, for "", which
	// perf reads as the dummy map of CPU -1, which no sample has.
	CPUs   map[int32]bool
	ranges [][2]uint64
	// Warn: a CPU at or above MaxCPUs was listed before any error;
	// perf warns once (WARN_ONCE), WarnText.
	Warn bool
	Err  error // ErrInvalidCPUList
}

// MaxCPUs is perf 6.1's MAX_NR_CPUS (tools/perf/perf.h and
// tools/lib/perf's internal/cpumap.h: 2048).
const MaxCPUs = 2048

// ErrInvalidCPUList is perf_session__cpu_bitmap's message for a list
// perf_cpu_map__new refuses.
var ErrInvalidCPUList = errors.New("Invalid cpu_list")

// CPUWarning is perf_cpu_map__new's warning about a CPU at or above
// MaxCPUs.
var CPUWarning = fmt.Sprintf("Perf can support %d CPUs. Consider raising MAX_NR_CPUS", MaxCPUs)

// ParseCPUs reads a -C list as perf_cpu_map__new: numbers as strtoul with
// base 0 reads them (decimal, 0x hexadecimal, 0 octal) and ascending
// ranges, separated by commas, no CPU twice; reading stops, without an
// error, at an element that does not start with a digit once a CPU was
// read ("1,,2" is CPU 1); a list that does not start with one is refused,
// but for "", the dummy map.
func ParseCPUs(s string) CPUList {
	l := CPUList{CPUs: map[int32]bool{}}
	if s != "" && !isDigit(s[0]) {
		l.Err = ErrInvalidCPUList
		return l
	}
	for s != "" && isDigit(s[0]) {
		start, rest := strtoul(s)
		if start >= math.MaxInt32 || (rest != "" && rest[0] != ',' && rest[0] != '-') {
			l.Err = ErrInvalidCPUList
			return l
		}
		end := start
		if rest != "" && rest[0] == '-' {
			end, rest = strtoul(rest[1:])
			if end >= math.MaxInt32 || (rest != "" && rest[0] != ',') || end < start {
				l.Err = ErrInvalidCPUList
				return l
			}
		}
		if end >= MaxCPUs {
			l.Warn = true
		}
		for _, r := range l.ranges {
			if start <= r[1] && r[0] <= end {
				l.Err = ErrInvalidCPUList // a CPU twice
				return l
			}
		}
		l.ranges = append(l.ranges, [2]uint64{start, end})
		for c := start; c <= end && c < MaxCPUs; c++ {
			l.CPUs[int32(c)] = true
		}
		if rest != "" {
			rest = rest[1:]
		}
		s = rest
	}
	return l
}

// TooLarge is the smallest CPU listed at or above nr, the first that
// perf_session__cpu_bitmap refuses ("Requested CPU %d too large").
func (l CPUList) TooLarge(nr int) (uint64, bool) {
	var min uint64
	found := false
	for _, r := range l.ranges {
		c := r[0]
		if c < uint64(nr) {
			if r[1] < uint64(nr) {
				continue
			}
			c = uint64(nr)
		}
		if !found || c < min {
			min, found = c, true
		}
	}
	return min, found
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// strtoul is C's strtoul(s, &rest, 0) as perf_cpu_map__new calls it
// (leading space and a sign taken, overflow saturating, which the
// callers' INT_MAX check refuses).
func strtoul(s string) (v uint64, rest string) {
	v, n, _ := cnum.Strtoul(s, 0)
	return v, s[n:]
}
