package symbol

import (
	"debug/elf"
	"strings"
	"sync"
)

// Building an ELF DSO's table as perf's dso__load_sym does, without paying
// for perf's tree where its shape cannot change an answer, nor for the
// names and symbols no lookup asks for.
//
// perf inserts the symbols of each pass (.symtab, then .dynsym) into a
// red-black tree, fixes zero lengths and removes duplicates in tree order,
// then adds the PLT's symbols. Here the same fix-ups run on a sorted list
// of indexes into the symbols as loaded (lsym: no pointers, the name an
// offset into its string table). Where no two of the resulting symbols
// overlap, every lookup has one answer whatever the tree's shape, so the
// list is the table. Where some overlap (a zero-sized _init extended over
// the PLT, hand-written assembly with nested labels), lookups in those
// zones depend on the shape; the table marks the zones, and the first
// lookup in one rebuilds perf's tree in perf's insertion order
// (exactTable, exact.go).
//
// A symbol is made when a lookup first returns it (elfSource): its name
// cut out of the string table and demangled. The fix-ups compare names
// only to choose among duplicates of equal start and kind
// (choose_best_symbol: fewer leading underscores, then the longer name, of
// the demangled names). When the duplicates also share their end, the
// choice changes only the name, not the table's shape: it is left to the
// first lookup too (a tie). Binaries with identical-code folding have tens
// of thousands of such aliases.

// lsym is a symbol as loaded from an ELF symbol table.
type lsym struct {
	start, end uint64
	name       uint32 // offset into the string table strs[tab]
	tab        uint8
	bind, typ  uint8
	flags      uint8 // lsymPLT
}

// lsymPLT: the symbol's name is its string table's plus "@plt"
// (dso__synthesize_plt_symbols).
const lsymPLT = 1

// buildMode says how fixedTable builds a table: from the list, with
// perf's tree only in the zones of overlapping symbols (buildList, what
// perfpt does), or with the tree everywhere (buildTree), or with perf's
// tree built as symbol.c builds it, every name demangled as it is
// inserted (buildTreeEager, the tests' reference).
type buildMode int

const (
	buildList buildMode = iota
	buildTree
	buildTreeEager
)

// loadOrder is every symbol perf inserts while loading one DSO, in the
// order it inserts them: the passes, then the extra symbols. syms is not
// changed once made: the fix-ups work on indexes into it.
type loadOrder struct {
	syms    []lsym
	strs    []string            // string tables, by lsym.tab
	dm      func(string) string // demangles names (nil: none)
	groups  []int32             // where each non-empty pass starts in syms, then the extra symbols, then len(syms)
	sorted  [][]int32           // by group: its indexes sorted by start, then index
	choices []uint8             // keepFirst... (see dedupe), once fixed has run
}

// newLoadOrder collects the passes and extra symbols, whose names are in
// strs, demangled by dm.
func newLoadOrder(passes [][]lsym, extra []lsym, strs []string, dm func(string) string) *loadOrder {
	n := len(extra)
	for _, p := range passes {
		n += len(p)
	}
	lo := &loadOrder{syms: make([]lsym, 0, n), strs: strs, dm: memoized(dm)}
	add := func(p []lsym) {
		base := int32(len(lo.syms))
		lo.groups = append(lo.groups, base)
		lo.syms = append(lo.syms, p...)
		keys := sortedKeys(len(p), func(i int) uint64 { return p[i].start })
		for i := range keys {
			keys[i] += base
		}
		lo.sorted = append(lo.sorted, keys)
	}
	for _, p := range passes {
		if len(p) > 0 {
			add(p)
		}
	}
	add(extra)
	lo.groups = append(lo.groups, int32(len(lo.syms)))
	return lo
}

// memoized returns dm remembering its results (nil for nil): perf's tree
// compares the names of thousands of aliases, some many times, and the
// lookups of the list and of the tree may demangle the same names, from
// several goroutines.
func memoized(dm func(string) string) func(string) string {
	if dm == nil {
		return nil
	}
	var mu sync.Mutex
	memo := map[string]string{}
	return func(name string) string {
		mu.Lock()
		out, ok := memo[name]
		mu.Unlock()
		if !ok {
			out = dm(name)
			mu.Lock()
			memo[name] = out
			mu.Unlock()
		}
		return out
	}
}

// passes is the number of passes (the groups but the extra one).
func (lo *loadOrder) passes() int { return len(lo.sorted) - 1 }

