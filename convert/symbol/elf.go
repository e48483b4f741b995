package symbol

import (
	"debug/elf"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxSymbols caps the symbols taken from one table, against corrupt files.
const maxSymbols = 1 << 24

// LoadFile builds the table perf would build from the one ELF file at path,
// used both for the symbols and as the runtime image (see LoadDSO for
// perf's search of debug files and the build-id cache).
func LoadFile(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Load(f)
}

// Load builds the table perf would build for a user-space ELF object read
// from r, used both for the symbols and as the runtime image.
func Load(r io.ReaderAt) (*Table, error) {
	f, err := openELF(r)
	if err != nil {
		return nil, err
	}
	return build(f, f, (*Options)(nil).demangler()), nil
}

func openELF(r io.ReaderAt) (f *elf.File, err error) {
	defer func() {
		// debug/elf can panic on some malformed inputs; a bad file must
		// give an error, never a crash.
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("symbol: malformed ELF: %v", p)
		}
	}()
	f, err = elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("symbol: %w", err)
	}
	return f, nil
}

func hasSymtab(f *elf.File) bool {
	s := f.Section(".symtab")
	return s != nil && s.Type == elf.SHT_SYMTAB
}

func hasDynsym(f *elf.File) bool {
	s := f.Section(".dynsym")
	return s != nil && s.Type == elf.SHT_DYNSYM
}

// build mirrors dso__load_sym plus the PLT synthesis of dso__load: the
// .symtab of syms (when present) and then its .dynsym, each followed by
// perf's end and duplicate fix-ups, then the PLT entries of runtime.
// Names are demangled by dm (nil: kept) before the fix-ups compare them,
// as perf demangles when it creates each symbol.
func build(syms, runtime *elf.File, dm func(string) string) (t *Table) {
	t = &Table{}
	defer func() {
		if p := recover(); p != nil {
			t = &Table{} // malformed symbol data: no symbols, like a failed load
			t.finish()
		}
	}()
	var loaded int
	if hasSymtab(syms) {
		if list, err := syms.Symbols(); err == nil {
			n := t.addELF(syms, runtime, list, dm)
			loaded += n
			if n > 0 {
				t.fixupEnd()
				t.fixupDuplicate()
			}
		}
	}
	if hasDynsym(syms) {
		if list, err := syms.DynamicSymbols(); err == nil {
			n := t.addELF(syms, runtime, list, dm)
			loaded += n
			if n > 0 {
				t.fixupEnd()
				t.fixupDuplicate()
			}
		}
	}
	if loaded > 0 {
		t.insert(pltSymbols(runtime, dm))
	}
	t.finish()
	return t
}

// addELF adds the symbols perf's dso__load_sym_internal keeps and returns
// how many.
func (t *Table) addELF(f, runtime *elf.File, syms []elf.Symbol, dm func(string) string) int {
	if len(syms) > maxSymbols {
		syms = syms[:maxSymbols]
	}
	var add []Symbol
	for i := range syms {
		s := &syms[i]
		typ := elf.ST_TYPE(s.Info)
		vis := elf.ST_VISIBILITY(s.Other)
		named := s.Name != ""
		isFunc := (typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC) && named && s.Section != elf.SHN_UNDEF
		isObj := typ == elf.STT_OBJECT && named && s.Section != elf.SHN_UNDEF
		isLabel := typ == elf.STT_NOTYPE && named && s.Section != elf.SHN_UNDEF &&
			s.Section != elf.SHN_ABS && vis != elf.STV_HIDDEN && vis != elf.STV_INTERNAL
		if !isLabel && !isFunc && !isObj {
			continue
		}
		if s.Section == elf.SHN_ABS {
			continue
		}
		if int(s.Section) >= len(f.Sections) || s.Section >= elf.SHN_LORESERVE {
			// perf fails the whole load here (elf_getscn fails); keep
			// what we have instead of crashing.
			continue
		}
		sec := f.Sections[s.Section]
		if sec.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		if sec.Type == elf.SHT_NOBITS && runtime != f {
			// A debug file's NOBITS sections have no valid offsets:
			// perf takes the runtime image's section instead.
			if int(s.Section) >= len(runtime.Sections) {
				continue
			}
			sec = runtime.Sections[s.Section]
		}
		if isLabel && !strings.Contains(sec.Name, "text") && !strings.Contains(sec.Name, "data") {
			continue
		}
		v := s.Value
		if p := loadSegment(runtime, v); p != nil {
			v -= p.Vaddr - p.Off
		} else {
			v -= sec.Addr - sec.Offset
		}
		end := v
		if s.Size != 0 {
			end = v + s.Size
		}
		name, mangled := s.Name, ""
		if dm != nil {
			if name = dm(s.Name); name != s.Name {
				mangled = s.Name
			}
		}
		add = append(add, Symbol{Start: v, End: end, Name: name, Mangled: mangled, Bind: elf.ST_BIND(s.Info), Type: typ})
	}
	t.insert(add)
	return len(add)
}

// loadSegment returns the PT_LOAD segment holding vaddr, as perf's
// elf_read_program_header finds it.
func loadSegment(f *elf.File, vaddr uint64) *elf.Prog {
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		sz := max(p.Memsz, p.Filesz)
		if sz == 0 {
			continue
		}
		if vaddr >= p.Vaddr && vaddr < p.Vaddr+sz {
			return p
		}
	}
	return nil
}

// pltSymbols mirrors dso__synthesize_plt_symbols for x86: one name@plt
// symbol per .rela.plt (or .rel.plt) entry, laid out after the PLT header
// in .plt's file-offset space; the name is demangled before "@plt" is
// added.
func pltSymbols(f *elf.File, dm func(string) string) []Symbol {
	dynIdx := -1
	for i, s := range f.Sections {
		if s.Name == ".dynsym" && s.Type == elf.SHT_DYNSYM {
			dynIdx = i
			break
		}
	}
	if dynIdx < 0 {
		return nil
	}
	rel := f.Section(".rela.plt")
	if rel == nil {
		rel = f.Section(".rel.plt")
	}
	plt := f.Section(".plt")
	if rel == nil || plt == nil || int(rel.Link) != dynIdx || rel.Entsize == 0 {
		return nil
	}
	dyn, err := f.DynamicSymbols()
	if err != nil {
		return nil
	}
	data, err := rel.Data()
	if err != nil {
		return nil
	}
	n := rel.Size / rel.Entsize
	if n > maxSymbols || n*rel.Entsize > uint64(len(data)) {
		return nil
	}
	entry := plt.Entsize
	off := plt.Offset + entry
	bo := f.ByteOrder
	is64 := f.Class == elf.ELFCLASS64
	out := make([]Symbol, 0, n)
	for i := uint64(0); i < n; i++ {
		e := data[i*rel.Entsize:]
		var symIdx uint64
		switch {
		case is64 && len(e) >= 16:
			symIdx = uint64(elf.R_SYM64(bo.Uint64(e[8:])))
		case !is64 && len(e) >= 8:
			symIdx = uint64(elf.R_SYM32(bo.Uint32(e[4:])))
		}
		name := ""
		// DynamicSymbols drops the null symbol 0.
		if symIdx >= 1 && symIdx-1 < uint64(len(dyn)) {
			name = dyn[symIdx-1].Name
		}
		if dm != nil {
			name = dm(name)
		}
		out = append(out, Symbol{Start: off, End: off + entry, Name: name + "@plt", Bind: elf.STB_GLOBAL, Type: elf.STT_FUNC})
		off += entry
	}
	return out
}
