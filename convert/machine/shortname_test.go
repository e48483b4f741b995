package machine

import "testing"

// TestShortName: a JIT's perf map is "[JIT] tid N" where perf prints a
// dso's short name (dso__set_basename), as in the srcline of an address
// the map names no symbol for: "[JIT] tid 13870[100647d7e0]".
func TestShortName(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"/tmp/perf-13870.map", "[JIT] tid 13870"},
		{"/tmp/perf-13870.mapx", "[JIT] tid 13870"}, // sscanf stops at the number
		{"/tmp/perf-+7.map", "[JIT] tid 7"},
		{"/tmp/perf-.map", "perf-.map"},
		{"/tmp/perf-x.map", "perf-x.map"},
		{"/usr/lib/libc.so.6", "libc.so.6"},
		{"/tmp/x/perf-1.map", "perf-1.map"},
		{"[vdso]", "[vdso]"},
	} {
		if got := shortName(c.name); got != c.want {
			t.Errorf("shortName(%q) = %q, want %q", c.name, got, c.want)
		}
		d := &DSO{Name: c.name}
		if got, want := d.srclineFallback(0x100647d7e0), c.want+"[100647d7e0]"; got != want {
			t.Errorf("srclineFallback of %q = %q, want %q", c.name, got, want)
		}
	}
}

// TestA2lFileLine: perf splits addr2line's "FILE:LINE" at the first colon
// and reads the line with strtoul: node's JIT code in "node:path" line 149
// prints "node:0".
func TestA2lFileLine(t *testing.T) {
	for _, c := range []struct {
		file     string
		line     int
		wantFile string
		wantLine int
	}{
		{"main.c", 12, "main.c", 12},
		{"node:path", 149, "node", 0},
		{"a:12b", 5, "a", 12},
		{"a:0x1f", 3, "a", 31},
		{"a:017", 3, "a", 15},
		{"a:", 7, "a", 0}, // "a::7"
		{"a:", 0, "a", 0},
	} {
		f, l := a2lFileLine(c.file, c.line)
		if f != c.wantFile || l != c.wantLine {
			t.Errorf("a2lFileLine(%q, %d) = %q, %d; want %q, %d", c.file, c.line, f, l, c.wantFile, c.wantLine)
		}
	}
}
