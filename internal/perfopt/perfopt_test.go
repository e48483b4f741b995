package perfopt

import (
	"errors"
	"testing"
)

func TestParseTime(t *testing.T) {
	for _, c := range []struct {
		in       string
		from, to uint64
		bad      bool
	}{
		{"", 0, 0, false},
		{"1000.5,1001", 1000_500_000_000, 1001_000_000_000, false},
		{",2", 0, 2e9, false},
		{"2,", 2e9, 0, false},
		{"2", 2e9, 0, false}, // no comma: a start (split_start_end)
		{"1.123456789,2", 1_123_456_789, 2e9, false},
		{"1.1234567891,2", 0, 0, true}, // more than 9 decimals (parse_nsec_time)
		{"5,1", 0, 0, true},            // stop before start
		{"x,", 0, 0, true},
		{"1x,2", 0, 0, true},
		{"10%/2", 0, 0, true}, // percentages: refused
		{"1,2 3,4", 0, 0, true},
	} {
		from, to, err := ParseTime(c.in)
		if (err != nil) != c.bad || from != c.from || to != c.to {
			t.Errorf("ParseTime(%q) = %d, %d, %v", c.in, from, to, err)
		}
	}
	if _, _, err := ParseTime("5,1"); !errors.Is(err, ErrInvalidTime) {
		t.Errorf("5,1: %v, want perf's Invalid time string", err)
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
	m, err := ParseCPUs("0-2,5")
	if err != nil || len(m) != 4 || !m[0] || !m[2] || !m[5] {
		t.Errorf("0-2,5: %v %v", m, err)
	}
	for _, bad := range []string{"2-1", "a", "-1", "5000", "1,,2"} {
		if _, err := ParseCPUs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
