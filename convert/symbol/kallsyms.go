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
	// cached says Kernel came from the kallsyms cache (kcache.go).
	cached bool
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

// ModulesIn returns the modules' symbols that start in [lo, hi), their
// ends cut at hi, in one table, as maps__split_kallsyms_for_kcore gives a
// kcore segment the kallsyms symbols that fall in it (module names
// dropped; nil when there are none).
func (ks *KernelSymbols) ModulesIn(lo, hi uint64) *Table {
	ks.Module("") // the modules' symbols, read now if the cache had none
	var syms []Symbol
	for _, t := range ks.Modules {
		for _, s := range t.Symbols() {
			if s.Start < lo || s.Start >= hi {
				continue
			}
			s.End = min(s.End, hi)
			syms = append(syms, s)
		}
	}
	if syms == nil {
		return nil
	}
	slices.SortStableFunc(syms, func(a, b Symbol) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return sortedTable(slices.CompactFunc(syms, func(a, b Symbol) bool { return a.Start == b.Start }))
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

// kallsym is one kallsyms line kept: the symbol, and the index of its
// module in the parse's module names (-1 for the core kernel). 40 bytes:
// the running kernel has 120,000 of them.
type kallsym struct {
	start, end uint64
	name       string
	mod        int32
	bind, typ  uint8
}

func (k *kallsym) symbol() Symbol {
	return Symbol{Start: k.start, End: k.end, Name: k.name, Bind: elf.SymBind(k.bind), Type: elf.SymType(k.typ)}
}

// ParseKallsyms is LoadKallsyms on a reader. The file is read whole and
// the names are slices of one string; the symbols are sorted as perf's
// tree orders them (by start, equal starts in file order) and fixed up in
// that order, so that no tree is built for the usual kallsyms whose
// symbols do not overlap once their ends are set. The core kernel's table
// is then packed (packed.go), as the kallsyms cache holds it: its symbols
// are made when a lookup first returns them, and the cache is written
// from the packed form.
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
	var mods []string
	modIdx := map[string]int32{}
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
		mod := int32(-1)
		if i := strings.IndexByte(name, '\t'); i >= 0 {
			if m := strings.Trim(name[i+1:], "[]"); m != "" {
				j, ok := modIdx[m]
				if !ok {
					j = int32(len(mods))
					mods = append(mods, m)
					modIdx[m] = j
				}
				mod = j
			}
			name = name[:i]
		}
		if mod < 0 {
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
		all = append(all, kallsym{start: addr, end: addr, name: name, mod: mod, bind: uint8(bind), typ: uint8(st)})
	}
	// perf inserts everything into one tree (equal starts go right, so
	// they stay in file order), fixes the ends with the module rule and
	// the duplicates, then moves module symbols to their maps.
	byStart := func(a, b kallsym) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	}
	if !slices.IsSortedFunc(all, byStart) {
		slices.SortStableFunc(all, byStart)
	}
	for i := 0; i+1 < len(all); i++ {
		p := &all[i]
		if p.end == p.start {
			if (p.mod >= 0) != (all[i+1].mod >= 0) {
				p.end = roundUp(p.end+4096, 4096)
			} else {
				p.end = all[i+1].start
			}
		}
	}
	if n := len(all); n > 0 {
		if last := &all[n-1]; last.end == last.start {
			last.end = roundUp(last.start, 4096) + 4096
		}
	}
	// symbols__fixup_duplicate, in tree order.
	kept := all[:0]
	for i := range all {
		if n := len(kept); n > 0 && kept[n-1].start == all[i].start {
			// the survivor so far against the next one
			a, b := kept[n-1].symbol(), all[i].symbol()
			if !chooseFirst(&a, &b) {
				kept[n-1] = all[i]
			}
			continue
		}
		kept = append(kept, all[i])
	}
	ks.Kernel = coreTable(kept)
	byMod := map[int32][]Symbol{}
	for i := range kept {
		if k := &kept[i]; k.mod >= 0 {
			byMod[k.mod] = append(byMod[k.mod], k.symbol())
		}
	}
	for m, syms := range byMod {
		ks.Modules[mods[m]] = sortedTable(syms)
	}
	return ks, nil
}

// coreTable makes the table of the core kernel's symbols among kept (the
// ones of no module): packed when they do not overlap (the usual case)
// and their names fit packed records, else as sortedTable makes it.
func coreTable(kept []kallsym) *Table {
	n, nameLen := 0, 0
	packable := true
	for i := range kept {
		if k := &kept[i]; k.mod < 0 {
			n++
			nameLen += len(k.name)
			packable = packable && len(k.name) <= 0xffff
		}
	}
	core := make([]int32, 0, n)
	for i := range kept {
		if kept[i].mod < 0 {
			core = append(core, int32(i))
		}
	}
	bounds := func(i int) (uint64, uint64) { k := &kept[core[i]]; return k.start, k.end }
	if packable && nameLen <= 0xffffffff {
		if segs, ok := flatSegs(n, bounds); ok {
			recs := make([]byte, n*packedRecSize)
			names := make([]byte, 0, nameLen)
			for i, j := range core {
				k := &kept[j]
				names = packRecord(recs[i*packedRecSize:], names, k.start, k.end, k.name, k.bind, k.typ)
			}
			return packedTable(recs, names, segs, 0)
		}
	}
	syms := make([]Symbol, n)
	for i, j := range core {
		syms[i] = kept[j].symbol()
	}
	return sortedTable(syms)
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
	segs, ok := flatSegs(len(syms), func(i int) (uint64, uint64) { return syms[i].Start, syms[i].End })
	if !ok {
		return nil, false
	}
	return &Table{syms: syms, segs: segs}, true
}

// flatSegs returns the runs of n symbols sorted by start (bounds gives
// each one's start and end) when no two overlap; false when they are not
// sorted or overlap.
func flatSegs(n int, bounds func(i int) (uint64, uint64)) ([]seg, bool) {
	segs := make([]seg, 0, 2*n+1)
	if n > 0 {
		if s, _ := bounds(0); s > 0 {
			segs = append(segs, seg{0, -1})
		}
	}
	for i := 0; i < n; i++ {
		start, end := bounds(i)
		if end == start {
			end = start + 1 // a zero-length symbol covers its start
		}
		next := uint64(0)
		if i+1 < n {
			next, _ = bounds(i + 1)
		}
		if end < start || i+1 < n && end > next {
			return nil, false
		}
		segs = append(segs, seg{start, int32(i)})
		if end != 0 && (i+1 == n || end < next) {
			segs = append(segs, seg{end, -1})
		}
	}
	return segs, true
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
