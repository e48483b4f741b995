package symbol

import (
	"debug/elf"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
)

// KernelSymbols is the kernel's symbol table from a kallsyms file, split
// as perf splits it: the core kernel's symbols and each module's.
type KernelSymbols struct {
	Kernel *Table
	// Modules holds each module's symbols by module name, without
	// brackets; use Module, which reads them when they were not.
	Modules map[string]*Table
	// Text is the address of _text (the start of perf's kernel map when
	// the recording has no kernel MMAP), Stext that of _stext: the
	// reference symbols perf relocates kallsyms by (kallsyms__delta).
	Text, Stext uint64

	// moduleSrc is the kallsyms file to read the modules' symbols from
	// when Kernel came from the cache (LoadHostKallsyms).
	moduleSrc string
	modOnce   sync.Once
}

// Module returns the symbols kallsyms lists for module name (without
// brackets), nil when it lists none.
func (ks *KernelSymbols) Module(name string) *Table {
	ks.modOnce.Do(func() {
		if ks.Modules != nil || ks.moduleSrc == "" {
			return
		}
		if full, err := LoadKallsyms(ks.moduleSrc); err == nil {
			ks.Modules = full.Modules
		}
	})
	return ks.Modules[name]
}

// LoadKallsyms reads a /proc/kallsyms-format file the way perf's
// dso__load_kallsyms does: T/W/D/B symbols (either case) of size zero,
// then end fix-ups (a symbol ends where the next starts; the last core
// symbol before the modules ends a page later) and duplicate removal.
func LoadKallsyms(path string) (*KernelSymbols, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseKallsyms(f)
}

// kallsym is one kallsyms line kept: the symbol and its module ("" for
// the core kernel).
type kallsym struct {
	s   Symbol
	mod string
}

