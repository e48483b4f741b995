package gcov

import "sort"

// gcov's numbers from the rebuilt graph (gccgraph.go) and the flow: each
// arc's count from the machine transitions it stands for, each block's as
// the sum of its incoming arcs, then gcov's own rules (gcov.cc in gcc 12):
// a line is in every block that has a statement on it; its count is the
// sum of its blocks' counts, unless it is the last line of some blocks,
// when it is the count of the arcs entering those blocks from other
// blocks plus the count of the loops entirely among them; its branch and
// call records are the arcs of those blocks; a block counts as executed
// when its count is not zero.

// Kinds of machine observation an arc's count is summed from.
const (
	obsTaken    uint8 = iota // a conditional jump taken
	obsNotTaken              // a conditional jump not taken
	obsFake                  // a call that did not come back
	obsSwitch                // a switch's dispatch reaching an instruction
	obsExec                  // an instruction executed (a jump, or code falling on)
	obsThrow                 // a call's exceptions into a landing pad (from: its instruction, -1: none)
)

// arcObs is one machine observation an arc's count includes.
type arcObs struct {
	insn int // the jump or call (obsSwitch: the target instruction)
	what uint8
	from int // obsSwitch: the table's indirect jump
}

// graphFlow is the flow of one function's graph: block and arc counts.
type graphFlow struct {
	g      *gccGraph
	block  []uint64
	arc    [][]uint64 // per block, per succ arc
	pred   [][]arcRef // per block, its incoming arcs
	except []bool     // blocks only reached through exception arcs
}

// arcRef names arc i of block b.
type arcRef struct{ b, i int32 }

// flowCounts are the machine counts the flow is computed from.
type flowCounts struct {
	exec     []uint64          // per instruction
	taken    map[uint64]uint64 // conditional jump address -> times taken
	returned map[uint64]uint64 // address after a call -> times returned to
	switchTo map[int32]map[uint64]uint64
	// indirect counts the transitions of each indirect jump by target.
	indirect map[uint64]map[uint64]uint64
}

// flow computes g's block and arc counts from the machine counts mc.
func (p *Program) flow(g *gccGraph, mc *flowCounts) *graphFlow {
	fn := &p.funcs[g.fn]
	n := len(g.blocks)
	f := &graphFlow{g: g, block: make([]uint64, n), arc: make([][]uint64, n), pred: make([][]arcRef, n)}
	observed := make([][]bool, n)
	thrown := p.throws(g, mc)
	for bi := range g.blocks {
		b := &g.blocks[bi]
		f.arc[bi] = make([]uint64, len(b.succ))
		observed[bi] = make([]bool, len(b.succ))
		for ai, a := range b.succ {
			if a.to >= 0 && a.to < n {
				f.pred[a.to] = append(f.pred[a.to], arcRef{int32(bi), int32(ai)})
			}
			if len(a.obs) == 0 && !a.zero {
				continue
			}
			observed[bi][ai] = true
			var c uint64
			for _, o := range a.obs {
				in := &p.insns[o.insn]
				switch o.what {
				case obsTaken:
					c += min(mc.taken[in.addr], mc.exec[o.insn])
				case obsNotTaken:
					c += mc.exec[o.insn] - min(mc.taken[in.addr], mc.exec[o.insn])
				case obsFake:
					c += p.deficit(o.insn, mc) - thrown[o.insn]
				case obsThrow:
					c += thrown[o.insn]
				case obsSwitch:
					c += mc.indirect[p.insns[o.from].addr][in.addr]
				case obsExec:
					c += mc.exec[o.insn]
				}
			}
			f.arc[bi][ai] = c
		}
	}
	// The entry's count is the calls; every other block's is the sum of
	// its incoming arcs, and an arc that no machine transition stands
	// for carries what its block does not lose through its fake arcs.
	f.block[0] = mc.exec[fn.first]
	update := func(bi int) {
		var lost uint64
		for ai, a := range g.blocks[bi].succ {
			if a.fake || a.throw {
				lost += f.arc[bi][ai]
			}
		}
		for ai := range g.blocks[bi].succ {
			if !observed[bi][ai] {
				f.arc[bi][ai] = f.block[bi] - min(lost, f.block[bi])
			}
		}
	}
	for pass := 0; pass < 2*n+2; pass++ {
		changed := false
		for bi := 0; bi < n; bi++ {
			if bi != 0 {
				var c uint64
				for _, r := range f.pred[bi] {
					c += f.arc[r.b][r.i]
				}
				if c != f.block[bi] {
					f.block[bi], changed = c, true
				}
			}
			update(bi)
		}
		if !changed && pass > 0 {
			break
		}
	}
	return f
}

