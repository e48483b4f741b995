package gcov

import "testing"

// TestOneTest checks which if lines count as one test for the rule that
// a jump from an if to its own row repeated at the target is no new pass
// (report.go's visit).
func TestOneTest(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"\tif (v < 2)", true},
		{"\t} else if (is_sep(c)) {", true},
		{"\tif (strcmp(w, op_name(op)) == 0)", true},
		{"\tif (a && b)", false},
		{"\tif (a || b)", false},
		{"\tif (a ? b : c)", false},
		{"\tif (x < y &&", false},
		{"\tif (f(x,", false},
		{"\twhile (v)", false},
		{"\tifdef(x);", false},
	} {
		if got := oneTest(c.text); got != c.want {
			t.Errorf("oneTest(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