// ParseKallsyms is LoadKallsyms on a reader. The file is read whole and
// the names are slices of one string; the symbols are sorted as perf's
// tree orders them (by start, equal starts in file order) and fixed up in
// that order, so that no tree is built for the usual kallsyms whose
// symbols do not overlap once their ends are set.
func ParseKallsyms(r io.Reader) (*KernelSymbols, error) {
	// One buffer grown ahead, not by io.ReadAll's doublings and copies:
	// the file's size, or a few MB for /proc/kallsyms, which has none.
	// A strings.Builder neither clears it nor copies it into the string.
	size := 8 << 20
	if f, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if st, err := f.Stat(); err == nil && st.Size() > 0 && st.Size() < 1<<30 {
			size = int(st.Size()) + 1
		}
	}
	var sb strings.Builder
	sb.Grow(size)
	if _, err := io.Copy(&sb, r); err != nil {
		return nil, err
	}
	text := sb.String()
	ks := &KernelSymbols{Modules: map[string]*Table{}}
	all := make([]kallsym, 0, strings.Count(text, "\n")+1)
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		// "addr type name[\t[module]]"
		sp := strings.IndexByte(line, ' ')
		if sp < 0 || sp+3 > len(line) {
			continue
		}
		addr, ok := parseHex(line[:sp])
		if !ok {
			continue
		}
		typ := line[sp+1]
		name := line[sp+3:]
		mod := ""
		if i := strings.IndexByte(name, '\t'); i >= 0 {
			mod = strings.Trim(name[i+1:], "[]")
			name = name[:i]
		}
		if mod == "" {
			if name == "_text" && ks.Text == 0 {
				ks.Text = addr
			} else if name == "_stext" && ks.Stext == 0 {
				ks.Stext = addr
			}
		}
		u := typ &^ 0x20
		if u != 'T' && u != 'W' && u != 'D' && u != 'B' {
			continue
		}
		bind := elf.STB_GLOBAL
		switch {
		case typ == 'W' || typ == 'w':
			bind = elf.STB_WEAK
		case typ >= 'a' && typ <= 'z':
			bind = elf.STB_LOCAL
		}
		st := elf.STT_FUNC
		if u == 'D' || u == 'B' {
			st = elf.STT_OBJECT
		}
		all = append(all, kallsym{Symbol{Start: addr, End: addr, Name: name, Bind: bind, Type: st}, mod})
	}
	// perf inserts everything into one tree (equal starts go right, so
	// they stay in file order), fixes the ends with the module rule and
	// the duplicates, then moves module symbols to their maps.
	byStart := func(a, b kallsym) int {
		switch {
		case a.s.Start < b.s.Start:
			return -1
		case a.s.Start > b.s.Start:
			return 1
		}
		return 0
	}
	if !slices.IsSortedFunc(all, byStart) {
		slices.SortStableFunc(all, byStart)
	}
	for i := 0; i+1 < len(all); i++ {
		p := &all[i].s
		if p.End == p.Start {
			if (all[i].mod != "") != (all[i+1].mod != "") {
				p.End = roundUp(p.End+4096, 4096)
			} else {
				p.End = all[i+1].s.Start
			}
		}
	}
	if n := len(all); n > 0 {
		if last := &all[n-1].s; last.End == last.Start {
			last.End = roundUp(last.Start, 4096) + 4096
		}
	}
	// symbols__fixup_duplicate, in tree order.
	kept := all[:0]
	for i := range all {
		if n := len(kept); n > 0 && kept[n-1].s.Start == all[i].s.Start {
			// the survivor so far against the next one
			if !chooseFirst(&kept[n-1].s, &all[i].s) {
				kept[n-1] = all[i]
			}
			continue
		}
		kept = append(kept, all[i])
	}
	// Sized ahead: grown by appends, the 120,000 core symbols (7 MB)
	// were copied at every doubling.
	nmod := 0
	for i := range kept {
		if kept[i].mod != "" {
			nmod++
		}
	}
	core := make([]Symbol, 0, len(kept)-nmod)
	byMod := map[string][]Symbol{}
	for _, k := range kept {
		if k.mod != "" {
			byMod[k.mod] = append(byMod[k.mod], k.s)
			continue
		}
		core = append(core, k.s)
	}
	ks.Kernel = sortedTable(core)
	for m, syms := range byMod {
		ks.Modules[m] = sortedTable(syms)
	}
	return ks, nil
}

// sortedTable makes the Table of symbols sorted by start with distinct
// starts: directly when they do not overlap (each symbol's run ends before
// the next starts), else through perf's tree, whose lookups decide
// between overlapping symbols.
func sortedTable(syms []Symbol) *Table {
	if t, ok := flatTable(syms); ok {
		return t
	}
	t := &Table{}
	t.insert(syms)
	t.finish(nil)
	return t
}

// flatTable makes the Table of symbols sorted by start when no two of them
// overlap: every lookup then has one answer whatever the shape of perf's
// tree, and the runs are the symbols themselves. It reports false when
// they are not sorted or overlap.
func flatTable(syms []Symbol) (*Table, bool) {
	t := &Table{syms: syms, segs: make([]seg, 0, 2*len(syms)+1)}
	if len(syms) > 0 && syms[0].Start > 0 {
		t.segs = append(t.segs, seg{0, -1})
	}
	for i := range syms {
		s := &syms[i]
		end := s.End
		if end == s.Start {
			end = s.Start + 1 // a zero-length symbol covers its start
		}
		if end < s.Start || i+1 < len(syms) && end > syms[i+1].Start {
			return nil, false
		}
		t.segs = append(t.segs, seg{s.Start, int32(i)})
		if end != 0 && (i+1 == len(syms) || end < syms[i+1].Start) {
			t.segs = append(t.segs, seg{end, -1})
		}
	}
	return t, true
}

// parseHex parses a kallsyms address (lower-case hex, no prefix).
func parseHex(s string) (uint64, bool) {
	if s == "" || len(s) > 16 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint64(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
