package symbol

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeNotes writes a /sys/kernel/notes-like file holding build id id.
func writeNotes(t testing.TB, path string, id []byte) {
	t.Helper()
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 4)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(id)))
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = append(b, "GNU\x00"...)
	b = append(b, id...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sameLookups checks that a answers as b around every symbol of b.
func sameLookups(t *testing.T, what string, a, b *Table) {
	t.Helper()
	if a.Len() != b.Len() {
		t.Fatalf("%s: %d symbols, want %d", what, a.Len(), b.Len())
	}
	for _, s := range b.Symbols() {
		for _, addr := range []uint64{s.Start - 1, s.Start, s.End - 1, s.End} {
			x, y := a.Find(addr), b.Find(addr)
			if (x == nil) != (y == nil) || x != nil && *x != *y {
				t.Fatalf("%s: Find(%#x) = %v, want %v", what, addr, x, y)
			}
			_, lo, hi := a.FindRange(addr)
			_, wlo, whi := b.FindRange(addr)
			if lo != wlo || hi != whi {
				t.Fatalf("%s: FindRange(%#x) range [%#x, %#x), want [%#x, %#x)", what, addr, lo, hi, wlo, whi)
			}
		}
	}
}

// TestKallsymsCache loads a kallsyms file through the cache: the first
// load parses it and writes the cache, the next reads the cache and
// answers every lookup as the parse does (relocated too); a different
// boot, build id or first page, or a damaged cache file, make it parse
// the file again; module symbols are read from the file when asked for.
func TestKallsymsCache(t *testing.T) {
	dir := t.TempDir()
	proc := filepath.Join(dir, "kallsyms")
	text := "ffffffff81000000 T _stext\nffffffff81000000 T _text\nffffffff81000010 t a\nffffffff81000040 T b\nffffffff81000040 W b_alias\n" +
		"ffffffff81000100 D data\nffffffffc0000000 t m1\t[mod]\nffffffffc0000100 t m2\t[mod]\n"
	if data, err := os.ReadFile("/proc/kallsyms"); err == nil && len(data) > 0 && !strings.HasPrefix(string(data), "0000000000000000") {
		text = string(data) // the real thing when it shows addresses
	}
	if err := os.WriteFile(proc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &KallsymsCache{Dir: filepath.Join(dir, "cache"), Notes: filepath.Join(dir, "notes"), BootID: filepath.Join(dir, "boot_id")}
	writeNotes(t, c.Notes, []byte("0123456789abcdefghij"))
	if err := os.WriteFile(c.BootID, []byte("boot-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := ParseKallsyms(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	load := func(fromCache bool) *KernelSymbols {
		t.Helper()
		ks, err := LoadHostKallsyms(proc, c)
		if err != nil {
			t.Fatal(err)
		}
		if got := ks.cached; got != fromCache {
			t.Fatalf("from the cache: %v, want %v", got, fromCache)
		}
		if ks.Text != want.Text || ks.Stext != want.Stext {
			t.Fatalf("_text %#x _stext %#x, want %#x %#x", ks.Text, ks.Stext, want.Text, want.Stext)
		}
		return ks
	}
	load(false)
	ks := load(true)
	sameLookups(t, "cached", ks.Kernel, want.Kernel)
	sameLookups(t, "cached and relocated", ks.Kernel.Shift(^uint64(0x1fffff)), want.Kernel.Shift(^uint64(0x1fffff)))
	for name, m := range want.Modules {
		sameLookups(t, "module "+name, ks.Module(name), m)
	}

	// Another boot: parsed again, and cached for it.
	os.WriteFile(c.BootID, []byte("boot-2\n"), 0o644)
	load(false)
	load(true)
	// Another first page (kptr_restrict hiding addresses, say).
	os.WriteFile(proc, []byte("0000000000000000 T _text\n"+text), 0o644)
	load(false)
	load(true)
	// A damaged cache file: ignored, and rewritten.
	file := filepath.Join(c.Dir, "kallsyms-"+hexID("0123456789abcdefghij"))
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	os.WriteFile(file, data, 0o600)
	load(false)
	load(true)
	// No build id: no cache.
	os.WriteFile(c.Notes, nil, 0o644)
	load(false)
	load(false)
}

func hexID(s string) string {
	const digits = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(digits[s[i]>>4])
		b.WriteByte(digits[s[i]&15])
	}
	return b.String()
}

// FuzzKallsymsCache: a cache file is input too (another version of
// perfpt, a damaged disk): decoding any bytes must not panic, and what it
// accepts must answer lookups without panicking.
func FuzzKallsymsCache(f *testing.F) {
	ks, err := ParseKallsyms(strings.NewReader("ffffffff81000000 T _text\nffffffff81000010 t a\nffffffff81000040 T b\n"))
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	file := filepath.Join(dir, "c")
	key := []byte("key")
	writeKallsymsCache(file, key, ks)
	data, err := os.ReadFile(file)
	if err != nil {
		f.Fatal(err)
	}
	payload, err := kcacheFormat.Open(data, key)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(payload)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, payload []byte) {
		// The payload: its frame is internal/cachefile's, fuzzed there.
		ks, err := decodeKallsymsCache(payload)
		if err != nil {
			return
		}
		for _, s := range ks.Kernel.Symbols() {
			ks.Kernel.Find(s.Start)
			ks.Kernel.FindRange(s.End)
		}
	})
}

