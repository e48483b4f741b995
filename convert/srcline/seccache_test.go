package srcline

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cacheAnswers opens bin and renders what Addr2line, Addr2lineNames and
// Frames answer for pcs, with the cache directory dir ("" for none); it
// also says which sections came from the cache.
func cacheAnswers(t *testing.T, bin, dir string, pcs []uint64) (string, []string) {
	t.Helper()
	SetCacheDir(dir)
	defer SetCacheDir("")
	f, err := OpenFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var fromCache []string
	for _, s := range []*section{f.info, f.abbrev, f.line, f.str, f.lineStr, f.strOffsets, f.addr, f.ranges, f.rnglists, f.aranges} {
		if s != nil && s.cached != nil {
			fromCache = append(fromCache, s.name)
		}
	}
	var b strings.Builder
	var recs []Record
	for _, pc := range pcs {
		var ok bool
		recs, ok = f.Addr2line(pc, recs[:0])
		render(&b, pc, recs, ok)
	}
	// A second File, so that its bfd state starts afresh.
	g, err := OpenFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, pc := range pcs {
		var ok bool
		recs, ok = g.Addr2lineNames(pc, recs[:0])
		render(&b, pc, recs, ok)
		fmt.Fprintf(&b, "%+v\n", g.Frames(pc, nil))
	}
	return b.String(), fromCache
}

// TestSectionCache: answers from cached inflated sections equal those
// from inflating them, and a cache file that does not check out (a bit
// flipped in the header or in any block, cut short, empty, another
// section's) is ignored and written anew, with the same answers.
func TestSectionCache(t *testing.T) {
	oldMin, oldBlock := secCacheMin, secCacheBlock
	defer func() { secCacheMin, secCacheBlock = oldMin, oldBlock }()
	// Every section cached, in blocks small enough that a section has
	// many, checked as lookups reach them.
	secCacheMin, secCacheBlock = 1, 512
	for _, gz := range []string{"zlib", "zstd", "zlib-gnu"} {
		t.Run(gz, func(t *testing.T) {
			var bin string
			if gz == "zstd" {
				bin = zstdBuild(t)
			} else {
				bin = build(t, "inl.c", "-g", "-O2", "-gz="+gz)
			}
			if st, _ := cacheAnswers(t, bin, "", nil); st != "" {
				t.Fatal("answers without questions")
			}
			_, infl := cacheAnswers(t, bin, "", nil)
			if len(infl) != 0 {
				t.Fatalf("sections %v from a cache when there is none", infl)
			}
			pcs := probeAddrs(t, bin, 2000)
			want, _ := cacheAnswers(t, bin, "", pcs)
			dir := filepath.Join(t.TempDir(), "cache")
			check := func(what string, wantCached bool) []string {
				t.Helper()
				got, cached := cacheAnswers(t, bin, dir, pcs)
				if got != want {
					t.Fatalf("%s: answers differ from those without a cache", what)
				}
				if wantCached && len(cached) == 0 || !wantCached && len(cached) != 0 {
					t.Fatalf("%s: sections from the cache: %v", what, cached)
				}
				return cached
			}
			check("cold", false)
			files, _ := filepath.Glob(filepath.Join(dir, "section-*"))
			if len(files) == 0 {
				t.Fatal("no cache written")
			}
			cached := check("warm", true)
			t.Logf("%d cache files; from the cache: %v", len(files), cached)
			info := ""
			for _, f := range files {
				if b, _ := os.ReadFile(f); strings.Contains(string(b[:min(len(b), 200)]), "debug_info\x00") {
					info = f
				}
			}
			if info == "" {
				t.Fatal("no cache file of .debug_info")
			}
			good, _ := os.ReadFile(info)
			for _, c := range []struct {
				name string
				mod  func([]byte) []byte
			}{
				{"magic", func(b []byte) []byte { b[0] ^= 1; return b }},
				{"version", func(b []byte) []byte { b[len(secCacheFormat.Magic)] = 1; return b }},
				{"key", func(b []byte) []byte { b[len(secCacheFormat.Magic)+10] ^= 0x40; return b }},
				{"header", func(b []byte) []byte { b[len(secCacheFormat.Magic)+40] ^= 1; return b }},
				{"a middle block", func(b []byte) []byte { b[len(b)-len(good)+len(good)/2] ^= 0x10; return b }},
				{"last byte", func(b []byte) []byte { b[len(b)-1] ^= 0x80; return b }},
				{"cut short", func(b []byte) []byte { return b[:len(b)-1] }},
				{"longer", func(b []byte) []byte { return append(b, 0) }},
				{"empty", func(b []byte) []byte { return nil }},
				{"another section's", func(b []byte) []byte {
					for _, f := range files {
						if f != info {
							o, _ := os.ReadFile(f)
							return o
						}
					}
					return b
				}},
			} {
				bad := c.mod(append([]byte(nil), good...))
				if err := os.WriteFile(info, bad, 0o644); err != nil {
					t.Fatal(err)
				}
				got, _ := cacheAnswers(t, bin, dir, pcs)
				if got != want {
					t.Fatalf("cache file with a bad %s: answers differ", c.name)
				}
				if again, _ := os.ReadFile(info); string(again) != string(good) {
					t.Errorf("cache file with a bad %s: not written anew", c.name)
				}
			}
			check("warm again", true)
		})
	}
}

