package srcline

import (
	"debug/elf"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/benchcpu"
)

// unitAnswers opens bin with the cache directory dir ("" for none) and
// renders what Frames and Func answer for pcs, then writes the cache; it
// also says how many unit tables came from the cache and how many were
// built.
func unitAnswers(t *testing.T, bin, dir string, pcs []uint64) (answers string, cached, built int) {
	t.Helper()
	SetCacheDir(dir)
	defer SetCacheDir("")
	f, err := OpenFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	var frames []Frame
	for _, pc := range pcs {
		frames = f.Frames(pc, frames[:0])
		fn, ok := f.Func(pc)
		fmt.Fprintf(&b, "%#x %+v %v %+v\n", pc, frames, ok, fn)
	}
	if f.uc != nil {
		built = len(f.uc.tables)
		for _, u := range f.read {
			if u.table != nil {
				cached++
			}
		}
		cached -= built
	}
	FlushCaches()
	return b.String(), cached, built
}

// funcAddrs returns up to limit addresses in and around bin's functions,
// shuffled.
func funcAddrs(t *testing.T, bin string, limit int) []uint64 {
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	syms, _ := ef.Symbols()
	var out []uint64
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 && s.Size > 2 {
			out = append(out, s.Value, s.Value+s.Size/2, s.Value+s.Size)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	if step := len(out) / limit; step > 1 {
		var few []uint64
		for i := 0; i < len(out); i += step {
			few = append(few, out[i])
		}
		out = few
	}
	rand.New(rand.NewSource(1)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestUnitCache: Frames and Func answer the same with the unit cache
// cold, warm (every table from the cache, none built) and with a cache
// file that does not check out (ignored, and written anew the same), on
// a gcc binary with .debug_aranges and on one without (as Go's binaries
// are: its units found by the ranges of their line sequences, which are
// cached too).
func TestUnitCache(t *testing.T) {
	bins := map[string]string{"aranges": build(t, "inl.c", "-g", "-O2"), "no-aranges": build(t, "inl.c", "-g", "-O2")}
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		t.Skip("objcopy not installed")
	}
	if out, err := exec.Command(objcopy, "--remove-section=.debug_aranges", bins["no-aranges"]).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v: %s", err, out)
	}
	for _, name := range []string{"aranges", "no-aranges"} {
		t.Run(name, func(t *testing.T) {
			bin := bins[name]
			pcs := funcAddrs(t, bin, 60)
			want, _, _ := unitAnswers(t, bin, "", pcs)
			dir := t.TempDir()
			got, cached, built := unitAnswers(t, bin, dir, pcs)
			if got != want {
				t.Fatal("cold cache: answers differ from those without a cache")
			}
			if cached != 0 || built == 0 {
				t.Fatalf("cold cache: %d tables from the cache, %d built", cached, built)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "units-*"))
			if len(files) != 1 {
				t.Fatalf("cache files %v, want one", files)
			}
			good, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			got, cached, built = unitAnswers(t, bin, dir, pcs)
			if got != want {
				t.Fatal("warm cache: answers differ from those without a cache")
			}
			if cached == 0 || built != 0 {
				t.Fatalf("warm cache: %d tables from the cache, %d built", cached, built)
			}
			if kinds := cachedKinds(good); kinds[ucTable] == 0 || name == "no-aranges" && kinds[ucRanges] == 0 {
				t.Fatalf("cache entries by kind: %v", kinds)
			}
			// Half the addresses: the cache keeps the other half's units.
			unitAnswers(t, bin, dir, pcs[:len(pcs)/2])
			if again, _ := os.ReadFile(files[0]); string(again) != string(good) {
				t.Fatal("a run asking less wrote a different cache")
			}
			for _, c := range []struct {
				name string
				mod  func([]byte) []byte
			}{
				{"magic", func(b []byte) []byte { b[0] ^= 1; return b }},
				{"version", func(b []byte) []byte { b[len(unitCacheFormat.Magic)] = 1; return b }},
				{"key", func(b []byte) []byte { b[len(unitCacheFormat.Magic)+10] ^= 0x40; return b }},
				{"middle", func(b []byte) []byte { b[len(b)/2] ^= 0x10; return b }},
				{"last byte", func(b []byte) []byte { b[len(b)-1] ^= 0x80; return b }},
				{"cut short", func(b []byte) []byte { return b[:len(b)-1] }},
				{"longer", func(b []byte) []byte { return append(b, 0) }},
				{"empty", func(b []byte) []byte { return nil }},
			} {
				bad := c.mod(append([]byte(nil), good...))
				if err := os.WriteFile(files[0], bad, 0o644); err != nil {
					t.Fatal(err)
				}
				got, cached, _ := unitAnswers(t, bin, dir, pcs)
				if got != want {
					t.Fatalf("cache file with a bad %s: answers differ", c.name)
				}
				if cached != 0 {
					t.Fatalf("cache file with a bad %s: %d tables from it", c.name, cached)
				}
				if again, _ := os.ReadFile(files[0]); string(again) != string(good) {
					t.Errorf("cache file with a bad %s: not written anew the same", c.name)
				}
			}
		})
	}
}

