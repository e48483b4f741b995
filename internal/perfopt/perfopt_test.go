package perfopt

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseTimeRanges(t *testing.T) {
	const first, last = 1000e9, 1010e9 // 10 s of samples
	for _, c := range []struct {
		in   string
		want TimeRanges
		bad  bool
	}{
		{"", nil, false},
		{"1000.5,1001", TimeRanges{{1000_500_000_000, 1001e9}}, false},
		{",2", TimeRanges{{0, 2e9}}, false},
		{"2,", TimeRanges{{2e9, 0}}, false},
		{"2", nil, true}, // no comma (perf_time__parse_strs)
		{"1.123456789,2", TimeRanges{{1_123_456_789, 2e9}}, false},
		{"1.1234567891,2", nil, true}, // more than 9 decimals (parse_nsec_time)
		{"5,1", nil, true},            // stop before start
		{"x,", nil, true},
		{"1x,2", nil, true},
		{"1,2 3,4", TimeRanges{{1e9, 2e9}, {3e9, 4e9}}, false},
		{"1,2  3,", TimeRanges{{1e9, 2e9}, {3e9, 0}}, false},
		{"1,2,3,4", nil, true}, // ranges are separated by white space
		{"3,4 1,2", nil, true}, // not ascending
		{"1,3 3,4", nil, true}, // overlapping
		{"1, 2 3,4", TimeRanges{{1e9, 2e9}, {3e9, 4e9}}, false},
		{"10%/2", TimeRanges{{1001e9, 1002e9 - 1}}, false},
		{"10%/2,10%/10", TimeRanges{{1001e9, 1002e9 - 1}, {1009e9, 1010e9}}, false},
		{"0%-10%,50%-60%", TimeRanges{{1000e9, 1001e9 - 1}, {1005e9, 1006e9 - 1}}, false},
		{"50%", TimeRanges{{1000e9, 1005e9 - 1}}, false},
		{"100%", TimeRanges{{1000e9, 1010e9}}, false},
		{"50%x", nil, true},   // the '%' must end a lone percentage
		{"10%/11", nil, true}, // past the end
		{"0%/1", nil, true},
		{"10%-5", nil, true},
		{"10%/x", nil, true},
	} {
		got, err := ParseTimeRanges(c.in, first, last)
		if (err != nil) != c.bad || !slices.Equal(got, c.want) {
			t.Errorf("ParseTimeRanges(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
		var e *Exit
		if err != nil && (!errors.As(err, &e) || e.Msg != "Invalid time string" || e.Status != 234) {
			t.Errorf("ParseTimeRanges(%q): %v, want perf's Invalid time string and status 234", c.in, err)
		}
	}
	if _, err := ParseTimeRanges("10%", 0, 0); err == nil || !strings.HasPrefix(err.Error(), "HINT: no first/last sample time") {
		t.Errorf("a percentage without sample times: %v, want perf's HINT", err)
	}
}

func TestTimeRangesSkip(t *testing.T) {
	one := TimeRanges{{10, 20}}
	two := TimeRanges{{10, 20}, {30, 0}}
	for _, c := range []struct {
		r    TimeRanges
		t    uint64
		skip bool
	}{
		{nil, 5, false}, {one, 0, false}, {one, 9, true}, {one, 10, false}, {one, 20, false}, {one, 21, true},
		{TimeRanges{{0, 20}}, 1, false}, {two, 25, true}, {two, 30, false}, {two, 1e9, false}, {two, 9, true},
	} {
		if got := c.r.Skip(c.t); got != c.skip {
			t.Errorf("%v.Skip(%d) = %v", c.r, c.t, got)
		}
	}
}

func TestParseIDs(t *testing.T) {
	m, err := ParseIDs("1,2, 3", "pid")
	if err != nil || len(m) != 3 || !m[1] || !m[2] || !m[3] {
		t.Errorf("1,2, 3: %v %v", m, err)
	}
	// strtol makes an empty element 0 (intlist__parse_list).
	if m, err := ParseIDs("7,", "pid"); err != nil || !m[7] || !m[0] {
		t.Errorf("7,: %v %v", m, err)
	}
	for _, bad := range []string{"1;2", "x", "1 2", "99999999999"} {
		if _, err := ParseIDs(bad, "tid"); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if m, _ := ParseIDs("", "pid"); m != nil {
		t.Error("empty list is not nil")
	}
}

func TestParseCPUs(t *testing.T) {
	l := ParseCPUs("0-2,5")
	if l.Err != nil || len(l.CPUs) != 4 || !l.CPUs[0] || !l.CPUs[2] || !l.CPUs[5] {
		t.Errorf("0-2,5: %+v", l)
	}
	for _, bad := range []string{"2-1", "a", "-1", "0,0", "1-3,2", "08", "0x", "1 "} {
		if l := ParseCPUs(bad); l.Err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// Read as strtoul reads them; after a CPU, what is no number ends
	// the list (checked against perf 6.1 in runner's TestCPUListChecked).
	for s, want := range map[string][]int32{"0x10": {16}, "010": {8}, "1,,2": {1}, "1,a": {1}, "": {}} {
		l := ParseCPUs(s)
		if l.Err != nil || len(l.CPUs) != len(want) {
			t.Errorf("%q: %+v, want %v", s, l, want)
		}
		for _, c := range want {
			if !l.CPUs[c] {
				t.Errorf("%q: no CPU %d", s, c)
			}
		}
	}
	l = ParseCPUs("1,3000-2000000000")
	if c, ok := l.TooLarge(2048); l.Err != nil || !l.Warn || !ok || c != 3000 || len(l.CPUs) != 1 {
		t.Errorf("1,3000-2000000000: %v %v %d %v", l.Err, l.Warn, c, ok)
	}
	if c, ok := l.TooLarge(2); !ok || c != 3000 {
		t.Errorf("1,3000-...: TooLarge(2) %d %v", c, ok)
	}
	if c, ok := ParseCPUs("0-5").TooLarge(2); !ok || c != 2 {
		t.Errorf("0-5: TooLarge(2) %d %v", c, ok)
	}
}
