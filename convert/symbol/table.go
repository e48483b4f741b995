package symbol

import (
	"bytes"
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

	// pending says how Name is still to be demangled, while a table is
	// being built: pendingNone, pendingName, or pendingPLT (Name is a
	// name plus "@plt", demangled without it). A table's lookups only
	// return symbols whose names are final.
	pending uint8
}

const (
	pendingNone = iota
	pendingName
	pendingPLT
)

// resolveName demangles s's name now (s is not shared yet), as perf names
// a symbol when it creates it.
func (s *Symbol) resolveName(dm func(string) string) {
	if s.pending == pendingNone || dm == nil {
		s.pending = pendingNone
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
	syms []Symbol // in address order (unless src holds them)
	// segs partitions the address space into runs with one answer each,
	// computed from perf's tree so that Find needs one binary search.
	segs []seg
	tree *rbTree // only while building
	// src, when set, holds the symbols instead of syms, each made on its
	// first lookup (lazy.go).
	src *lazySyms
	// exact, when set, answers lookups in the runs marked segZone, where
	// symbols overlap and perf's tree decides (see build.go).
	exact *exactTable
}

type seg struct {
	from uint64 // first address of the run
	sym  int32  // index of the symbol, or segNone or segZone
}

const (
	segNone = -1 // no symbol
	segZone = -2 // overlapping symbols: ask the exact table
)

// at returns symbol i.
func (t *Table) at(i int32) *Symbol {
	if t.src != nil {
		return t.src.at(i)
	}
	return &t.syms[i]
}

// Len returns the number of symbols.
func (t *Table) Len() int {
	switch {
	case t == nil:
		return 0
	case t.exact != nil:
		return t.exact.table().Len()
	case t.src != nil:
		return t.src.len()
	}
	return len(t.syms)
}

// Symbols returns the symbols in address order; the slice must not be
// modified. Tables whose symbols are made on first lookup make them all.
func (t *Table) Symbols() []Symbol {
	switch {
	case t == nil:
		return nil
	case t.exact != nil:
		return t.exact.table().Symbols()
	case t.src != nil:
		syms := make([]Symbol, t.src.len())
		for i := range syms {
			syms[i] = *t.src.at(int32(i))
		}
		return syms
	}
	return t.syms
}

// Span returns the start of the first symbol and the end of the last, in
// address order (what perf's map__fixup_start and map__fixup_end make a
// map's bounds); ok is false when there are no symbols.
func (t *Table) Span() (lo, hi uint64, ok bool) {
	switch {
	case t == nil:
		return 0, 0, false
	case t.exact != nil:
		return t.exact.table().Span()
	}
	n := t.Len()
	if n == 0 {
		return 0, 0, false
	}
	return t.at(0).Start, t.at(int32(n - 1)).End, true
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

// The rest of this file is perf's tree as symbol.c uses it, on Symbols:
// for the tables of perf maps and kallsyms whose symbols overlap, and as
// the tests' reference for ELF tables (build.go builds those).

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
// start address, only the one choose_best_symbol prefers is kept, their
// names demangled by dm first (perf compares the names it made).
func (t *Table) fixupDuplicate(dm func(string) string) {
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
		if chooseFirstNamed(tr.sym(cur), tr.sym(nx), dm) {
			tr.erase(nx)
		} else {
			tr.erase(cur)
			cur = nx
		}
	}
}

// finish flattens the tree into syms and segs, every name demangled by
// dm.
func (t *Table) finish(dm func(string) string) {
	tr := t.tree
	t.tree = nil
	if tr == nil || tr.root == nilNode {
		return
	}
	nodes := make([]int32, 0, len(tr.n)-len(tr.free))
	t.syms = make([]Symbol, 0, len(tr.n)-len(tr.free))
	for x := tr.first(); x != nilNode; x = tr.next(x) {
		nodes = append(nodes, x)
		s := *tr.sym(x)
		s.resolveName(dm)
		t.syms = append(t.syms, s)
	}
	t.segs = tr.segs(nodes, func(i int) (uint64, uint64) { return t.syms[i].Start, t.syms[i].End })
}

// segs returns the runs of the tree whose nodes in order are nodes (the
// symbols' starts and ends given by bounds): runs held by one symbol or
// none come from the list, the runs where symbols overlap from the tree.
func (tr *rbTree) segs(nodes []int32, bounds func(i int) (start, end uint64)) []seg {
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
	zs, _, ok := zonedSegs(len(nodes), bounds)
	if !ok {
		// A symbol that ends before it starts: every boundary asked
		// of the tree.
		return treeSegs(0, len(nodes), bounds, 0, 0, true, at, nil)
	}
	var segs []seg
	for k, sg := range zs {
		if sg.sym != segZone {
			if n := len(segs); n == 0 || segs[n-1].sym != sg.sym {
				segs = append(segs, sg)
			}
			continue
		}
		// A zone: from sg.from to the next run (or the end of the
		// address space), holding the symbols that start in it.
		to, top := uint64(0), true
		if k+1 < len(zs) {
			to, top = zs[k+1].from, false
		}
		i := sort.Search(len(nodes), func(i int) bool { s, _ := bounds(i); return s >= sg.from })
		j := i
		for j < len(nodes) {
			if s, _ := bounds(j); !top && s >= to {
				break
			}
			j++
		}
		segs = treeSegs(i, j, bounds, sg.from, to, top, at, segs)
	}
	return segs
}

// treeSegs appends to segs the runs of [from, to) (to the end of the
// address space with top) as perf's tree answers them (at), from the
// boundaries of symbols i to j, those that start there.
func treeSegs(i, j int, bounds func(int) (uint64, uint64), from, to uint64, top bool, at func(uint64) int32, segs []seg) []seg {
	bs := make([]uint64, 0, 3*(j-i)+1)
	bs = append(bs, from)
	for k := i; k < j; k++ {
		s, e := bounds(k)
		bs = append(bs, s, e, e+1)
	}
	slices.Sort(bs)
	bs = slices.Compact(bs)
	add := func(b uint64, r int32) {
		if n := len(segs); n == 0 || segs[n-1].sym != r {
			segs = append(segs, seg{b, r})
		}
	}
	for k, b := range bs {
		if b < from || !top && b >= to {
			continue
		}
		add(b, at(b))
		// Between two boundaries the answer is constant.
		if b+1 != 0 && (top || b+1 < to) && (k+1 == len(bs) || b+1 < bs[k+1]) {
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
	if r := chooseByKind(a.End-a.Start, b.End-b.Start, a.Bind, b.Bind); r != 0 {
		return r > 0
	}
	if a.Name == b.Name && a.pending == b.pending && !strings.Contains(a.Name, "SyS") {
		// Equal names demangle alike; only the "SyS" rule could
		// still prefer b.
		return true
	}
	a.resolveName(dm)
	b.resolveName(dm)
	return chooseFirst(a, b)
}

// chooseByKind is the part of choose_best_symbol that does not look at
// names, on the symbols' lengths and bindings: 1 prefers a, -1 b, 0
// undecided.
func chooseByKind(la, lb uint64, ba, bb elf.SymBind) int {
	if lb == 0 && la > 0 {
		return 1
	}
	if la == 0 && lb > 0 {
		return -1
	}
	wa, wb := ba == elf.STB_WEAK, bb == elf.STB_WEAK
	if wb && !wa {
		return 1
	}
	if wa && !wb {
		return -1
	}
	ga, gb := ba == elf.STB_GLOBAL, bb == elf.STB_GLOBAL
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
	if r := chooseByKind(a.End-a.Start, b.End-b.Start, a.Bind, b.Bind); r != 0 {
		return r > 0
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
	if t.src != nil {
		if p, ok := t.src.src.(*packedSyms); ok {
			// The runs move with the symbols, unless that wraps.
			segs := make([]seg, len(t.segs))
			moved := true
			for i, sg := range t.segs {
				segs[i] = seg{sg.from + delta, sg.sym}
				if i > 0 && segs[i].from <= segs[i-1].from {
					moved = false
					break
				}
			}
			if moved {
				return packedTable(p.recs, p.names, segs, p.delta+delta)
			}
		}
	}
	syms := slices.Clone(t.Symbols())
	for i := range syms {
		syms[i].Start += delta
		syms[i].End += delta
	}
	return sortedTable(syms)
}

// Without returns t without its symbols named name, t itself when it has
// none (a packed table's names are searched before any symbol is made).
func (t *Table) Without(name string) *Table {
	if t == nil {
		return nil
	}
	if t.exact == nil && t.src != nil {
		if p, ok := t.src.src.(*packedSyms); ok && !bytes.Contains(p.names, []byte(name)) {
			return t
		}
	}
	syms := t.Symbols()
	named := func(s Symbol) bool { return s.Name == name }
	if !slices.ContainsFunc(syms, named) {
		return t
	}
	return sortedTable(slices.DeleteFunc(slices.Clone(syms), named))
}

// lazySyms holds a table's symbols as made on first lookup from src: a
// DSO has thousands of symbols of which a recording prints a few, and
// making one (cutting its name out of the string table, demangling it,
// choosing among aliases) costs from nanoseconds to microseconds. Lookups
// may run concurrently (the PT decoder's workers share tables): a symbol
// is made once, under mu, and published atomically.
type lazySyms struct {
	src  symSource
	ptrs []atomic.Pointer[Symbol]
	mu   sync.Mutex
}

// symSource makes the symbols of a lazySyms.
type symSource interface {
	len() int
	symbol(i int32) Symbol // symbol i, its name final
}

func newLazySyms(src symSource) *lazySyms {
	return &lazySyms{src: src, ptrs: make([]atomic.Pointer[Symbol], src.len())}
}

func (l *lazySyms) len() int { return len(l.ptrs) }

// at returns symbol i, made once; concurrent callers get the same one.
func (l *lazySyms) at(i int32) *Symbol {
	if s := l.ptrs[i].Load(); s != nil {
		return s
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.ptrs[i].Load(); s != nil {
		return s
	}
	s := l.src.symbol(i)
	l.ptrs[i].Store(&s)
	return &s
}