// cachedKinds counts the entries of a cache file by kind.
func cachedKinds(b []byte) map[uint8]int {
	n := len(unitCacheFormat.Magic) + 4
	if len(b) < n+4 {
		return nil
	}
	kl := int(b[n]) | int(b[n+1])<<8 | int(b[n+2])<<16 | int(b[n+3])<<24
	if n+4+kl > len(b) {
		return nil
	}
	payload, err := unitCacheFormat.Open(b, b[n+4:n+4+kl])
	if err != nil {
		return nil
	}
	m, _ := parseUnitCache(payload)
	kinds := map[uint8]int{}
	for k := range m {
		kinds[k.kind]++
	}
	return kinds
}

// TestDecodeTableDamaged: an encoded table cut short or with a byte
// changed decodes to nothing or to some table, never a panic; cut short
// it never decodes.
func TestDecodeTableDamaged(t *testing.T) {
	bin := build(t, "inl.c", "-g", "-O2")
	tab, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	tab.inlined = nil
	b, ok := encodeTable(tab)
	if !ok {
		t.Fatal("table not encoded")
	}
	back, ok := decodeTable(b)
	if !ok {
		t.Fatal("table does not decode")
	}
	if got, want := fmt.Sprintf("%+v", *back), fmt.Sprintf("%+v", *tab); got != want {
		t.Fatalf("decoded table differs:\n%s\nwant\n%s", got, want)
	}
	for n := 0; n < len(b); n++ {
		if _, ok := decodeTable(b[:n]); ok {
			t.Fatalf("decoded from the first %d of %d bytes", n, len(b))
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		bad := append([]byte(nil), b...)
		bad[r.Intn(len(bad))] ^= byte(1 + r.Intn(255))
		decodeTable(bad)
	}
}

// BenchmarkDecodeTable decodes the cached table of a C++ program's
// DWARF (what a warm unit cache does per unit an address falls in).
func BenchmarkDecodeTable(b *testing.B) {
	tab, err := Open("../../testdata/machine/bin/cxx-O0")
	if err != nil {
		b.Fatal(err)
	}
	tab.inlined = nil
	for i := range tab.funcs { // what a unit table has none of
		fn := &tab.funcs[i]
		fn.AggregateLocals, fn.AggregateFrom, fn.AggregateScopes, fn.LocalSlots = false, 0, nil, nil
	}
	enc, ok := encodeTable(tab)
	if !ok {
		b.Fatal("table not encoded")
	}
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	start := benchcpu.Now()
	for i := 0; i < b.N; i++ {
		if _, ok := decodeTable(enc); !ok {
			b.Fatal("table does not decode")
		}
	}
	benchcpu.Report(b, start)
}

// TestUnitCacheDirChanged checks that tables built while one cache
// directory was set are not written after it was replaced: a process
// running several commands (tests among them) writes each command's
// tables to its own directory, and never recreates one removed since.
func TestUnitCacheDirChanged(t *testing.T) {
	bin := build(t, "inl.c", "-g", "-O2")
	pcs := funcAddrs(t, bin, 60)
	for _, next := range []string{"", "other"} {
		t.Run(fmt.Sprintf("next=%q", next), func(t *testing.T) {
			old, other := t.TempDir(), t.TempDir()
			SetCacheDir(old)
			defer SetCacheDir("")
			f, err := OpenFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, pc := range pcs {
				f.Frames(pc, nil)
			}
			if f.uc == nil || len(f.uc.tables) == 0 {
				t.Fatal("no unit table built")
			}
			if next == "other" {
				SetCacheDir(other)
			} else {
				SetCacheDir("")
			}
			FlushCaches()
			for _, dir := range []string{old, other} {
				if files, _ := filepath.Glob(filepath.Join(dir, "units-*")); len(files) != 0 {
					t.Errorf("cache files written after the directory changed: %v", files)
				}
			}
		})
	}
}
