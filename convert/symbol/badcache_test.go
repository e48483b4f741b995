package symbol

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// TestBadBuildIDCacheEntry: a build-id cache entry that is not an ELF file
// (or a truncated one) is passed over, as perf's symsrc__init fails on it
// and dso__load tries the next place: the symbols come from the file at
// the DSO's path.
func TestBadBuildIDCacheEntry(t *testing.T) {
	const bin = "../../testdata/machine/bin/c-dyn"
	id := ReadBuildID(bin)
	if id == nil {
		t.Fatalf("%s has no build id", bin)
	}
	want, _ := LoadDSO(&Options{BuildIDDir: "-"}, mustAbs(t, bin), id)
	if want.Len() == 0 {
		t.Fatal("no symbols from the file itself")
	}
	for name, content := range map[string][]byte{
		"text":      []byte("not an ELF file\n"),
		"truncated": readPrefix(t, bin, 100),
		"empty":     nil,
	} {
		dir := t.TempDir()
		link := filepath.Join(dir, ".build-id", hex.EncodeToString(id)[:2], hex.EncodeToString(id)[2:])
		if err := os.MkdirAll(link, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"elf", "debug"} {
			if err := os.WriteFile(filepath.Join(link, f), content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, info := LoadDSOInfo(&Options{BuildIDDir: dir}, mustAbs(t, bin), id)
		if got.Len() != want.Len() || info.Syms != mustAbs(t, bin) {
			t.Errorf("%s cache entry: %d symbols from %q, want %d from the binary", name, got.Len(), info.Syms, want.Len())
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func readPrefix(t *testing.T, p string, n int) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b[:min(n, len(b))]
}