// rawName returns symbol k's name as its table has it.
func (lo *loadOrder) rawName(k int32) string {
	s := &lo.syms[k]
	t := lo.strs[s.tab]
	n := ""
	if int(s.name) < len(t) {
		n = t[s.name:]
		if i := strings.IndexByte(n, 0); i >= 0 {
			n = n[:i]
		}
	}
	if s.flags&lsymPLT != 0 {
		n += "@plt"
	}
	return n
}

// sameRawName reports whether symbols ka and kb have the same name in
// their tables, one that choose_best_symbol keeps the first of (no "SyS"
// that arch__choose_best_symbol avoids: it could only start a demangled
// name if it is in the first bytes of the mangled one).
func (lo *loadOrder) sameRawName(ka, kb int32) bool {
	a, b := &lo.syms[ka], &lo.syms[kb]
	ta, tb := lo.strs[a.tab], lo.strs[b.tab]
	if a.flags != b.flags || int(a.name) >= len(ta) || int(b.name) >= len(tb) {
		return false
	}
	na, nb := ta[a.name:], tb[b.name:]
	i := strings.IndexByte(na, 0)
	if i < 0 {
		i = len(na)
	}
	if len(nb) < i || nb[:i] != na[:i] || len(nb) > i && nb[i] != 0 {
		return false
	}
	return !strings.Contains(na[:min(i, 64)], "SyS")
}

// symbol makes symbol k, ending at end, its name still to be demangled.
func (lo *loadOrder) symbol(k int32, end uint64) Symbol {
	s := &lo.syms[k]
	sym := Symbol{Start: s.start, End: end, Name: lo.rawName(k), Bind: elf.SymBind(s.bind), Type: elf.SymType(s.typ)}
	if lo.dm != nil {
		sym.pending = pendingName
		if s.flags&lsymPLT != 0 {
			sym.pending = pendingPLT
		}
	}
	return sym
}

// fixedTable makes the table of the symbols of lo as perf's dso__load_sym
// does: each pass inserted, then symbols__fixup_end and
// symbols__fixup_duplicate, then the extra symbols (the PLT's) without
// fix-ups. mode is buildList but in the tests.
func fixedTable(lo *loadOrder, mode buildMode) *Table {
	ex := &exactTable{lo: lo}
	if mode == buildTreeEager {
		return ex.reference()
	}
	ties := &tieSet{lo: lo}
	idx, end, tieOf := lo.fixed(ties)
	if mode == buildTree {
		return ex.table()
	}
	src := &elfSource{lo: lo, ties: ties, idx: idx, end: make([]uint64, len(idx)), tie: make([]int32, len(idx))}
	for i, k := range idx {
		src.end[i], src.tie[i] = end[k], tieOf[k]
	}
	segs, zones, ok := zonedSegs(len(idx), src.bounds)
	if !ok {
		return ex.table()
	}
	t := &Table{segs: segs, src: newLazySyms(src)}
	if zones > 0 {
		t.exact = ex
	}
	return t
}

// fixed runs the passes' fix-ups on a sorted list of indexes and returns
// the symbols kept, in tree order, with the extra ones merged in; end
// holds their ends, tieOf the ties they stand for (by index into syms).
func (lo *loadOrder) fixed(ties *tieSet) (idx []int32, end []uint64, tieOf []int32) {
	end = make([]uint64, len(lo.syms))
	for i := range lo.syms {
		end[i] = lo.syms[i].end
	}
	tieOf = make([]int32, len(lo.syms))
	for g, keys := range lo.sorted {
		idx = lo.merge(idx, keys)
		if g == lo.passes() {
			break // the extra symbols: no fix-ups
		}
		// symbols__fixup_end
		for i := 0; i+1 < len(idx); i++ {
			if k := idx[i]; end[k] == lo.syms[k].start {
				end[k] = lo.syms[idx[i+1]].start
			}
		}
		if n := len(idx); n > 0 {
			if k := idx[n-1]; end[k] == lo.syms[k].start {
				end[k] = roundUp(lo.syms[k].start, 4096) + 4096
			}
		}
		idx = lo.dedupe(idx, end, tieOf, ties)
	}
	return idx, end, tieOf
}

