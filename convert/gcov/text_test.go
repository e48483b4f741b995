package gcov

import (
	"strings"
	"testing"
)

// TestWriteTextUnitNames: gcov names the notes and data files of the
// compilation unit in every .gcov text it writes for it, a header's too;
// explicit names win.
func TestWriteTextUnitNames(t *testing.T) {
	r := &Report{Runs: 1}
	for _, c := range []struct {
		f          *File
		opt        TextOptions
		graph, dat string
	}{
		{&File{Name: "/src/ring.h", unit: "/src/main.cc"}, TextOptions{}, "/src/main.gcno", "/src/main.gcda"},
		{&File{Name: "/src/main.cc", unit: "/src/main.cc"}, TextOptions{}, "/src/main.gcno", "/src/main.gcda"},
		{&File{Name: "/src/lone.c"}, TextOptions{}, "/src/lone.gcno", "/src/lone.gcda"},
		{&File{Name: "/src/ring.h", unit: "/src/main.cc"}, TextOptions{Graph: "a.gcno", Data: "a.gcda"}, "a.gcno", "a.gcda"},
	} {
		var b strings.Builder
		if err := r.WriteText(&b, c.f, []string{"int x;"}, c.opt); err != nil {
			t.Fatal(err)
		}
		want := "        -:    0:Graph:" + c.graph + "\n        -:    0:Data:" + c.dat + "\n"
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s (unit %q): preamble\n%s\nwant\n%s", c.f.Name, c.f.unit, b.String(), want)
		}
	}
}
