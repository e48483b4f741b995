// Package buildidcache lays out binaries as a perf build-id cache for
// tests, so that perf and perfpt find them by build id whatever is at the
// paths a recording names.
package buildidcache

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/convert/symbol"
)

// Home copies the files dir/prog for each prog into a fresh $HOME/.debug
// cache (.build-id/xx/rest, the old flat layout perf still reads) and
// points $HOME there for the rest of the test, with $PERF_BUILDID_DIR
// cleared.
func Home(tb testing.TB, dir string, progs ...string) {
	tb.Helper()
	home := tb.TempDir()
	for _, p := range progs {
		src := filepath.Join(dir, p)
		h := hex.EncodeToString(symbol.ReadBuildID(src))
		if len(h) < 3 {
			tb.Fatalf("%s: no build id", src)
		}
		b, err := os.ReadFile(src)
		if err != nil {
			tb.Fatal(err)
		}
		d := filepath.Join(home, ".debug", ".build-id", h[:2])
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, h[2:]), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	tb.Setenv("HOME", home)
	tb.Setenv("PERF_BUILDID_DIR", "")
}