// lineAcc is gcov's line_info: what one source line accumulates from the
// blocks with a statement on it.
type lineAcc struct {
	exists, unexceptional, unexecuted bool
	count                             uint64
	blocks                            []blockRef // blocks whose last line it is
	branches                          []arcOf    // their arcs, in order
}

// blockRef names a block of a function's flow.
type blockRef struct {
	f *graphFlow
	b int
}

// arcOf names arc i of a block of a function's flow.
type arcOf struct {
	f    *graphFlow
	b, i int
}

// addLineCounts mirrors gcov's add_line_counts for one function: every
// line of every block exists and sums the block's count; a block's last
// line (per file) takes the block and its arcs, but for the entry and
// the function's last block. at returns the accumulator of a line.
func (f *graphFlow) addLineCounts(p *Program, at func(g int32) *lineAcc) {
	n := len(f.g.blocks)
	for bi := range f.g.blocks {
		b := &f.g.blocks[bi]
		var last *lineAcc
		for li, g := range b.lines {
			l := at(g)
			l.exists = true
			if !f.except[bi] {
				l.unexceptional = true
				if f.block[bi] == 0 {
					l.unexecuted = true
				}
			}
			l.count += f.block[bi]
			last = l
			// gcov takes the last line of each file's run of lines.
			endOfRun := li+1 == len(b.lines) || p.lines[b.lines[li+1]].file != p.lines[g].file
			if !endOfRun || bi == 0 || bi == n-1 {
				continue
			}
			last.blocks = append(last.blocks, blockRef{f, bi})
			for ai := range b.succ {
				last.branches = append(last.branches, arcOf{f, bi, ai})
			}
		}
	}
}

// accumulate mirrors gcov's accumulate_line_info: a line that is the
// last line of some blocks counts the arcs entering them from elsewhere
// and the loops among them.
func (l *lineAcc) accumulate() {
	if len(l.blocks) == 0 {
		return
	}
	in := func(f *graphFlow, b int) bool {
		for _, r := range l.blocks {
			if r.f == f && r.b == b {
				return true
			}
		}
		return false
	}
	var c uint64
	for _, r := range l.blocks {
		for _, a := range r.f.pred[r.b] {
			if !in(r.f, int(a.b)) {
				c += r.f.arc[a.b][a.i]
			}
		}
	}
	l.count = c + l.cycles(in)
}

// cycles is the count of the loops entirely among the line's blocks:
// each elementary circuit found (Hawick and James' enumeration, from each
// block in turn, through arcs to blocks not before the start) takes the
// smallest remaining count of its arcs, which is then taken off them all,
// as gcov's get_cycles_count does.
func (l *lineAcc) cycles(in func(*graphFlow, int) bool) uint64 {
	rest := map[arcOf]int64{}
	for _, r := range l.blocks {
		for ai := range r.f.g.blocks[r.b].succ {
			rest[arcOf{r.f, r.b, ai}] = int64(r.f.arc[r.b][ai])
		}
	}
	var total int64
	for _, start := range l.blocks {
		var path []arcOf
		blocked := map[int]bool{}
		blockedBy := map[int][]int{}
		var unblock func(u int)
		unblock = func(u int) {
			if !blocked[u] {
				return
			}
			delete(blocked, u)
			list := blockedBy[u]
			delete(blockedBy, u)
			for _, w := range list {
				unblock(w)
			}
		}
		f := start.f
		var circuit func(v int) bool
		circuit = func(v int) bool {
			found := false
			blocked[v] = true
			for ai, a := range f.g.blocks[v].succ {
				w := a.to
				ref := arcOf{f, v, ai}
				if w < start.b || rest[ref] <= 0 || !in(f, w) {
					continue
				}
				path = append(path, ref)
				if w == start.b {
					// A circuit: take its smallest count off every arc.
					m := int64(-1)
					for _, e := range path {
						if m < 0 || rest[e] < m {
							m = rest[e]
						}
					}
					total += m
					for _, e := range path {
						rest[e] -= m
					}
					found = true
				} else if !blocked[w] && positive(path, rest) {
					if circuit(w) {
						found = true
					}
				}
				path = path[:len(path)-1]
			}
			if found {
				unblock(v)
			} else {
				for ai, a := range f.g.blocks[v].succ {
					w := a.to
					if w < start.b || rest[arcOf{f, v, ai}] <= 0 || !in(f, w) {
						continue
					}
					if !containsInt(blockedBy[w], v) {
						blockedBy[w] = append(blockedBy[w], v)
					}
				}
			}
			return found
		}
		circuit(start.b)
	}
	return uint64(total)
}

