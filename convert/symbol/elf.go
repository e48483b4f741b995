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
// Names are demangled by dm (nil: kept), each when a lookup first returns
// its symbol or where the fix-ups compare them, as perf demangles when it
// creates each symbol (see build.go).
func build(syms, runtime *elf.File, dm func(string) string) *Table {
	return buildTable(syms, runtime, dm, buildList)
}

// buildTable is build in one of the modes of fixedTable.
func buildTable(syms, runtime *elf.File, dm func(string) string, mode buildMode) (t *Table) {
	defer func() {
		if p := recover(); p != nil {
			t = &Table{} // malformed symbol data: no symbols, like a failed load
		}
	}()
	var passes [][]lsym
	var strs []string
	var symsDyn *elfTab
	add := func(f *elf.File, typ elf.SectionType) *elfTab {
		et, ok := elfSymbols(f, typ)
		if !ok {
			return nil
		}
		passes = append(passes, keepSymbols(f, runtime, et, uint8(len(strs))))
		strs = append(strs, et.strs)
		return &et
	}
	if hasSymtab(syms) {
		add(syms, elf.SHT_SYMTAB)
	}
	if hasDynsym(syms) {
		symsDyn = add(syms, elf.SHT_DYNSYM)
	}
	var plt []lsym
	if len(passes) > 0 && (len(passes[0]) > 0 || len(passes) > 1 && len(passes[1]) > 0) {
		dyn := symsDyn
		if runtime != syms || dyn == nil {
			if et, ok := elfSymbols(runtime, elf.SHT_DYNSYM); ok {
				dyn = &et
			}
		}
		if dyn != nil {
			plt = pltSymbols(runtime, dyn, uint8(len(strs)))
			strs = append(strs, dyn.strs)
		}
	}
	return fixedTable(newLoadOrder(passes, plt, strs, dm), mode)
}

// rawSym is one entry of an ELF symbol table.
type rawSym struct {
	name        uint32 // offset into the string table
	value, size uint64
	info, other byte
	shndx       elf.SectionIndex
}

// elfTab is an ELF symbol table and its string table.
type elfTab struct {
	syms []rawSym
	strs string
}

// named reports whether s has a name.
func (et *elfTab) named(s *rawSym) bool { return int(s.name) < len(et.strs) && et.strs[s.name] != 0 }

// elfSymbols reads the first symbol table of type typ as debug/elf's
// Symbols does (the null symbol dropped), but with names left in one copy
// of the string table.
func elfSymbols(f *elf.File, typ elf.SectionType) (elfTab, bool) {
	sec := f.SectionByType(typ)
	if sec == nil || sec.Link == 0 || int(sec.Link) >= len(f.Sections) {
		return elfTab{}, false
	}
	size := 24
	if f.Class == elf.ELFCLASS32 {
		size = 16
	}
	data, err := sectionData(sec)
	if err != nil || len(data)%size != 0 || len(data) < size {
		return elfTab{}, false
	}
	strData, err := sectionData(f.Sections[sec.Link])
	if err != nil {
		return elfTab{}, false
	}
	n := len(data)/size - 1
	if n > maxSymbols {
		n = maxSymbols
	}
	bo := f.ByteOrder
	out := make([]rawSym, n)
	for i := range out {
		e := data[(i+1)*size : (i+2)*size]
		r := &out[i]
		r.name = bo.Uint32(e)
		if size == 24 {
			r.info, r.other = e[4], e[5]
			r.shndx = elf.SectionIndex(bo.Uint16(e[6:]))
			r.value, r.size = bo.Uint64(e[8:]), bo.Uint64(e[16:])
		} else {
			r.value, r.size = uint64(bo.Uint32(e[4:])), uint64(bo.Uint32(e[8:]))
			r.info, r.other = e[12], e[13]
			r.shndx = elf.SectionIndex(bo.Uint16(e[14:]))
		}
	}
	return elfTab{syms: out, strs: string(strData)}, true
}

