package symbol

import (
	"slices"
	"sync"
)

// Building a DSO's table as perf's dso__load_sym does, without paying for
// perf's tree where its shape cannot change an answer.
//
// perf inserts the symbols of each pass (.symtab, then .dynsym) into a
// red-black tree, fixes zero lengths and removes duplicates in tree order,
// then adds the PLT's symbols. Here the same fix-ups run on a sorted list.
// Where no two of the resulting symbols overlap, every lookup has one
// answer whatever the tree's shape, so the list is the table. Where some
// overlap (a zero-sized _init extended over the PLT, hand-written assembly
// with nested labels), lookups in those zones depend on the shape; the
// table marks the zones, and the first lookup in one rebuilds perf's tree
// in perf's insertion order (exactTable).
//
// Demangling is lazy: a name is demangled when a lookup first returns its
// symbol. The fix-ups compare names only to choose among duplicates of
// equal start and kind (choose_best_symbol: fewer leading underscores,
// then the longer name, of the demangled names). When the duplicates also
// share their end, the choice changes only the name, not the table's
// shape: it is left to the first lookup too (a tie). Binaries with
// identical-code folding have tens of thousands of such aliases.

// fixedTable inserts each pass of symbols as dso__load_sym does, running
// symbols__fixup_end and symbols__fixup_duplicate after every pass that
// added any, then the extra symbols (the PLT's) without fix-ups; dm
// demangles names (nil: none). mode is buildList but in the tests.
func fixedTable(passes [][]Symbol, extra []Symbol, dm func(string) string, mode buildMode) *Table {
	lo := newLoadOrder(passes, extra)
	ex := &exactTable{lo: lo, dm: dm}
	switch mode {
	case buildTreeEager:
		ex.eager = true
		return ex.table()
	}
	ties := &tieSet{arena: lo.syms}
	idx, end, tieOf := lo.fixed(dm, ties)
	if mode == buildTree {
		return ex.table()
	}
	syms := make([]Symbol, len(idx))
	for i, k := range idx {
		syms[i] = lo.syms[k]
		syms[i].End = end[k]
		syms[i].tie = tieOf[k]
	}
	t, zones, ok := zonedTable(syms)
	if !ok {
		return ex.table()
	}
	t.setLazy(dm, ties)
	if zones > 0 {
		t.exact = ex
	}
	return t
}

// buildMode says how fixedTable builds a table: from the list, with
// perf's tree only in the zones of overlapping symbols (buildList, what
// perfpt does), or with the tree everywhere (buildTree), or with the tree
// and every choice among duplicates made at once by their names
// (buildTreeEager, the tests' reference).
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
	syms    []Symbol
	groups  []int32   // where each non-empty pass starts in syms, then the extra symbols, then len(syms)
	sorted  [][]int32 // by group: its indexes sorted by start, then index
	choices []uint8   // keepFirst... (see dedupe), once fixed has run
}

