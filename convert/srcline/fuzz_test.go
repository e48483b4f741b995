package srcline

import (
	"bytes"
	"debug/elf"
	"os"
	"testing"
)

// FuzzNew feeds arbitrary bytes as an ELF file: building a Table and
// looking addresses up must never panic.
func FuzzNew(f *testing.F) {
	for _, flags := range [][]string{{"-g", "-O0"}, {"-g", "-O2"}} {
		if b, err := os.ReadFile(buildForFuzz(f, flags...)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		tab, err := New(ef)
		if err != nil {
			return
		}
		for _, r := range tab.Rows() {
			tab.Frames(r.Addr, nil)
			tab.Func(r.Addr)
		}
		for _, fn := range tab.Funcs() {
			tab.Frames(fn.Low, nil)
		}
	})
}

func buildForFuzz(f *testing.F, flags ...string) string {
	defer func() { recover() }()
	return build(f, "inl.c", flags...)
}

// FuzzFile feeds arbitrary bytes as an ELF file to File: addr2line's and
// Table's questions must never panic.
func FuzzFile(f *testing.F) {
	for _, flags := range [][]string{{"-g", "-O0"}, {"-g", "-O2"}, {"-g", "-O2", "-gdwarf-4"}} {
		if b, err := os.ReadFile(buildForFuzz(f, flags...)); err == nil {
			f.Add(b)
		}
	}
	// Binaries of the repository: DWARF 5 from gcc 12, and a static
	// program whose glibc parts have no DWARF.
	for _, p := range []string{"../../testdata/unwind/cwork-dyn", "../../testdata/unwind/cppthrow"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sf, err := NewFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		var recs []Record
		var frames []Frame
		for _, s := range sf.ef.Sections {
			for _, pc := range []uint64{s.Addr, s.Addr + s.Size/2, s.Addr + 1} {
				recs, _ = sf.Addr2line(pc, recs[:0])
				recs, _ = sf.Addr2lineNames(pc, recs[:0])
				frames = sf.Frames(pc, frames[:0])
				sf.Line(pc)
				sf.Func(pc)
			}
		}
	})
}
