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