func newLoadOrder(passes [][]Symbol, extra []Symbol) *loadOrder {
	n := len(extra)
	for _, p := range passes {
		n += len(p)
	}
	lo := &loadOrder{syms: make([]Symbol, 0, n)}
	add := func(p []Symbol) {
		lo.groups = append(lo.groups, int32(len(lo.syms)))
		base := int32(len(lo.syms))
		lo.syms = append(lo.syms, p...)
		keys := sortedKeys(p)
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

// passes is the number of passes (the groups but the extra one).
func (lo *loadOrder) passes() int { return len(lo.sorted) - 1 }

// fixed runs the passes' fix-ups on a sorted list of indexes and returns
// the symbols kept, in tree order, with the extra ones merged in; end
// holds their ends, tieOf the ties they stand for (by index into syms).
func (lo *loadOrder) fixed(dm func(string) string, ties *tieSet) (idx []int32, end []uint64, tieOf []int32) {
	end = make([]uint64, len(lo.syms))
	for i := range lo.syms {
		end[i] = lo.syms[i].End
	}
	tieOf = make([]int32, len(lo.syms))
	for g, keys := range lo.sorted {
		idx = lo.merge(idx, keys)
		if g == lo.passes() {
			break // the extra symbols: no fix-ups
		}
		// symbols__fixup_end
		for i := 0; i+1 < len(idx); i++ {
			if k := idx[i]; end[k] == lo.syms[k].Start {
				end[k] = lo.syms[idx[i+1]].Start
			}
		}
		if n := len(idx); n > 0 {
			if k := idx[n-1]; end[k] == lo.syms[k].Start {
				end[k] = roundUp(lo.syms[k].Start, 4096) + 4096
			}
		}
		idx = lo.dedupe(idx, end, tieOf, dm, ties)
	}
	return idx, end, tieOf
}

// merge inserts the sorted indexes keys into the sorted idx as perf's
// symbols__insert inserts them one by one: by start, after those of equal
// start already there (which have smaller indexes).
func (lo *loadOrder) merge(idx, keys []int32) []int32 {
	if len(idx) == 0 {
		return slices.Clone(keys)
	}
	out := make([]int32, 0, len(idx)+len(keys))
	i, j := 0, 0
	for i < len(idx) && j < len(keys) {
		if lo.syms[keys[j]].Start < lo.syms[idx[i]].Start {
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

// dedupe is symbols__fixup_duplicate (see Table.fixupDuplicate) on the
// sorted idx; it returns the kept ones, in place. Duplicates that
// choose_best_symbol can only tell apart by names that differ, and that
// share their end, become a tie (tieOf of the one kept), chosen among on
// its first lookup: whichever wins, the table has the same shape.
func (lo *loadOrder) dedupe(idx []int32, end []uint64, tieOf []int32, dm func(string) string, ties *tieSet) []int32 {
	kept := idx[:0]
	sym := func(k int32) Symbol {
		s := lo.syms[k]
		s.End, s.tie = end[k], tieOf[k]
		return s
	}
	for _, k := range idx {
		n := len(kept)
		if n == 0 || lo.syms[kept[n-1]].Start != lo.syms[k].Start {
			kept = append(kept, k)
			continue
		}
		ka := kept[n-1]
		a, b := sym(ka), sym(k)
		d := keepFirst
		switch r := chooseByKind(&a, &b); {
		case r > 0:
		case r < 0:
			d = keepSecond
		case sameName(&a, &b):
		case a.End == b.End && dm != nil:
			tieOf[ka] = ties.add(tieOf[ka], ka, k)
			d = keepTie
		default:
			if a.tie != 0 {
				var win int32
				a, win = ties.choose(a.tie, a.End, dm)
				// settled: the tie is its winner alone now
				ties.groups[tieOf[ka]-1] = []int32{win}
			}
			if !chooseFirstNamed(&a, &b, dm) {
				d = keepSecond
			}
		}
		if d == keepSecond {
			kept[n-1] = k
		}
		lo.choices = append(lo.choices, uint8(d))
	}
	return kept
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

// tieSet holds the candidates of ties: symbols of equal start, end and
// kind among which perf's choose_best_symbol decides by their demangled
// names, a choice left to the first lookup. A tie is numbered from 1;
// its candidates are indexes into arena, in tree order.
type tieSet struct {
	arena  []Symbol
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
func (ts *tieSet) choose(tie int32, end uint64, dm func(string) string) (Symbol, int32) {
	g := ts.groups[tie-1]
	best, win := ts.arena[g[0]], g[0]
	best.End, best.tie = end, 0
	for _, k := range g[1:] {
		c := ts.arena[k]
		c.End, c.tie = end, 0
		if !chooseFirstNamed(&best, &c, dm) {
			best, win = c, k
		}
	}
	best.resolveName(dm)
	return best, win
}

// zonedTable makes the table of symbols in tree order that may overlap:
// runs covered by one symbol or none are answered from the list (perf's
// tree gives the same answer there whatever its shape: a search for an
// address that only one symbol holds cannot be led astray but by a symbol
// holding the start of another), runs where symbols overlap are marked
// segZone; it returns how many. It reports false for a symbol that ends
// before it starts.
func zonedTable(syms []Symbol) (t *Table, zones int, ok bool) {
	t = &Table{syms: syms, segs: make([]seg, 0, 2*len(syms)+2)}
	if len(syms) > 0 && syms[0].Start > 0 {
		t.segs = append(t.segs, seg{0, segNone})
	}
	// cover returns the end of the addresses s holds (a zero-length
	// symbol holds its start); top: up to the end of the address space.
	cover := func(s *Symbol) (end uint64, top bool) {
		end = s.End
		if end == s.Start {
			end++
		}
		return end, end == 0
	}
	for i := 0; i < len(syms); {
		if syms[i].End < syms[i].Start {
			return nil, 0, false
		}
		hi, top := cover(&syms[i])
		j := i
		for j+1 < len(syms) && (top || syms[j+1].Start < hi) {
			j++
			if syms[j].End < syms[j].Start {
				return nil, 0, false
			}
			if e, tp := cover(&syms[j]); tp {
				top = true
			} else if e > hi {
				hi = e
			}
		}
		if j == i {
			t.segs = append(t.segs, seg{syms[i].Start, int32(i)})
		} else {
			t.segs = append(t.segs, seg{syms[i].Start, segZone})
			zones++
		}
		if !top && (j+1 == len(syms) || hi < syms[j+1].Start) {
			t.segs = append(t.segs, seg{hi, segNone})
		}
		i = j + 1
	}
	return t, zones, true
}

// exactTable is perf's tree for a DSO, rebuilt on first use from the
// symbols in perf's insertion order.
type exactTable struct {
	once  sync.Once
	lo    *loadOrder
	dm    func(string) string
	eager bool // every choice made by names at once, no ties, no ranks (the tests' reference)
	t     *Table
}

func (e *exactTable) table() *Table {
	e.once.Do(func() {
		lo := e.lo
		t := &Table{tree: newRBTree()}
		tr := t.tree
		// The tree's symbols are a copy of the load order's (their
		// ends change), nodes refer to them by index.
		tr.syms = slices.Clone(lo.syms)
		tr.n = make([]rbNode, 0, len(lo.syms))
		var ties *tieSet
		insert := func(g int) {
			for k := lo.groups[g]; k < lo.groups[g+1]; k++ {
				tr.insertIndex(k)
			}
		}
		if !e.eager {
			ties = &tieSet{arena: lo.syms}
			// Every symbol to insert is known: rank them in the
			// tree's order (start, then insertion) for insertRanked.
			ranks := make([]int32, len(lo.syms))
			var all []int32
			for _, keys := range lo.sorted {
				all = lo.merge(all, keys)
			}
			for r, k := range all {
				ranks[k] = int32(r)
			}
			tr.ranked = newRankSet(len(lo.syms))
			insert = func(g int) {
				for k := lo.groups[g]; k < lo.groups[g+1]; k++ {
					tr.insertRanked(k, ranks[k])
				}
			}
		}
		var choices []uint8
		if !e.eager {
			choices = lo.choices
		}
		for g := 0; g < lo.passes(); g++ {
			insert(g)
			t.fixupEnd()
			choices = t.fixupDuplicate(e.dm, ties, choices)
		}
		insert(lo.passes())
		t.finish()
		t.setLazy(e.dm, ties)
		e.t = t
		e.lo = nil
	})
	return e.t
}

// sortedKeys returns the indexes of syms in the order of a stable sort
// by start: a radix sort of the starts, a byte at a time from the lowest,
// skipping the bytes all starts share.
func sortedKeys(syms []Symbol) []int32 {
	out := make([]int32, len(syms))
	sorted := true
	var or, and uint64 = 0, ^uint64(0)
	for i := range syms {
		out[i] = int32(i)
		st := syms[i].Start
		or, and = or|st, and&st
		if i > 0 && st < syms[i-1].Start {
			sorted = false
		}
	}
	if sorted {
		return out
	}
	keys := make([]uint64, len(syms))
	for i := range syms {
		keys[i] = syms[i].Start
	}
	tmpK, tmpI := make([]uint64, len(keys)), make([]int32, len(out))
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
