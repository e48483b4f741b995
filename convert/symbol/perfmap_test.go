package symbol

import (
	"slices"
	"strings"
	"testing"
)

// TestParsePerfMap checks dso__load_perf_map's reading: hex with and
// without 0x, names with spaces, short lines skipped, the last character
// of an unterminated last line dropped, zero sizes and overlaps kept.
func TestParsePerfMap(t *testing.T) {
	in := "7f0000001000 40 LazyCompile:*fib /tmp/x.js:3\n" +
		"0x7f0000002000 0x10 Ljava/lang/String;hashCode\n" +
		"7f0000003000 0 zero\n" +
		"7f0000004000 100 outer\n" +
		"7f0000004010 10 inner\n" +
		"bad\n" +
		"7f0000005000 8 x\n" + // too short: the name must be 2 or more characters
		"7f0000006000 8 lastline"
	tab, err := ParsePerfMap(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		addr uint64
		want string
	}{
		{0x7f0000001000, "LazyCompile:*fib /tmp/x.js:3"}, {0x7f000000103f, "LazyCompile:*fib /tmp/x.js:3"},
		{0x7f0000001040, ""}, {0x7f0000002008, "Ljava/lang/String;hashCode"},
		{0x7f0000003000, "zero"}, {0x7f0000003001, ""},
		{0x7f0000004008, "outer"}, {0x7f0000005000, ""}, {0x7f0000006000, "lastlin"},
	} {
		got := ""
		if s := tab.Find(c.addr); s != nil {
			got = s.Name
		}
		if got != c.want {
			t.Errorf("%#x: %q, want %q", c.addr, got, c.want)
		}
	}
}

// FuzzParsePerfMap: any input parses without a panic, and lookups at the
// symbols' bounds answer with one of the table's symbols or none (perf's
// tree may answer another symbol, or none, where entries overlap or wrap).
func FuzzParsePerfMap(f *testing.F) {
	f.Add("7f0000001000 40 fn\n")
	f.Add("0x10 0x10 a b c\n0 0 x\n")
	f.Add("-1 ffffffffffffffffffff name\n \t+0x  1 z\n")
	f.Fuzz(func(t *testing.T, s string) {
		tab, err := ParsePerfMap(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		syms := tab.Symbols()
		for _, sym := range syms {
			for _, a := range []uint64{sym.Start, sym.End} {
				if got := tab.Find(a); got != nil && !slices.ContainsFunc(syms, func(s Symbol) bool { return &s == got || s == *got }) {
					t.Fatalf("Find(%#x) = %+v, not in the table", a, got)
				}
			}
		}
	})
}
