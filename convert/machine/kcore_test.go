package machine

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadProcModules: /proc/modules lines as modules__parse reads them:
// the name in brackets and the address after the last 'x' (taint flags
// after it, a hidden address of zeros), lines without an address or whose
// size is not followed by a blank passed over.
func TestReadProcModules(t *testing.T) {
	path := filepath.Join(t.TempDir(), "modules")
	text := "xfs 1904640 1 - Live 0xffffffffc0600000 (E)\n" +
		"ptmod 4096 0 - Live 0xffffffffc0a00000\n" +
		"hidden 8192 0 - Live 0x0000000000000000\n" +
		"noaddr 8192 0 - Live\n" +
		"badsize 81x92- Live 0xffffffffc0b00000\n" +
		"\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readProcModules(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{"[xfs]": 0xffffffffc0600000, "[ptmod]": 0xffffffffc0a00000, "[hidden]": 0}
	if len(got) != len(want) {
		t.Errorf("modules %v, want %v", got, want)
	}
	for n, a := range want {
		if g, ok := got[n]; !ok || g != a {
			t.Errorf("%s at %#x (%v), want %#x", n, g, ok, a)
		}
	}
	if _, err := readProcModules(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing modules file read without error")
	}
}