// merge inserts the sorted indexes keys into the sorted idx as perf's
// symbols__insert inserts them one by one: by start, after those of equal
// start already there (which have smaller indexes).
func (lo *loadOrder) merge(idx, keys []int32) []int32 {
	out := make([]int32, 0, len(idx)+len(keys))
	i, j := 0, 0
	for i < len(idx) && j < len(keys) {
		if lo.syms[keys[j]].start < lo.syms[idx[i]].start {
			out = append(out, keys[j])
			j++
		} else {
			out = append(out, idx[i])
			i++
		}
	}
	out = append(out, idx[i:]...)
	return append(out, keys[j:]...)
}

// The choices symbols__fixup_duplicate makes between a symbol and the
// next of equal start, in the order it makes them: the list's fix-ups
// record them, perf's tree (exactTable) makes the same ones in the same
// order and reads them back, but for ties that change its shape.
const (
	keepFirst  = iota // the first (erase the next)
	keepSecond        // the next
	keepTie           // by names that differ, for symbols of equal end and kind
)

// dedupe is symbols__fixup_duplicate on the sorted idx; it returns the
// kept ones, in place. Duplicates that choose_best_symbol can only tell
// apart by names that differ, and that share their end, become a tie
// (tieOf of the one kept), chosen among on its first lookup: whichever
// wins, the table has the same shape.
func (lo *loadOrder) dedupe(idx []int32, end []uint64, tieOf []int32, ties *tieSet) []int32 {
	kept := idx[:0]
	for _, k := range idx {
		n := len(kept)
		if n == 0 || lo.syms[kept[n-1]].start != lo.syms[k].start {
			kept = append(kept, k)
			continue
		}
		ka := kept[n-1]
		d := lo.decide(ka, end[ka], tieOf[ka], k, end[k], func() Symbol {
			// the tie is settled: its winner alone now
			s, win := ties.choose(tieOf[ka], end[ka])
			ties.groups[tieOf[ka]-1] = []int32{win}
			return s
		})
		switch d {
		case keepSecond:
			kept[n-1] = k
		case keepTie:
			tieOf[ka] = ties.add(tieOf[ka], ka, k)
		}
		lo.choices = append(lo.choices, d)
	}
	return kept
}

// decide is choose_best_symbol between symbol ka, ending at ea and
// standing for tie ta when not 0, and the next symbol kb, ending at eb:
// keepFirst, keepSecond, or keepTie when only names that differ decide
// between symbols of equal end and kind and names are demangled. settle
// returns tie ta's winner.
func (lo *loadOrder) decide(ka int32, ea uint64, ta int32, kb int32, eb uint64, settle func() Symbol) uint8 {
	a, b := &lo.syms[ka], &lo.syms[kb]
	switch chooseByKind(ea-a.start, eb-b.start, elf.SymBind(a.bind), elf.SymBind(b.bind)) {
	case 1:
		return keepFirst
	case -1:
		return keepSecond
	}
	if ta == 0 && lo.sameRawName(ka, kb) {
		return keepFirst // equal names demangle alike
	}
	if ea == eb && lo.dm != nil {
		return keepTie
	}
	var sa Symbol
	if ta != 0 {
		sa = settle()
	} else {
		sa = lo.symbol(ka, ea)
	}
	sb := lo.symbol(kb, eb)
	if chooseFirstNamed(&sa, &sb, lo.dm) {
		return keepFirst
	}
	return keepSecond
}

// tieSet holds the candidates of ties: symbols of equal start, end and
// kind among which perf's choose_best_symbol decides by their demangled
// names, a choice left to the first lookup. A tie is numbered from 1;
// its candidates are indexes into lo.syms, in tree order.
type tieSet struct {
	lo     *loadOrder
	groups [][]int32
}

// add appends candidate k to tie (0: a new tie of first and k) and
// returns the tie.
func (ts *tieSet) add(tie, first, k int32) int32 {
	if tie == 0 {
		ts.groups = append(ts.groups, []int32{first})
		tie = int32(len(ts.groups))
	}
	ts.groups[tie-1] = append(ts.groups[tie-1], k)
	return tie
}

// choose returns the symbol symbols__fixup_duplicate keeps of tie's
// candidates, which end at end, with its name demangled, and its index.
func (ts *tieSet) choose(tie int32, end uint64) (Symbol, int32) {
	g := ts.groups[tie-1]
	best, win := ts.lo.symbol(g[0], end), g[0]
	for _, k := range g[1:] {
		c := ts.lo.symbol(k, end)
		if !chooseFirstNamed(&best, &c, ts.lo.dm) {
			best, win = c, k
		}
	}
	best.resolveName(ts.lo.dm)
	return best, win
}

