package symbol

import (
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSymtabCache: tables read back from the cache answer every lookup
// around every symbol as the tables built from the ELF files do, names
// included, with names demangled or not; a cache file that does not
// check out is ignored.
func TestSymtabCache(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/machine/bin/*")
	// Tens of thousands of C++ aliases (ties) and overlapping symbols
	// (zones).
	for _, f := range []string{"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6"} {
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Skip("no ELF files found")
	}
	old := symCacheMin
	defer func() { symCacheMin = old }()
	symCacheMin = 0
	dir := t.TempDir()
	cached, zoned := 0, 0
	for _, path := range files {
		for _, noDemangle := range []bool{false, true} {
			o := &Options{BuildIDDir: "-", NoDemangle: noDemangle}
			want, _ := LoadDSOInfo(o, path, nil)
			o.CacheDir = dir
			// Built twice (the first leaves a mark, the second writes
			// the cache), then read back.
			LoadDSOInfo(o, path, nil)
			first, _ := LoadDSOInfo(o, path, nil)
			compareTables(t, path+" (built twice)", first, want)
			got, _ := LoadDSOInfo(o, path, nil)
			compareTables(t, path+" (from the cache)", got, want)
			if got.src != nil {
				if _, ok := got.src.src.(*elfSource); ok && got != first {
					cached++
				}
			}
			if got.exact != nil {
				zoned++
			}
		}
	}
	var ents []string
	all, _ := filepath.Glob(filepath.Join(dir, "symtab-*"))
	for _, e := range all {
		if !strings.HasSuffix(e, ".seen") {
			ents = append(ents, e)
		}
	}
	if len(ents) == 0 || cached == 0 {
		t.Fatalf("%d cache files, %d tables read back", len(ents), cached)
	}
	t.Logf("%d files, %d cache files, %d tables with overlapping symbols", len(files), len(ents), zoned)
	// A bad file: ignored (the kinds of damage internal/cachefile
	// refuses, seen through the cache).
	good, err := os.ReadFile(ents[0])
	if err != nil {
		t.Fatal(err)
	}
	n := len(symCacheFormat.Magic) + 4
	key := good[n+4 : n+4+int(binary.LittleEndian.Uint32(good[n:]))]
	o := &Options{CacheDir: dir}
	if o.cachedTable(key) == nil {
		t.Fatal("a good cache file does not decode")
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 1
	older := append([]byte(nil), good...)
	older[len(symCacheFormat.Magic)] = 1
	for _, bad := range [][]byte{nil, good[:len(good)-1], append(append([]byte(nil), good...), 0), flipped, older} {
		if err := os.WriteFile(ents[0], bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if o.cachedTable(key) != nil {
			t.Errorf("a cache file of %d bytes (good: %d) decodes", len(bad), len(good))
		}
	}
}

// TestSymtabCacheCrafted: a cache file's payload changed at random (its
// frame's checksum made good) decodes to nothing or to a table whose lookups do not panic.
func TestSymtabCacheCrafted(t *testing.T) {
	tab, err := LoadFile("../../testdata/machine/bin/cxx-O2")
	if err != nil {
		t.Fatal(err) // the program is in the repository: LoadFile failed
	}
	src := tab.src.src.(*elfSource)
	good, ok := encodeSymCache(src, tab.segs, tab.exact != nil)
	if !ok {
		t.Fatal("not encoded")
	}
	r := rand.New(rand.NewSource(1))
	decoded := 0
	for i := 0; i < 3000; i++ {
		b := append([]byte(nil), good...)
		for n := 1 + r.Intn(3); n > 0; n-- {
			b[r.Intn(len(b))] ^= byte(1 + r.Intn(255))
		}
		t2 := decodeSymCache(b, (*Options)(nil).demangler())
		if t2 == nil {
			continue
		}
		decoded++
		for _, s := range tab.Symbols() {
			t2.Find(s.Start)
			t2.Find(s.End - 1)
		}
		t2.Len()
	}
	t.Logf("%d of 3000 changed files decoded", decoded)
}