// zstdBuild builds inl.c with its debug sections compressed with zstd
// (by objcopy: gcc 12 knows only zlib).
func zstdBuild(t *testing.T) string {
	bin := build(t, "inl.c", "-g", "-O2")
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		t.Skip("objcopy not installed")
	}
	if out, err := exec.Command(objcopy, "--compress-debug-sections=zstd", bin).CombinedOutput(); err != nil {
		t.Skipf("objcopy cannot compress with zstd: %v: %s", err, out)
	}
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	s := ef.Section(".debug_info")
	var typ [4]byte
	if s == nil || s.Flags&elf.SHF_COMPRESSED == 0 {
		t.Skip("objcopy left .debug_info uncompressed")
	}
	raw, err := os.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ReadAt(typ[:], int64(s.Offset)); err != nil || ef.ByteOrder.Uint32(typ[:]) != uint32(elf.COMPRESS_ZSTD) {
		t.Skip("objcopy did not compress with zstd")
	}
	return bin
}

// TestSectionCacheSystem: on the system's libc debug file (compressed),
// answers with a warm cache equal those without one.
func TestSectionCacheSystem(t *testing.T) {
	libc := systemDebugFile(t)
	pcs := probeAddrs(t, libc, 200)
	want, _ := cacheAnswers(t, libc, "", pcs)
	dir := t.TempDir()
	cacheAnswers(t, libc, dir, pcs)
	got, cached := cacheAnswers(t, libc, dir, pcs)
	if got != want {
		t.Fatal("answers from the cache differ")
	}
	if len(cached) == 0 {
		t.Fatal("nothing from the cache")
	}
	t.Logf("from the cache: %v", cached)
}

// TestTrimCache: the files used least recently go first, temporary files
// of runs that died are removed, others' files are left.
func TestTrimCache(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i, n := range []string{"section-a", "section-b", "section-c", "section-d.tmp123", "other"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
		at := now.Add(time.Duration(i-10) * time.Hour)
		os.Chtimes(p, at, at)
	}
	trimCache(dir, 150)
	var left []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if got := strings.Join(left, " "); got != "other section-c" {
		t.Errorf("left %q, want %q", got, "other section-c")
	}
}

// TestBuilderRanges: builder.ranges equals debug/dwarf's Ranges on every
// entry with a range list: this test's own Go binary (DWARF 5 range
// lists, when built with them: go test links without), gcc's DWARF 4 and
// 5, and the system's debug files.
func TestBuilderRanges(t *testing.T) {
	bins := []string{"../../testdata/unwind/cppwork", "../../testdata/unwind/cwork-static",
		build(t, "inl.c", "-g", "-O2", "-gdwarf-4"), build(t, "inl.c", "-g", "-O3", "-gdwarf-5")}
	if self, err := os.Executable(); err == nil {
		if ef, err := elf.Open(self); err == nil {
			if ef.Section(".debug_info") != nil {
				bins = append(bins, self)
			}
			ef.Close()
		}
	}
	m, _ := filepath.Glob("/usr/lib/debug/.build-id/*/*.debug")
	bins = append(bins, m[:min(len(m), 3)]...)
	for _, bin := range bins {
		ef, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ef.DWARF()
		ef.Close()
		if err != nil {
			t.Fatalf("%s: %v", bin, err)
		}
		b := newBuilder(d, &Table{})
		r := d.Reader()
		n := 0
		for {
			e, err := r.Next()
			if err != nil || e == nil {
				break
			}
			if e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
				b.cuBase = b.cuBase[:0]
				for _, f := range e.Field {
					switch f.Attr {
					case dwarf.AttrEntrypc, dwarf.AttrLowpc, dwarf.AttrAddrBase:
						b.cuBase = append(b.cuBase, f)
					}
				}
				continue
			}
			if e.AttrField(dwarf.AttrRanges) == nil {
				continue
			}
			n++
			want, werr := d.Ranges(e)
			got, gerr := b.ranges(e)
			if fmt.Sprint(want, werr) != fmt.Sprint(got, gerr) {
				t.Fatalf("%s: entry %#x: ranges %v, %v; debug/dwarf %v, %v", bin, e.Offset, got, gerr, want, werr)
			}
		}
		t.Logf("%s: %d entries with range lists", filepath.Base(bin), n)
	}
}

// TestSectionCacheUnwritable: where no cache file can be made, answers
// are the same and sections are no longer inflated whole for the cache.
func TestSectionCacheUnwritable(t *testing.T) {
	oldMin := secCacheMin
	defer func() { secCacheMin = oldMin }()
	secCacheMin = 1
	bin := build(t, "inl.c", "-g", "-O2", "-gz=zlib")
	pcs := probeAddrs(t, bin, 500)
	want, _ := cacheAnswers(t, bin, "", pcs)
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := cacheAnswers(t, bin, filepath.Join(notDir, "cache"), pcs)
	if got != want {
		t.Fatal("answers differ")
	}
	SetCacheDir(filepath.Join(notDir, "cache"))
	defer SetCacheDir("")
	f, err := OpenFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Addr2line(pcs[0], nil)
	if !secCacheUnwritable.Load() {
		t.Fatal("the cache is not known to be unwritable")
	}
	g, err := OpenFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.info.cacheFile != "" {
		t.Error("a section is to be cached in an unwritable directory")
	}
}
