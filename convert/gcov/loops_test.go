package gcov

import "testing"

// TestInLoopBodyShortSource: a line table naming lines past the end of
// the source (a missing file, or one edited since the build) answers
// false, without reading past the source's lines.
func TestInLoopBodyShortSource(t *testing.T) {
	p := &Program{
		lines: []lineKey{{file: 0, line: 1}, {file: 0, line: 2}, {file: 0, line: 9}, {file: 1, line: 1}, {file: 1, line: 3}},
		src: map[int32][]string{
			0: {"for (i = 0; i < n; i++) {", "\tsum += i;", "\tn--;"}, // cut short
			1: nil,
		},
	}
	for _, c := range []struct {
		loop, body int32
		want       bool
	}{
		{0, 1, true},
		{0, 2, false}, // line 9 of a 3-line file
		{3, 4, false}, // no source
	} {
		if got := p.inLoopBody(c.loop, c.body); got != c.want {
			t.Errorf("inLoopBody(%d, %d) = %v, want %v", c.loop, c.body, got, c.want)
		}
	}
}
