package conformance

import "testing"

func TestFirstDiff(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		line      int
	}{
		{"a  b\nc\n", "a b \nc", 0},
		{"a\nc\n", "a\nd\n", 2},
		{"a\n", "a\n\n", 2},
		{"a\n\n", "a\n", 2},
		{"", "x\n", 1},
		{"ab\n", "a b\n", 1},
	} {
		if line, _, _ := firstDiff(Lines(tc.want), Lines(tc.got)); line != tc.line {
			t.Errorf("firstDiff(%q, %q) = line %d, want %d", tc.want, tc.got, line, tc.line)
		}
	}
}
