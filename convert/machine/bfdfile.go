package machine

import (
	"debug/elf"
	"sort"
)

// bfdFuncs answers what binutils' addr2line prints as the file of an
// address without line information: elf_find_function's rule, the last
// STT_FILE symbol before the function symbol found, unless that symbol is
// not local and a file symbol followed some other symbol.
type bfdFuncs struct {
	syms []bfdSym // sorted by value, stable in symbol-table order
	secs []*elf.Section
}

type bfdSym struct {
	value uint64
	shndx elf.SectionIndex
	file  string // the STT_FILE name, possibly empty
	known bool   // false when addr2line reports no file ("??")
	ord   int
}

func loadBFDFuncs(path string) *bfdFuncs {
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil
	}
	b := &bfdFuncs{secs: f.Sections}
	const (
		nothingSeen = iota
		symbolSeen
		fileAfterSymbolSeen
	)
	state := nothingSeen
	file := ""
	haveFile := false
	for i, s := range syms {
		switch elf.ST_TYPE(s.Info) {
		case elf.STT_FILE:
			file, haveFile = s.Name, true
			if state == symbolSeen {
				state = fileAfterSymbolSeen
			}
			continue
		case elf.STT_NOTYPE, elf.STT_FUNC, elf.STT_GNU_IFUNC:
			known := haveFile && (elf.ST_BIND(s.Info) == elf.STB_LOCAL || state != fileAfterSymbolSeen)
			name := ""
			if known {
				name = file
			}
			b.syms = append(b.syms, bfdSym{value: s.Value, shndx: s.Section, file: name, known: known, ord: i})
		}
		if state == nothingSeen {
			state = symbolSeen
		}
	}
	sort.SliceStable(b.syms, func(i, j int) bool { return b.syms[i].value < b.syms[j].value })
	return b
}

// file returns the file addr2line prints for pc, and false when it
// prints "??". A file symbol with an empty name (as before the assembly
// entry points of Debian's ld.so debug file) gives "", true: addr2line
// prints ":?", which perf makes ":0".
func (b *bfdFuncs) file(pc uint64) (string, bool) {
	if b == nil {
		return "", false
	}
	var sec elf.SectionIndex = -1
	for i, s := range b.secs {
		if s.Flags&elf.SHF_ALLOC != 0 && pc >= s.Addr && pc < s.Addr+s.Size {
			sec = elf.SectionIndex(i)
			break
		}
	}
	if sec < 0 {
		return "", false
	}
	i := sort.Search(len(b.syms), func(i int) bool { return b.syms[i].value > pc })
	// The best symbol is the one with the greatest value <= pc in pc's
	// section; among equal values the last in table order.
	best := -1
	for j := i - 1; j >= 0; j-- {
		s := &b.syms[j]
		if best >= 0 && s.value < b.syms[best].value {
			break
		}
		if s.shndx != sec {
			continue
		}
		if best < 0 || s.ord > b.syms[best].ord {
			best = j
		}
	}
	if best < 0 {
		return "", false
	}
	return b.syms[best].file, b.syms[best].known
}
