package srcline

import "debug/elf"

// elfFuncs answers what binutils' _bfd_elf_find_function answers (bfd
// 2.40, bfd/dwarf2.c): the function symbol addr2line names an address by
// where DWARF gives no function or no linkage name, and the STT_FILE
// symbol it names the file by where DWARF gives no line. Its one-entry
// cache is part of the answer: an address inside the symbol found last
// gets that symbol again without a new search, as bfd does.
type elfFuncs struct {
	syms []elfSym // in symbol-table order, the null symbol left out
	// The cache of elf_find_function_cache.
	lastSec   elf.SectionIndex
	cached    int // index into syms, -1 for none
	cacheLen  uint64
	cacheFn   string
	cacheFnOK bool
}

type elfSym struct {
	name  string
	value uint64
	size  uint64
	shndx elf.SectionIndex
	typ   elf.SymType
	bind  elf.SymBind
	vis   elf.SymVis
}

// loadELFFuncs reads the symbols addr2line reads (slurp_symtab): the
// static symbol table, or the dynamic one when there is none.
func loadELFFuncs(f *elf.File) *elfFuncs {
	syms, err := f.Symbols()
	if err != nil || len(syms) == 0 {
		syms, _ = f.DynamicSymbols()
	}
	e := &elfFuncs{cached: -1, lastSec: -1, syms: make([]elfSym, 0, len(syms))}
	for _, s := range syms {
		e.syms = append(e.syms, elfSym{name: s.Name, value: s.Value, size: s.Size, shndx: s.Section,
			typ: elf.ST_TYPE(s.Info), bind: elf.ST_BIND(s.Info), vis: elf.ST_VISIBILITY(s.Other)})
	}
	return e
}

// functionSize is _bfd_elf_maybe_function_sym: the size a symbol covers
// as a function of section sec, 0 when it is no function there.
func (s *elfSym) functionSize(sec elf.SectionIndex) uint64 {
	switch s.typ {
	case elf.STT_SECTION, elf.STT_FILE, elf.STT_OBJECT, elf.STT_TLS:
		return 0
	}
	if s.shndx != sec {
		return 0
	}
	if s.size == 0 && s.bind == elf.STB_LOCAL && s.typ == elf.STT_NOTYPE && s.vis == elf.STV_HIDDEN {
		// annobin's markers
		return 0
	}
	return max(s.size, 1)
}

// find returns the function symbol for addr in section sec and the file
// name addr2line gives with it (haveFile false for none); nil when there
// is no such symbol.
func (e *elfFuncs) find(sec elf.SectionIndex, addr uint64) (sym *elfSym, file string, haveFile bool) {
	if e == nil {
		return nil, "", false
	}
	if e.lastSec != sec || e.cached < 0 || addr < e.syms[e.cached].value || addr-e.syms[e.cached].value >= e.cacheLen {
		e.search(sec, addr)
	}
	if e.cached < 0 {
		return nil, "", false
	}
	return &e.syms[e.cached], e.cacheFn, e.cacheFnOK
}

// search is the symbol walk of _bfd_elf_find_function: the function
// symbol with the greatest address at or below addr (the larger one
// among equal addresses, else the first), and the last STT_FILE symbol
// before it unless that is not trustworthy for a global symbol (a file
// symbol that followed some other symbol).
func (e *elfFuncs) search(sec elf.SectionIndex, addr uint64) {
	const (
		nothingSeen = iota
		symbolSeen
		fileAfterSymbolSeen
	)
	state := nothingSeen
	file, haveFile := "", false
	e.lastSec, e.cached, e.cacheLen, e.cacheFn, e.cacheFnOK = sec, -1, 0, "", false
	var low uint64
	for i := range e.syms {
		s := &e.syms[i]
		if s.typ == elf.STT_FILE {
			file, haveFile = s.name, true
			if state == symbolSeen {
				state = fileAfterSymbolSeen
			}
			continue
		}
		if size := s.functionSize(sec); size != 0 && s.value <= addr &&
			(s.value > low || s.value == low && size > e.cacheLen) {
			e.cached, e.cacheLen, low = i, size, s.value
			e.cacheFn, e.cacheFnOK = "", false
			if haveFile && (s.bind == elf.STB_LOCAL || state != fileAfterSymbolSeen) {
				e.cacheFn, e.cacheFnOK = file, true
			}
		}
		if state == nothingSeen {
			state = symbolSeen
		}
	}
}
