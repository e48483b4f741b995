// Package perfopt parses the option values that perf's commands share
// (--time, --pid/--tid, -C), with perf's rules, so that every perfpt
// command that takes them accepts and refuses the same strings.
package perfopt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
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

// ParseCPUs parses a -C list ("0-2,5") as perf_cpu_map__new: numbers and
// ascending ranges separated by commas.
func ParseCPUs(s string) (map[int32]bool, error) {
	if s == "" {
		return nil, nil
	}
	m := map[int32]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.ParseUint(lo, 10, 31)
		b, err2 := strconv.ParseUint(hi, 10, 31)
		if err1 != nil || err2 != nil || b < a || b >= maxCPUs {
			return nil, fmt.Errorf("Invalid cpu_list %q", s)
		}
		for v := a; v <= b; v++ {
			m[int32(v)] = true
		}
	}
	return m, nil
}

// maxCPUs is perf's MAX_NR_CPUS.
const maxCPUs = 4096