// TestKallsymsPerfCopy: with a cold cache, the core kernel's symbols come
// from the kallsyms perf record copied into its build-id cache when the
// copy starts with proc's first page, and answer every lookup as proc's
// parse does; the modules are read from proc, as they are now (the copy's
// are stale). A copy with another first page (another KASLR offset, or
// addresses hidden) is not used.
func TestKallsymsPerfCopy(t *testing.T) {
	dir := t.TempDir()
	proc := filepath.Join(dir, "kallsyms")
	core := "ffffffff81000000 T _stext\nffffffff81000000 T _text\nffffffff81000010 t a\nffffffff81000040 T b\nffffffff81000040 W b_alias\n" +
		"ffffffff81000100 D data\n"
	now := core + "ffffffffc0000000 t m1\t[mod]\nffffffffc0000100 t m2\t[mod]\n"
	then := core + "ffffffffc0000000 t old\t[gone]\n"
	if err := os.WriteFile(proc, []byte(now), 0o644); err != nil {
		t.Fatal(err)
	}
	copyFile := filepath.Join(dir, "copy")
	if err := os.WriteFile(copyFile, []byte(then), 0o644); err != nil {
		t.Fatal(err)
	}
	id := []byte("0123456789abcdefghij")
	asked := 0
	c := &KallsymsCache{Notes: filepath.Join(dir, "notes"), BootID: filepath.Join(dir, "boot_id"),
		PerfCopy: func(b []byte) string {
			asked++
			if string(b) != string(id) {
				t.Fatalf("copy asked for build id %x, want %x", b, id)
			}
			return copyFile
		}}
	writeNotes(t, c.Notes, id)
	os.WriteFile(c.BootID, []byte("boot-1\n"), 0o644)
	want, err := ParseKallsyms(strings.NewReader(now))
	if err != nil {
		t.Fatal(err)
	}
	ks, err := LoadHostKallsyms(proc, c)
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 {
		t.Fatalf("copy asked for %d times, want 1", asked)
	}
	sameLookups(t, "from the copy", ks.Kernel, want.Kernel)
	if ks.Text != want.Text || ks.Stext != want.Stext {
		t.Fatalf("_text %#x _stext %#x, want %#x %#x", ks.Text, ks.Stext, want.Text, want.Stext)
	}
	if ks.Module("gone") != nil {
		t.Fatal("a module of the copy's time is listed")
	}
	sameLookups(t, "module from proc", ks.Module("mod"), want.Modules["mod"])

	// A copy from a boot with _text elsewhere: proc is parsed.
	moved := strings.ReplaceAll(then, "ffffffff81", "ffffffff82")
	os.WriteFile(copyFile, []byte(moved), 0o644)
	ks, err = LoadHostKallsyms(proc, c)
	if err != nil {
		t.Fatal(err)
	}
	sameLookups(t, "proc after a moved copy", ks.Kernel, want.Kernel)
	if len(ks.Modules) == 0 {
		t.Fatal("proc's modules not parsed with the core")
	}
}
