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
