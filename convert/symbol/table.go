package symbol

import (
	"debug/elf"
	"slices"
	"sort"
	"strings"
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
}

// Table is the symbol table of one DSO. The zero value is an empty table;
// a nil *Table is empty too.
type Table struct {
	syms []Symbol // in address order
	// segs partitions the address space into runs with one answer each,
	// computed from perf's tree so that Find needs one binary search.
	segs []seg
	tree *rbTree // only while building
}

type seg struct {
	from uint64 // first address of the run
	sym  int32  // index into syms, or -1
}

// Len returns the number of symbols.
func (t *Table) Len() int {
	if t == nil {
		return 0
	}
	return len(t.syms)
}

// Symbols returns the symbols in address order; the slice must not be
// modified.
func (t *Table) Symbols() []Symbol {
	if t == nil {
		return nil
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
	if i < 0 || s[i].sym < 0 {
		return nil
	}
	return &t.syms[s[i].sym]
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
	if s[i].sym >= 0 {
		sym = &t.syms[s[i].sym]
	}
	return sym, s[i].from, hi
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
		if p := &tr.n[prev].sym; p.End == p.Start {
			p.End = tr.n[x].sym.Start
		}
		prev = x
	}
	if last := &tr.n[prev].sym; last.End == last.Start {
		last.End = roundUp(last.Start, 4096) + 4096
	}
}

// fixupDuplicate mirrors symbols__fixup_duplicate: of the symbols sharing a
// start address, only the one choose_best_symbol prefers is kept.
func (t *Table) fixupDuplicate() {
	tr := t.tree
	cur := tr.first()
	for cur != nilNode {
		nx := tr.next(cur)
		if nx == nilNode {
			break
		}
		if tr.n[cur].sym.Start != tr.n[nx].sym.Start {
			cur = nx
			continue
		}
		if chooseFirst(&tr.n[cur].sym, &tr.n[nx].sym) {
			tr.erase(nx)
		} else {
			tr.erase(cur)
			cur = nx
		}
	}
}

// finish flattens the tree into syms and segs.
func (t *Table) finish() {
	tr := t.tree
	t.tree = nil
	if tr == nil || tr.root == nilNode {
		return
	}
	idx := make(map[int32]int32)
	var bounds []uint64
	for x := tr.first(); x != nilNode; x = tr.next(x) {
		idx[x] = int32(len(t.syms))
		s := tr.n[x].sym
		t.syms = append(t.syms, s)
		bounds = append(bounds, s.Start, s.End, s.End+1)
	}
	bounds = append(bounds, 0)
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	at := func(a uint64) int32 {
		if x := tr.find(a); x != nilNode {
			return idx[x]
		}
		return -1
	}
	for i, b := range bounds {
		r := at(b)
		if n := len(t.segs); n == 0 || t.segs[n-1].sym != r {
			t.segs = append(t.segs, seg{b, r})
		}
		// Between two boundaries the answer is constant.
		if b+1 != 0 && (i+1 == len(bounds) || b+1 < bounds[i+1]) {
			if r2 := at(b + 1); r2 != t.segs[len(t.segs)-1].sym {
				t.segs = append(t.segs, seg{b + 1, r2})
			}
		}
	}
}

func roundUp(x, to uint64) uint64 { return (x + to - 1) / to * to }

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
	syms := make([]Symbol, len(t.syms))
	for i, s := range t.syms {
		s.Start += delta
		s.End += delta
		syms[i] = s
	}
	n := &Table{}
	n.insert(syms)
	n.finish()
	return n
}
