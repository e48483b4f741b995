package symbol

// perf's tree for an ELF DSO, where symbols overlap (see build.go). It is
// built from the load order as symbol.c builds it, with three shortcuts
// that leave its shape unchanged: inserts placed by rank (insertRanked),
// the choices among duplicates replayed from the list's fix-ups, and ties
// kept undecided where erasing either candidate leaves the same tree
// (tieNeutral).

// table returns the exact table, built on first use.
func (e *exactTable) table() *Table {
	e.once.Do(func() {
		e.t = e.build()
		e.lo = nil
	})
	return e.t
}

func (e *exactTable) build() *Table {
	lo := e.lo
	tr := newRBTree()
	tr.n = make([]rbNode, 0, len(lo.syms))
	// Every symbol to insert is known: rank them in the tree's order
	// (start, then insertion) for insertRanked.
	ranks := make([]int32, len(lo.syms))
	var all []int32
	for _, keys := range lo.sorted {
		all = lo.merge(all, keys)
	}
	for r, k := range all {
		ranks[k] = int32(r)
	}
	tr.ranked = newRankSet(len(lo.syms))
	insert := func(g int) {
		for k := lo.groups[g]; k < lo.groups[g+1]; k++ {
			s := &lo.syms[k]
			tr.insertRanked(k, ranks[k], s.start, s.end)
		}
	}
	ties := &tieSet{lo: lo}
	choices := lo.choices
	for g := 0; g < lo.passes(); g++ {
		insert(g)
		exactFixupEnd(tr)
		choices = e.dedupe(tr, ties, choices)
	}
	insert(lo.passes())
	// The symbols in tree order, made on first lookup as the list's are.
	var nodes []int32
	src := &elfSource{lo: lo, ties: ties}
	for x := tr.first(); x != nilNode; x = tr.next(x) {
		nodes = append(nodes, x)
		src.idx = append(src.idx, tr.n[x].sym)
		src.end = append(src.end, tr.n[x].end)
		src.tie = append(src.tie, tr.n[x].tie)
	}
	return &Table{segs: tr.segs(nodes, src.bounds), src: newLazySyms(src)}
}

// exactFixupEnd is symbols__fixup_end on the nodes' ends.
func exactFixupEnd(tr *rbTree) {
	prev := tr.first()
	if prev == nilNode {
		return
	}
	for x := tr.next(prev); x != nilNode; x = tr.next(x) {
		if p := &tr.n[prev]; p.end == p.start {
			p.end = tr.n[x].start
		}
		prev = x
	}
	if last := &tr.n[prev]; last.end == last.start {
		last.end = roundUp(last.start, 4096) + 4096
	}
}

// dedupe is symbols__fixup_duplicate on the tree, making the choices the
// list's fix-ups recorded (choices, in order; when they run out, the
// choices are made again) and returning those it did not read. A tie
// stays undecided only where erasing either candidate leaves the same
// tree; else it is decided by the names now.
func (e *exactTable) dedupe(tr *rbTree, ties *tieSet, choices []uint8) []uint8 {
	lo := e.lo
	cur := tr.first()
	for cur != nilNode {
		nx := tr.next(cur)
		if nx == nilNode {
			break
		}
		a, b := &tr.n[cur], &tr.n[nx]
		if a.start != b.start {
			cur = nx
			continue
		}
		settle := func() Symbol {
			s, win := ties.choose(a.tie, a.end)
			a.sym, a.tie = win, 0
			return s
		}
		var d uint8
		if len(choices) > 0 {
			d, choices = choices[0], choices[1:]
		} else {
			d = lo.decide(a.sym, a.end, a.tie, b.sym, b.end, settle)
		}
		if d == keepTie {
			if tr.tieNeutral(cur, nx) {
				a.tie = ties.add(a.tie, a.sym, b.sym)
				d = keepFirst
			} else {
				var sa Symbol
				if a.tie != 0 {
					sa = settle()
				} else {
					sa = lo.symbol(a.sym, a.end)
				}
				sb := lo.symbol(b.sym, b.end)
				d = keepSecond
				if chooseFirstNamed(&sa, &sb, lo.dm) {
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

// reference builds the table as symbol.c does, with no shortcut: every
// symbol made and inserted by walking down the tree, every choice made by
// demangled names as it comes (the tests' reference).
func (e *exactTable) reference() *Table {
	lo := e.lo
	t := &Table{}
	group := func(g int) []Symbol {
		var syms []Symbol
		for k := lo.groups[g]; k < lo.groups[g+1]; k++ {
			syms = append(syms, lo.symbol(k, lo.syms[k].end))
		}
		return syms
	}
	for g := 0; g < lo.passes(); g++ {
		t.insert(group(g))
		t.fixupEnd()
		t.fixupDuplicate(lo.dm)
	}
	t.insert(group(lo.passes()))
	t.finish(lo.dm)
	return t
}
