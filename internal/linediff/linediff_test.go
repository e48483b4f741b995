package linediff

import "testing"

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		n     int
		first int
		x, y  string
	}{
		{"a\nb\n", "a\nb\n", 0, -1, "", ""},
		{"a\nb\n", "a\nc\n", 1, 1, "b", "c"},
		{"a\n", "a\nb\nc", 2, 1, "", "b"},
		{"a\nb\nc", "a", 2, 1, "b", "(none)"},
		{"a\n", "a", 0, -1, "", ""},
		{"x", "y", 1, 0, "x", "y"},
	} {
		r := Compare(tc.a, tc.b)
		if r.N != tc.n || r.First != tc.first || r.A != tc.x || r.B != tc.y {
			t.Errorf("Compare(%q, %q) = %+v, want n %d first %d %q %q", tc.a, tc.b, r, tc.n, tc.first, tc.x, tc.y)
		}
	}
	if s := Compare("a\nb", "a\nc").String("perfpt", "perf"); s != "line 2:\n  perfpt: b\n  perf:   c" {
		t.Errorf("String: %q", s)
	}
}
