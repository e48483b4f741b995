package symbol

import (
	"cmp"
	"debug/elf"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Symbol is one entry of a Table. Start and End are in the DSO's address
// space (see the package comment); End is exclusive, and equals Start only
// for a zero-length symbol that perf could not extend.
type Symbol struct {
	Start, End uint64
	Name       string
	// Mangled is the name as the symbol table has it when Name is its
	// demangled form, else "".
	Mangled string
	Bind    elf.SymBind
	Type    elf.SymType

	// pending says how Name is still to be demangled (lazily, on the
	// first lookup that returns the symbol): pendingNone, pendingName,
	// or pendingPLT (Name is a name plus "@plt", demangled without it).
	pending uint8
	// tie, when not 0, says that perf's choice among symbols of equal
	// start, end and kind is still to be made by their names: the
	// candidates are the table's ties[tie-1] (see build.go).
	tie int32
}

const (
	pendingNone = iota
	pendingName
	pendingPLT
)

// resolveName demangles s's name now (while its table is being built: no
// other goroutine sees it yet), as perf names a symbol when it creates it.
func (s *Symbol) resolveName(dm func(string) string) {
	if s.pending == pendingNone || dm == nil {
		return
	}
	raw := s.Name
	switch s.pending {
	case pendingName:
		if n := dm(raw); n != raw {
			s.Name, s.Mangled = n, raw
		}
	case pendingPLT:
		s.Name = dm(raw[:len(raw)-len("@plt")]) + "@plt"
	}
	s.pending = pendingNone
}

// Table is the symbol table of one DSO. The zero value is an empty table;
// a nil *Table is empty too.
type Table struct {
	syms []Symbol // in address order
	// segs partitions the address space into runs with one answer each,
	// computed from perf's tree so that Find needs one binary search.
	segs []seg
	tree *rbTree // only while building
	// lazy demangles the names of symbols on their first lookup; nil
	// when every name is final.
	lazy *lazyNames
	// exact, when set, answers lookups in the runs marked segZone, where
	// symbols overlap and perf's tree decides (see build.go).
	exact *exactTable
	// packed, when set, holds the symbols instead of syms (packed.go).
	packed *packedSyms
}

// lazyNames demangles a table's names one by one as lookups return them:
// a DSO has thousands of C++ names of which a recording prints a few, and
// demangling costs microseconds each. Lookups may run concurrently (the
// PT decoder's workers share tables): done[i] is read atomically, and a
// name is written once, under mu, before done[i] is set.
type lazyNames struct {
	dm   func(string) string
	done []uint32
	ties *tieSet // the candidates of the symbols whose tie is set
	mu   sync.Mutex
}

// setLazy makes the table demangle its pending names with dm on lookup
// (dm nil: names stay as they are) and choose among the candidates of
// its ties.
func (t *Table) setLazy(dm func(string) string, ties *tieSet) {
	n := 0
	for i := range t.syms {
		s := &t.syms[i]
		if s.pending == pendingNone && s.tie == 0 {
			continue
		}
		if dm == nil {
			s.pending = pendingNone
		}
		if s.pending != pendingNone || s.tie != 0 {
			n++
		}
	}
	if n == 0 {
		return
	}
	done := make([]uint32, len(t.syms))
	for i := range t.syms {
		if s := &t.syms[i]; s.pending == pendingNone && s.tie == 0 {
			done[i] = 1
		}
	}
	t.lazy = &lazyNames{dm: dm, done: done, ties: ties}
}

// at returns symbol i with its final name.
func (t *Table) at(i int32) *Symbol {
	if t.packed != nil {
		return t.packed.at(i)
	}
	s := &t.syms[i]
	if l := t.lazy; l != nil && atomic.LoadUint32(&l.done[i]) == 0 {
		l.mu.Lock()
		if atomic.LoadUint32(&l.done[i]) == 0 {
			cp := *s
			if cp.tie != 0 {
				cp, _ = l.ties.choose(cp.tie, cp.End, l.dm)
			}
			cp.resolveName(l.dm)
			*s = cp
			atomic.StoreUint32(&l.done[i], 1)
		}
		l.mu.Unlock()
	}
	return s
}

type seg struct {
	from uint64 // first address of the run
	sym  int32  // index into syms, or segNone or segZone
}

const (
	segNone = -1 // no symbol
	segZone = -2 // overlapping symbols: ask the exact table
)

// Len returns the number of symbols.
func (t *Table) Len() int {
	if t == nil {
		return 0
	}
	if t.exact != nil {
		return t.exact.table().Len()
	}
	if t.packed != nil {
		return t.packed.len()
	}
	return len(t.syms)
}

// Symbols returns the symbols in address order, every name final; the
// slice must not be modified.
func (t *Table) Symbols() []Symbol {
	if t == nil {
		return nil
	}
	if t.exact != nil {
		return t.exact.table().Symbols()
	}
	if p := t.packed; p != nil {
		syms := make([]Symbol, p.len())
		for i := range syms {
			syms[i] = *p.at(int32(i))
		}
		return syms
	}
	if t.lazy != nil {
		for i := range t.syms {
			t.at(int32(i))
		}
	}
	return t.syms
}

// Find returns the symbol perf's symbols__find returns for addr, or nil.
func (t *Table) Find(addr uint64) *Symbol {
	if t == nil || len(t.segs) == 0 {
		return nil
	}
	s := t.segs
	i := sort.Search(len(s), func(i int) bool { return s[i].from > addr }) - 1
	if i < 0 {
		return nil
	}
	switch s[i].sym {
	case segNone:
		return nil
	case segZone:
		return t.exact.table().Find(addr)
	}
	return t.at(s[i].sym)
}

// FindRange is Find that also returns the address range [lo, hi) over
// which the answer stays the same.
func (t *Table) FindRange(addr uint64) (sym *Symbol, lo, hi uint64) {
	if t == nil || len(t.segs) == 0 {
		return nil, 0, ^uint64(0)
	}
	s := t.segs
	l, h := 0, len(s)
	for l < h {
		m := int(uint(l+h) >> 1)
		if s[m].from <= addr {
			l = m + 1
		} else {
			h = m
		}
	}
	i := l - 1
	hi = ^uint64(0)
	if l < len(s) {
		hi = s[l].from
	}
	if i < 0 {
		return nil, 0, hi
	}
	lo = s[i].from
	switch s[i].sym {
	case segNone:
	case segZone:
		var elo, ehi uint64
		sym, elo, ehi = t.exact.table().FindRange(addr)
		lo, hi = max(lo, elo), min(hi, ehi)
	default:
		sym = t.at(s[i].sym)
	}
	return sym, lo, hi
}

// Offset returns the "+0x..." offset perf prints for addr in s
// (__symbol__fprintf_symname_offs); mapStart is the map's start address,
// used only in perf's odd case of an address at or past the symbol's end.
func (s *Symbol) Offset(addr, mapStart uint64) uint64 {
	if addr < s.End {
		return addr - s.Start
	}
	return addr - mapStart - s.Start
}

func (t *Table) insert(add []Symbol) {
	if t.tree == nil {
		t.tree = newRBTree()
	}
	for _, s := range add {
		t.tree.insert(s)
	}
}

// fixupEnd mirrors symbols__fixup_end for user-space DSOs: a zero-length
// symbol ends where the next one starts, and a zero-length last symbol
// ends one page past its page-rounded start.
func (t *Table) fixupEnd() {
	tr := t.tree
	prev := tr.first()
	if prev == nilNode {
		return
	}
	for x := tr.next(prev); x != nilNode; x = tr.next(x) {
		if p := &tr.n[prev]; p.end == p.start {
			tr.setEnd(prev, tr.n[x].start)
		}
		prev = x
	}
	if last := &tr.n[prev]; last.end == last.start {
		tr.setEnd(prev, roundUp(last.start, 4096)+4096)
	}
}

// fixupDuplicate mirrors symbols__fixup_duplicate: of the symbols sharing a
// start address, only the one choose_best_symbol prefers is kept. Their
// names are demangled by dm first (perf compares the names it made), but
// only when the choice changes the tree: when two symbols of equal start,
// end and kind are told apart by their names only, and erasing either
// leaves a tree of the same shape (see tieNeutral), the survivor becomes
// a tie among them, added to ties, chosen on its first lookup. ties nil:
// every choice is made now. choices, when not empty, are the choices
// made before in the same order (keepFirst...), instead of comparing the
// symbols again; fixupDuplicate returns those it did not read.
func (t *Table) fixupDuplicate(dm func(string) string, ties *tieSet, choices []uint8) []uint8 {
	tr := t.tree
	cur := tr.first()
	for cur != nilNode {
		nx := tr.next(cur)
		if nx == nilNode {
			break
		}
		if tr.n[cur].start != tr.n[nx].start {
			cur = nx
			continue
		}
		a, b := tr.sym(cur), tr.sym(nx)
		d := keepFirst
		if len(choices) > 0 {
			d, choices = int(choices[0]), choices[1:]
		} else {
			switch r := chooseByKind(a, b); {
			case r < 0:
				d = keepSecond
			case r > 0, sameName(a, b):
			case a.End == b.End && dm != nil:
				d = keepTie
			default:
				if a.tie != 0 {
					a = tr.settle(cur, ties, dm)
				}
				if !chooseFirstNamed(a, b, dm) {
					d = keepSecond
				}
			}
		}
		if d == keepTie {
			if ties != nil && tr.tieNeutral(cur, nx) {
				a.tie = ties.add(a.tie, tr.n[cur].sym, tr.n[nx].sym)
				d = keepFirst
			} else {
				if a.tie != 0 {
					a = tr.settle(cur, ties, dm)
				}
				d = keepSecond
				if chooseFirstNamed(a, b, dm) {
					d = keepFirst
				}
			}
		}
		if d == keepFirst {
			tr.erase(nx)
		} else {
			tr.erase(cur)
			cur = nx
		}
	}
	return choices
}

// settle makes the choice of node x's tie: its winner takes the node.
func (t *rbTree) settle(x int32, ties *tieSet, dm func(string) string) *Symbol {
	s := t.sym(x)
	w, win := ties.choose(s.tie, s.End, dm)
	t.n[x].sym = win
	t.syms[win] = w
	return &t.syms[win]
}

// tieNeutral reports whether erasing node x or its successor y, whose
// keys are equal, leaves trees of the same shape and colours (as keys
// see them) under lib/rbtree.c's rb_erase. It does when x has a right
// child (y is then the leftmost node under it and takes x's place when x
// is erased, with x's colour, as x keeps it when y is erased), and when
// neither has one (y's left subtree is then x alone, red, which takes
// y's place and colour when y is erased). Only when x has no right child
// and its ancestor y has one does erasing y bring y's successor up
// instead.
func (t *rbTree) tieNeutral(x, y int32) bool {
	return t.n[x].right != nilNode || t.n[y].right == nilNode
}

// finish flattens the tree into syms and segs: runs held by one symbol
// or none come from the list of symbols in tree order, the runs where
// symbols overlap from perf's tree.
func (t *Table) finish() {
	tr := t.tree
	t.tree = nil
	if tr == nil || tr.root == nilNode {
		return
	}
	nodes := make([]int32, 0, len(tr.syms))
	t.syms = make([]Symbol, 0, len(tr.n)-len(tr.free))
	for x := tr.first(); x != nilNode; x = tr.next(x) {
		nodes = append(nodes, x)
		t.syms = append(t.syms, *tr.sym(x))
	}
	idx := make([]int32, len(tr.n))
	for i, x := range nodes {
		idx[x] = int32(i)
	}
	at := func(a uint64) int32 {
		if x := tr.find(a); x != nilNode {
			return idx[x]
		}
		return segNone
	}
	add := func(from uint64, r int32) {
		if n := len(t.segs); n == 0 || t.segs[n-1].sym != r {
			t.segs = append(t.segs, seg{from, r})
		}
	}
	zt, _, ok := zonedTable(t.syms)
	if !ok {
		// A symbol that ends before it starts: every boundary asked
		// of the tree.
		t.segs = treeSegs(t.syms, 0, 0, true, at, nil)
		return
	}
	for k, sg := range zt.segs {
		if sg.sym != segZone {
			add(sg.from, sg.sym)
			continue
		}
		// A zone: from sg.from to the next run (or the end of the
		// address space), holding the symbols that start in it.
		to, top := uint64(0), true
		if k+1 < len(zt.segs) {
			to, top = zt.segs[k+1].from, false
		}
		i, _ := slices.BinarySearchFunc(t.syms, sg.from, func(s Symbol, a uint64) int { return cmp.Compare(s.Start, a) })
		j := i
		for j < len(t.syms) && (top || t.syms[j].Start < to) {
			j++
		}
		t.segs = treeSegs(t.syms[i:j], sg.from, to, top, at, t.segs)
	}
}

// treeSegs appends to segs the runs of [from, to) (to the end of the
// address space with top) as perf's tree answers them (at), from the
// boundaries of syms, the symbols that start there.
func treeSegs(syms []Symbol, from, to uint64, top bool, at func(uint64) int32, segs []seg) []seg {
	bounds := make([]uint64, 0, 3*len(syms)+1)
	bounds = append(bounds, from)
	for _, s := range syms {
		bounds = append(bounds, s.Start, s.End, s.End+1)
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	add := func(b uint64, r int32) {
		if n := len(segs); n == 0 || segs[n-1].sym != r {
			segs = append(segs, seg{b, r})
		}
	}
	for i, b := range bounds {
		if b < from || !top && b >= to {
			continue
		}
		add(b, at(b))
		// Between two boundaries the answer is constant.
		if b+1 != 0 && (top || b+1 < to) && (i+1 == len(bounds) || b+1 < bounds[i+1]) {
			add(b+1, at(b+1))
		}
	}
	return segs
}

func roundUp(x, to uint64) uint64 { return (x + to - 1) / to * to }

// chooseFirstNamed is chooseFirst on symbols whose names may still be
// pending: they are demangled (by dm) only when the choice comes down to
// names that differ, since equal names demangle alike (an ELF symbol in
// both .symtab and .dynsym, the usual duplicate).
func chooseFirstNamed(a, b *Symbol, dm func(string) string) bool {
	if r := chooseByKind(a, b); r != 0 {
		return r > 0
	}
	if sameName(a, b) {
		// Equal names demangle alike; only the "SyS" rule could
		// still prefer b.
		return true
	}
	a.resolveName(dm)
	b.resolveName(dm)
	return chooseFirst(a, b)
}

// sameName reports whether choose_best_symbol, undecided by kind, keeps a
// over b because their names are equal (and demangle alike), with no
// need to demangle them.
func sameName(a, b *Symbol) bool {
	return a.tie == 0 && a.Name == b.Name && a.pending == b.pending && !strings.Contains(a.Name, "SyS")
}

// chooseByKind is the part of choose_best_symbol that does not look at
// names: 1 prefers a, -1 b, 0 undecided.
func chooseByKind(a, b *Symbol) int {
	la, lb := a.End-a.Start, b.End-b.Start
	if lb == 0 && la > 0 {
		return 1
	}
	if la == 0 && lb > 0 {
		return -1
	}
	wa, wb := a.Bind == elf.STB_WEAK, b.Bind == elf.STB_WEAK
	if wb && !wa {
		return 1
	}
	if wa && !wb {
		return -1
	}
	ga, gb := a.Bind == elf.STB_GLOBAL, b.Bind == elf.STB_GLOBAL
	if ga && !gb {
		return 1
	}
	if gb && !ga {
		return -1
	}
	return 0
}

// chooseFirst reports whether perf's choose_best_symbol prefers a over b.
func chooseFirst(a, b *Symbol) bool {
	la, lb := a.End-a.Start, b.End-b.Start
	if lb == 0 && la > 0 {
		return true
	}
	if la == 0 && lb > 0 {
		return false
	}
	wa, wb := a.Bind == elf.STB_WEAK, b.Bind == elf.STB_WEAK
	if wb && !wa {
		return true
	}
	if wa && !wb {
		return false
	}
	ga, gb := a.Bind == elf.STB_GLOBAL, b.Bind == elf.STB_GLOBAL
	if ga && !gb {
		return true
	}
	if gb && !ga {
		return false
	}
	ua, ub := underscores(a.Name), underscores(b.Name)
	if ub > ua {
		return true
	}
	if ua > ub {
		return false
	}
	if len(a.Name) > len(b.Name) {
		return true
	}
	if len(a.Name) < len(b.Name) {
		return false
	}
	// arch__choose_best_symbol: avoid "SyS" kernel syscall aliases.
	if strings.HasPrefix(a.Name, "SyS") || strings.HasPrefix(a.Name, "compat_SyS") {
		return false
	}
	return true
}

func underscores(s string) int {
	n := 0
	for n < len(s) && s[n] == '_' {
		n++
	}
	return n
}

// Shift returns t with every symbol moved by delta (wrapping), as perf
// moves the kernel's kallsyms symbols by its relocation (dso__split_kallsyms).
func (t *Table) Shift(delta uint64) *Table {
	if t == nil || delta == 0 {
		return t
	}
	if p := t.packed; p != nil {
		// The runs move with the symbols, unless that wraps around.
		segs := make([]seg, len(t.segs))
		ok := true
		for i, sg := range t.segs {
			segs[i] = seg{sg.from + delta, sg.sym}
			if i > 0 && segs[i].from <= segs[i-1].from {
				ok = false
				break
			}
		}
		if ok {
			return packedTable(p.recs, p.names, segs, p.delta+delta)
		}
	}
	if t.exact != nil {
		return t.exact.table().Shift(delta)
	}
	syms := make([]Symbol, t.Len())
	for i := range syms {
		s := *t.at(int32(i))
		s.pending = pendingNone
		s.Start += delta
		s.End += delta
		syms[i] = s
	}
	return sortedTable(syms)
}