// sectionData is sec.Data read with one ReadAt when the section is not
// compressed and its last byte is in the file (else Data, which grows its
// buffer as it reads instead of trusting a size that may be corrupt).
func sectionData(sec *elf.Section) ([]byte, error) {
	var last [1]byte
	if sec.Flags&elf.SHF_COMPRESSED != 0 || sec.Type == elf.SHT_NOBITS || sec.Size == 0 || sec.Size > 1<<40 {
		return sec.Data()
	}
	if _, err := sec.ReadAt(last[:], int64(sec.Size-1)); err != nil {
		return sec.Data()
	}
	b := make([]byte, sec.Size)
	n, err := sec.ReadAt(b, 0)
	if n == len(b) {
		return b, nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return nil, err
}

// keepSymbols returns the symbols perf's dso__load_sym_internal keeps, in
// the table's order, their names in string table tab.
func keepSymbols(f, runtime *elf.File, et elfTab, tab uint8) []lsym {
	add := make([]lsym, 0, len(et.syms))
	var seg *elf.Prog // the last PT_LOAD segment found
	for i := range et.syms {
		s := &et.syms[i]
		typ := elf.ST_TYPE(s.info)
		vis := elf.ST_VISIBILITY(s.other)
		named := et.named(s)
		isFunc := (typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC) && named && s.shndx != elf.SHN_UNDEF
		isObj := typ == elf.STT_OBJECT && named && s.shndx != elf.SHN_UNDEF
		isLabel := typ == elf.STT_NOTYPE && named && s.shndx != elf.SHN_UNDEF &&
			s.shndx != elf.SHN_ABS && vis != elf.STV_HIDDEN && vis != elf.STV_INTERNAL
		if !isLabel && !isFunc && !isObj {
			continue
		}
		if s.shndx == elf.SHN_ABS {
			continue
		}
		if int(s.shndx) >= len(f.Sections) || s.shndx >= elf.SHN_LORESERVE {
			// perf fails the whole load here (elf_getscn fails); keep
			// what we have instead of crashing.
			continue
		}
		sec := f.Sections[s.shndx]
		if sec.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		if sec.Type == elf.SHT_NOBITS && runtime != f {
			// A debug file's NOBITS sections have no valid offsets:
			// perf takes the runtime image's section instead.
			if int(s.shndx) >= len(runtime.Sections) {
				continue
			}
			sec = runtime.Sections[s.shndx]
		}
		if isLabel && !strings.Contains(sec.Name, "text") && !strings.Contains(sec.Name, "data") {
			continue
		}
		v := s.value
		if seg == nil || !inSegment(seg, v) {
			seg = loadSegment(runtime, v)
		}
		if seg != nil {
			v -= seg.Vaddr - seg.Off
		} else {
			v -= sec.Addr - sec.Offset
		}
		end := v
		if s.size != 0 {
			end = v + s.size
		}
		add = append(add, lsym{start: v, end: end, name: s.name, tab: tab, bind: uint8(elf.ST_BIND(s.info)), typ: uint8(typ)})
	}
	return add
}

// loadSegment returns the PT_LOAD segment holding vaddr, as perf's
// elf_read_program_header finds it (the first that does).
func loadSegment(f *elf.File, vaddr uint64) *elf.Prog {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && inSegment(p, vaddr) {
			return p
		}
	}
	return nil
}

// inSegment reports whether vaddr is in segment p.
func inSegment(p *elf.Prog, vaddr uint64) bool {
	sz := max(p.Memsz, p.Filesz)
	return sz != 0 && vaddr >= p.Vaddr && vaddr < p.Vaddr+sz
}

// pltSymbols mirrors dso__synthesize_plt_symbols for x86: one name@plt
// symbol per .rela.plt (or .rel.plt) entry, laid out after the PLT header
// in .plt's file-offset space, named after dyn's symbols in string table
// tab (the name is demangled before "@plt" is added).
func pltSymbols(f *elf.File, dyn *elfTab, tab uint8) []lsym {
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
	out := make([]lsym, 0, n)
	for i := uint64(0); i < n; i++ {
		e := data[i*rel.Entsize:]
		var symIdx uint64
		switch {
		case is64 && len(e) >= 16:
			symIdx = uint64(elf.R_SYM64(bo.Uint64(e[8:])))
		case !is64 && len(e) >= 8:
			symIdx = uint64(elf.R_SYM32(bo.Uint32(e[4:])))
		}
		name := uint32(len(dyn.strs)) // none: ""
		// elfSymbols drops the null symbol 0.
		if symIdx >= 1 && symIdx-1 < uint64(len(dyn.syms)) {
			name = dyn.syms[symIdx-1].name
		}
		out = append(out, lsym{start: off, end: off + entry, name: name, tab: tab, bind: uint8(elf.STB_GLOBAL), typ: uint8(elf.STT_FUNC), flags: lsymPLT})
		off += entry
	}
	return out
}
