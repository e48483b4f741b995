package symbol

import (
	"encoding/binary"
	"hash/crc32"
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
	// A bad file: ignored.
	good, err := os.ReadFile(ents[0])
	if err != nil {
		t.Fatal(err)
	}
	key := good[len(symCacheMagic)+8 : len(symCacheMagic)+8+int(binary.LittleEndian.Uint32(good[len(symCacheMagic)+4:]))]
	if decodeSymCache(good, key, nil) == nil {
		t.Fatal("a good cache file does not decode")
	}
	for _, bad := range [][]byte{nil, good[:len(good)-1], append(append([]byte(nil), good...), 0)} {
		if decodeSymCache(bad, key, nil) != nil {
			t.Errorf("a cache file of %d bytes (good: %d) decodes", len(bad), len(good))
		}
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 1
	if decodeSymCache(flipped, key, nil) != nil {
		t.Error("a cache file with a bit flipped decodes")
	}
}

// TestSymtabCacheCrafted: a cache file changed at random but with a good
// checksum decodes to nothing or to a table whose lookups do not panic.
func TestSymtabCacheCrafted(t *testing.T) {
	tab, err := LoadFile("../../testdata/machine/bin/cxx-O2")
	if err != nil {
		t.Skip(err)
	}
	src := tab.src.src.(*elfSource)
	good, ok := encodeSymCache([]byte("k"), src, tab.segs, tab.exact != nil)
	if !ok {
		t.Fatal("not encoded")
	}
	r := rand.New(rand.NewSource(1))
	decoded := 0
	for i := 0; i < 3000; i++ {
		b := append([]byte(nil), good...)
		for n := 1 + r.Intn(3); n > 0; n-- {
			b[len(symCacheMagic)+4+r.Intn(len(b)-len(symCacheMagic)-8)] ^= byte(1 + r.Intn(255))
		}
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
		t2 := decodeSymCache(b, []byte("k"), (*Options)(nil).demangler())
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