// positive reports whether every arc of path still has a count.
func positive(path []arcOf, rest map[arcOf]int64) bool {
	for _, e := range path {
		if rest[e] <= 0 {
			return false
		}
	}
	return true
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// blocksExecuted mirrors gcov: the blocks with a count among blocks 1 to
// n-2 of the notes file's numbering (gcc 12 skips its last block and
// counts the exit), and the number of blocks less the entry and exit.
func (f *graphFlow) blocksExecuted() (blocks, executed int) {
	n := len(f.g.blocks)
	for bi := 1; bi+1 < n; bi++ {
		if f.block[bi] > 0 {
			executed++
		}
	}
	return n - 2, executed
}

// findExceptional marks the blocks reached only through exception arcs
// (gcov's find_exception_blocks).
func (f *graphFlow) findExceptional() {
	n := len(f.g.blocks)
	f.except = make([]bool, n)
	for i := range f.except {
		f.except[i] = true
	}
	f.except[0] = false
	queue := []int{0}
	for len(queue) > 0 {
		b := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, a := range f.g.blocks[b].succ {
			if a.fake || a.throw || a.to < 0 || a.to >= n || !f.except[a.to] {
				continue
			}
			f.except[a.to] = false
			queue = append(queue, a.to)
		}
	}
}

// unconditional reports whether block b has one arc that is not fake:
// gcov prints no branch record for it.
func (f *graphFlow) unconditional(b int) bool {
	n := 0
	for _, a := range f.g.blocks[b].succ {
		if !a.fake {
			n++
		}
	}
	return n == 1
}

// sortedLineKeys returns the keys of m by file and line.
func sortedLineKeys(m map[lineKey]*lineAcc) []lineKey {
	ks := make([]lineKey, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].file != ks[j].file {
			return ks[i].file < ks[j].file
		}
		return ks[i].line < ks[j].line
	})
	return ks
}

// groupFunctions marks the functions that start on the same line of the
// same file as another (gcov's groups).
func (p *Program) groupFunctions() map[int]bool {
	at := map[lineKey][]int{}
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		if fn.hasCode && fn.end > fn.first && !fn.part {
			k := lineKey{fn.file, fn.startLine}
			at[k] = append(at[k], fi)
		}
	}
	out := map[int]bool{}
	for _, fis := range at {
		if len(fis) > 1 {
			for _, fi := range fis {
				out[fi] = true
			}
		}
	}
	return out
}

// graph returns the rebuilt graph of function fi, or nil for optimised
// code and functions without code.
func (p *Program) graph(fi int) *gccGraph {
	if fi < len(p.graphs) {
		return p.graphs[fi]
	}
	return nil
}

// deficit returns how often the call at k did not come back to the
// instruction after it: its exceptions and its exits.
func (p *Program) deficit(k int, mc *flowCounts) uint64 {
	in := &p.insns[k]
	if in.noReturn {
		return mc.exec[k]
	}
	ret := mc.returned[in.addr+uint64(in.size)]
	if ret < mc.exec[k] {
		return mc.exec[k] - ret
	}
	return 0
}

// throws attributes each landing pad's arrivals (control coming back
// to it from outside the function: the unwinder) to the calls with an
// exception arc to it, in block order, each up to its deficit; an
// exception into a cleanup that left no landing pad is the whole
// deficit of its call. It returns the exceptions per call.
func (p *Program) throws(g *gccGraph, mc *flowCounts) map[int]uint64 {
	out := map[int]uint64{}
	left := map[int]uint64{} // landing pad -> arrivals not attributed yet
	for _, b := range g.blocks {
		for _, a := range b.succ {
			for _, o := range a.obs {
				if o.what != obsThrow {
					continue
				}
				d := p.deficit(o.insn, mc)
				if o.from < 0 {
					out[o.insn] = d
					continue
				}
				rest, ok := left[o.from]
				if !ok {
					rest = mc.returned[p.insns[o.from].addr]
				}
				t := min(d, rest)
				out[o.insn] = t
				left[o.from] = rest - t
			}
		}
	}
	return out
}