// elfSource makes the symbols of an ELF table on their first lookup
// (a symSource): symbol i is lo's idx[i], ending at end[i], or tie tie[i]'s
// winner.
type elfSource struct {
	lo   *loadOrder
	ties *tieSet
	idx  []int32
	end  []uint64
	tie  []int32
}

func (e *elfSource) len() int { return len(e.idx) }

func (e *elfSource) bounds(i int) (uint64, uint64) { return e.lo.syms[e.idx[i]].start, e.end[i] }

func (e *elfSource) symbol(i int32) Symbol {
	if e.tie[i] != 0 {
		s, _ := e.ties.choose(e.tie[i], e.end[i])
		return s
	}
	s := e.lo.symbol(e.idx[i], e.end[i])
	s.resolveName(e.lo.dm)
	return s
}

// zonedSegs returns the runs of n symbols in tree order (their starts and
// ends given by bounds) as the list answers them: runs covered by one
// symbol or none; runs where symbols overlap are marked segZone (perf's
// tree gives the same answer outside them whatever its shape: a search for
// an address that only one symbol holds cannot be led astray but by a
// symbol holding the start of another), and counted. It reports false for
// a symbol that ends before it starts.
func zonedSegs(n int, bounds func(int) (uint64, uint64)) (segs []seg, zones int, ok bool) {
	segs = make([]seg, 0, 2*n+1)
	if n > 0 {
		if s, _ := bounds(0); s > 0 {
			segs = append(segs, seg{0, segNone})
		}
	}
	// cover returns the end of the addresses a symbol holds (a
	// zero-length one holds its start); top: to the end of the address
	// space.
	cover := func(s, e uint64) (uint64, bool) {
		if e == s {
			e++
		}
		return e, e == 0
	}
	for i := 0; i < n; {
		s, e := bounds(i)
		if e < s {
			return nil, 0, false
		}
		hi, top := cover(s, e)
		j := i
		for j+1 < n {
			s2, e2 := bounds(j + 1)
			if !top && s2 >= hi {
				break
			}
			j++
			if e2 < s2 {
				return nil, 0, false
			}
			if c, tp := cover(s2, e2); tp {
				top = true
			} else if c > hi {
				hi = c
			}
		}
		if j == i {
			segs = append(segs, seg{s, int32(i)})
		} else {
			segs = append(segs, seg{s, segZone})
			zones++
		}
		if !top {
			if j+1 == n {
				segs = append(segs, seg{hi, segNone})
			} else if s2, _ := bounds(j + 1); hi < s2 {
				segs = append(segs, seg{hi, segNone})
			}
		}
		i = j + 1
	}
	return segs, zones, true
}

// sortedKeys returns the indexes 0..n-1 in the order of a stable sort by
// start: a radix sort of the starts, a byte at a time from the lowest,
// skipping the bytes all starts share.
func sortedKeys(n int, start func(int) uint64) []int32 {
	out := make([]int32, n)
	keys := make([]uint64, n)
	sorted := true
	var or, and uint64 = 0, ^uint64(0)
	for i := range out {
		out[i] = int32(i)
		st := start(i)
		keys[i] = st
		or, and = or|st, and&st
		if i > 0 && st < keys[i-1] {
			sorted = false
		}
	}
	if sorted {
		return out
	}
	tmpK, tmpI := make([]uint64, n), make([]int32, n)
	for shift := uint(0); shift < 64; shift += 8 {
		if (or^and)>>shift&0xff == 0 {
			continue // every start has this byte
		}
		var count [257]int
		for _, k := range keys {
			count[k>>shift&0xff+1]++
		}
		for b := 1; b < len(count); b++ {
			count[b] += count[b-1]
		}
		for i, k := range keys {
			b := k >> shift & 0xff
			tmpK[count[b]], tmpI[count[b]] = k, out[i]
			count[b]++
		}
		keys, tmpK = tmpK, keys
		out, tmpI = tmpI, out
	}
	return out
}

// exactTable is perf's tree for a DSO, rebuilt on first use from the
// symbols in perf's insertion order (exact.go).
type exactTable struct {
	once sync.Once
	lo   *loadOrder
	t    *Table
}
