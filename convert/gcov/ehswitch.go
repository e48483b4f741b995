package gcov

import (
	"slices"

	"golang.org/x/arch/x86/x86asm"
)

// A C++ scope whose cleanup calls a function (a destructor) and that is
// left several ways (the scope's end, break, continue, return, goto) is a
// try/finally that gcc lowers at -O0 into one copy of the cleanup
// entered with a number saying which way out was taken, and a switch on
// that number after it (tree-eh.cc's lower_try_finally_switch; a
// finally of clobbers only is copied instead, findScopeCopies). The
// machine code keeps the number in a callee-saved register (`mov $k,
// %ebx` before each jump to the cleanup, the falling way last) and
// tests it after the cleanup's call with a chain of compares, or one
// compare and a jump when all ways go to the same place. gcc's graph
// has one block for the switch, whose arcs go, in this order, to an
// empty block for the falling way, which goes on to the code after the
// scope (a block of its own, empty when that code is a join: a loop's
// condition or increment, the return), then one empty block per other
// way in the order of their numbers, each going on to its destination.
// With two ways the switch is a condition: its arc to the falling way
// is the fallthrough.

// finallyOp is an instruction of such a dispatch: a move of a constant
// into the register, a test or compare of it, or a conditional jump after
// a test or compare.
type finallyOp struct {
	op  x86asm.Op
	reg x86asm.Reg
	imm int64
}

// finallyReg reports whether r is a register gcc keeps the number in.
func finallyReg(r x86asm.Reg) bool {
	switch r {
	case x86asm.EBX, x86asm.R12L, x86asm.R13L, x86asm.R14L, x86asm.R15L:
		return true
	}
	return false
}

// noteFinallyOp records in (at addr, after prev) when it is a finallyOp.
func (p *Program) noteFinallyOp(prev, in x86asm.Inst, addr uint64) {
	var op finallyOp
	switch in.Op {
	case x86asm.MOV, x86asm.CMP:
		r, ok := in.Args[0].(x86asm.Reg)
		imm, ok2 := in.Args[1].(x86asm.Imm)
		if !ok || !ok2 || !finallyReg(r) {
			return
		}
		op = finallyOp{in.Op, r, int64(int32(imm))}
	case x86asm.TEST:
		r, ok := in.Args[0].(x86asm.Reg)
		if !ok || !finallyReg(r) || in.Args[1] != r {
			return
		}
		op = finallyOp{op: in.Op, reg: r}
	case x86asm.JE, x86asm.JNE, x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JG, x86asm.JGE, x86asm.JL, x86asm.JLE:
		if _, ok := p.finallyOps[prevAddr(prev, addr)]; !ok || prev.Op != x86asm.TEST && prev.Op != x86asm.CMP {
			return
		}
		op = finallyOp{op: in.Op}
	default:
		return
	}
	if p.finallyOps == nil {
		p.finallyOps = map[uint64]finallyOp{}
	}
	p.finallyOps[addr] = op
}

// prevAddr returns the address of prev, the instruction before addr.
func prevAddr(prev x86asm.Inst, addr uint64) uint64 { return addr - uint64(prev.Len) }

// jccTaken reports whether the conditional jump op is taken after a
// compare of a with b (a test of a: b is 0).
func jccTaken(op x86asm.Op, a, b int64) bool {
	ua, ub := uint32(a), uint32(b)
	switch op {
	case x86asm.JE:
		return a == b
	case x86asm.JNE:
		return a != b
	case x86asm.JA:
		return ua > ub
	case x86asm.JAE:
		return ua >= ub
	case x86asm.JB:
		return ua < ub
	case x86asm.JBE:
		return ua <= ub
	case x86asm.JG:
		return a > b
	case x86asm.JGE:
		return a >= b
	case x86asm.JL:
		return a < b
	case x86asm.JLE:
		return a <= b
	}
	return false
}

// finallySwitch is one dispatch found in a function's machine code.
type finallySwitch struct {
	head, end int             // the chain of tests: instructions [head, end)
	fall      int64           // the falling way's number
	movs      map[int64][]int // number -> the moves that set it
	dest      map[int64]int   // number -> the instruction the chain goes to
}

// findFinallySwitch returns the dispatch whose chain starts at
// instruction h of fn (right after the cleanup's call), if it is one.
func (p *Program) findFinallySwitch(fn *function, h int) (finallySwitch, bool) {
	sw := finallySwitch{head: h, movs: map[int64][]int{}, dest: map[int64]int{}}
	op, ok := p.finallyOps[p.insns[h].addr]
	if !ok || op.op != x86asm.TEST && op.op != x86asm.CMP || h <= fn.first || p.insns[h-1].kind != kCall {
		return sw, false
	}
	reg := op.reg
	// The moves of the number, each followed by a jump to the cleanup
	// or, for the falling way (the last before the chain), by the
	// cleanup itself. (Other moves into the register belong to other
	// cleanups.)
	type move struct {
		k, to int
		imm   int64
	}
	var moves []move
	for k := fn.first; k < h; k++ {
		m, ok := p.finallyOps[p.insns[k].addr]
		if !ok || m.op != x86asm.MOV || m.reg != reg {
			continue
		}
		to := k + 1
		if p.insns[to].kind == kJmp {
			to = p.index(p.insns[to].target)
		}
		moves = append(moves, move{k, to, m.imm})
	}
	if len(moves) == 0 || moves[len(moves)-1].to != moves[len(moves)-1].k+1 {
		return sw, false
	}
	start := moves[len(moves)-1].to
	falls := 0
	for _, m := range moves {
		if m.to != start {
			continue
		}
		if m.k+1 == start {
			sw.fall = m.imm
			falls++
		}
		sw.movs[m.imm] = append(sw.movs[m.imm], m.k)
	}
	if falls != 1 || len(sw.movs) < 2 {
		return sw, false
	}
	// The chain: tests, compares, conditional jumps, nops, up to and
	// with a jump.
	sw.end = h
	for sw.end < fn.end {
		in := &p.insns[sw.end]
		o, ok := p.finallyOps[in.addr]
		if ok && o.op != x86asm.MOV && (o.reg == reg || in.kind == kJcc) || in.kind == kNop {
			sw.end++
			continue
		}
		if in.kind == kJmp {
			sw.end++
		}
		break
	}
	for v := range sw.movs {
		var a, b int64
		k := h
		for steps := 0; k >= h && k < sw.end; steps++ {
			in := &p.insns[k]
			o := p.finallyOps[in.addr]
			switch {
			case steps > 32:
				return sw, false
			case in.kind == kJcc:
				if jccTaken(o.op, a, b) {
					k = p.index(in.target)
					continue
				}
			case in.kind == kJmp:
				k = p.index(in.target)
				continue
			case o.op == x86asm.TEST:
				a, b = v, 0
			case o.op == x86asm.CMP:
				a, b = v, o.imm
			}
			k++
		}
		if k < 0 || k >= fn.end {
			return sw, false
		}
		sw.dest[v] = k
	}
	return sw, true
}

// finallySwitches rebuilds, in the graph gb made, each dispatch of a
// try/finally left several ways (see above) as gcc's switch.
func (gb *graphBuilder) finallySwitches() {
	p, fn := gb.p, gb.fn
	if !fn.cxx || len(p.finallyOps) == 0 {
		return
	}
	for h := fn.first + 1; h < fn.end; h++ {
		sw, ok := p.findFinallySwitch(fn, h)
		if !ok {
			continue
		}
		gb.rebuildFinallySwitch(sw)
	}
}

// rebuildFinallySwitch replaces the blocks of sw's chain by gcc's switch
// and its case blocks; it leaves the graph as it is when the blocks are
// not laid out as expected.
func (gb *graphBuilder) rebuildFinallySwitch(sw finallySwitch) {
	p, g := gb.p, gb.g
	d := -1
	for bi := 2; bi < len(g.blocks); bi++ {
		if b := &g.blocks[bi]; b.first == sw.head && b.end > b.first {
			d = bi
			break
		}
	}
	if d < 0 {
		return
	}
	// The chain's other blocks follow d; nothing else may enter them.
	last := d
	for last+1 < len(g.blocks) && g.blocks[last+1].first >= sw.head && g.blocks[last+1].first < sw.end {
		last++
	}
	if b := &g.blocks[last]; b.end > sw.end {
		// The chain's last test (a compare whose jump gcc's RTL left
		// out, all ways after it going on alike) starts the block of
		// the code after it: split it there.
		chain, after := map[int32]bool{}, map[int32]bool{}
		for k := b.first; k < sw.end; k++ {
			chain[p.insns[k].gline] = true
		}
		for k := sw.end; k < b.end; k++ {
			after[p.insns[k].gline] = true
		}
		rest := gccBlock{first: sw.end, end: b.end, succ: b.succ}
		var mine []int32
		for _, l := range b.lines {
			if chain[l] {
				mine = append(mine, l)
			}
			if !chain[l] || after[l] {
				rest.lines = append(rest.lines, l)
			}
		}
		b.end, b.succ, b.lines = sw.end, []gccArc{{to: last + 1}}, mine
		g.insertBlock(last+1, rest)
	}
	for bi := range g.blocks {
		for _, a := range g.blocks[bi].succ {
			if a.to > d && a.to <= last && (bi < d || bi > last) {
				return
			}
		}
	}
	codeBlock := func(k int) int {
		for bi := 2; bi < len(g.blocks); bi++ {
			if b := &g.blocks[bi]; b.first == k && b.end > b.first && (bi < d || bi > last) {
				return bi
			}
		}
		return -1
	}
	dest := map[int64]int{}
	for v, k := range sw.dest {
		if dest[v] = codeBlock(k); dest[v] < 0 {
			return
		}
	}
	// The code after the scope is the falling way's block when it is
	// no join: code of a later line, right after the chain, that no
	// other way goes to.
	fk := sw.dest[sw.fall]
	flCode := fk == sw.end && dest[sw.fall] == last+1 && p.insns[fk].gline >= 0 && p.insns[sw.head].gline >= 0
	if flCode {
		fl, hl := p.lines[p.insns[fk].gline], p.lines[p.insns[sw.head].gline]
		flCode = fl.file == hl.file && fl.line > hl.line && p.insns[fk].kind != kEpilogue && p.insns[fk].kind != kRet
		for v, k := range sw.dest {
			if v != sw.fall && k == fk {
				flCode = false
			}
		}
	}
	var others []int64
	for v := range sw.movs {
		if v != sw.fall {
			others = append(others, v)
		}
	}
	slices.Sort(others)
	// The new layout: blocks up to d, the falling way's case, its code
	// (or an empty block), the other cases, then the rest.
	old := g.blocks
	remap := make([]int, len(old))
	var blocks []gccBlock
	for bi := 0; bi <= d; bi++ {
		remap[bi] = len(blocks)
		blocks = append(blocks, old[bi])
	}
	for bi := d + 1; bi <= last; bi++ {
		remap[bi] = -1
		for _, l := range old[bi].lines {
			blocks[d].lines = appendLine(blocks[d].lines, l)
		}
	}
	fallCase := len(blocks)
	blocks = append(blocks, gccBlock{first: sw.end, end: sw.end})
	rest := last + 1
	flBlock := -1
	if flCode {
		remap[last+1] = len(blocks)
		blocks = append(blocks, old[last+1])
		rest++
	} else {
		flBlock = len(blocks)
		blocks = append(blocks, gccBlock{first: sw.end, end: sw.end})
	}
	caseBlock := map[int64]int{}
	for _, v := range others {
		caseBlock[v] = len(blocks)
		blocks = append(blocks, gccBlock{first: sw.end, end: sw.end})
	}
	for bi := rest; bi < len(old); bi++ {
		remap[bi] = len(blocks)
		blocks = append(blocks, old[bi])
	}
	for bi := range blocks {
		succ := slices.Clone(blocks[bi].succ)
		for ai := range succ {
			succ[ai].to = remap[succ[ai].to]
		}
		blocks[bi].succ = succ
	}
	obs := func(v int64) []arcObs {
		var o []arcObs
		for _, k := range sw.movs[v] {
			o = append(o, arcObs{insn: k, what: obsExec})
		}
		return o
	}
	db := &blocks[remap[d]]
	db.end = sw.end
	db.dispatch = len(sw.movs) > 2
	db.succ = []gccArc{{to: fallCase, obs: obs(sw.fall)}}
	for _, v := range others {
		db.succ = append(db.succ, gccArc{to: caseBlock[v], obs: obs(v)})
		blocks[caseBlock[v]].succ = []gccArc{{to: remap[dest[v]]}}
	}
	if flCode {
		blocks[fallCase].succ = []gccArc{{to: remap[last+1]}}
	} else {
		blocks[fallCase].succ = []gccArc{{to: flBlock}}
		blocks[flBlock].succ = []gccArc{{to: remap[dest[sw.fall]]}}
	}
	g.blocks = blocks
}

// mergeCatchTests makes one block of a landing pad's tests of the
// exception's selector when it has several catch clauses and an
// exception none of them takes goes on (to a cleanup or the resume):
// gcc's exception dispatch is one block whose arcs go to the way on
// (the fallthrough), then to the clauses in their order; the machine
// code tests the selector against each clause's number in turn (`cmp
// $n,%rdx; je`), one block per test here.
func (gb *graphBuilder) mergeCatchTests() {
	p, g := gb.p, gb.g
	if !gb.fn.cxx {
		return
	}
	test := func(bi int) bool {
		b := &g.blocks[bi]
		return b.end-b.first == 2 && p.insns[b.first].cmpRDX && p.insns[b.first+1].kind == kJcc && len(b.succ) == 2
	}
	for bi := 2; bi+1 < len(g.blocks); bi++ {
		if !test(bi) || !test(bi+1) || g.blocks[bi].end != g.blocks[bi+1].first {
			continue
		}
		// The first test's way on is the second test, entered from
		// nowhere else.
		var on, other []gccArc
		for _, a := range g.blocks[bi].succ {
			if a.to == bi+1 {
				on = append(on, a)
			} else {
				other = append(other, a)
			}
		}
		if len(on) != 1 || len(other) != 1 || g.preds(bi+1) != 1 {
			continue
		}
		b := &g.blocks[bi]
		b.end = g.blocks[bi+1].end
		b.lines = appendLines(b.lines, g.blocks[bi+1].lines)
		b.succ = append(other, g.blocks[bi+1].succ...)
		g.deleteBlock(bi + 1)
		bi-- // the merged block may take a third test
	}
}

// appendLines appends the gcov lines of ls not in dst yet.
func appendLines(dst, ls []int32) []int32 {
	for _, l := range ls {
		dst = appendLine(dst, l)
	}
	return dst
}

// preds returns how many arcs enter block bi.
func (g *gccGraph) preds(bi int) int {
	n := 0
	for _, b := range g.blocks {
		for _, a := range b.succ {
			if a.to == bi {
				n++
			}
		}
	}
	return n
}

// insertBlock inserts b as block bi, renumbering the blocks from bi on.
func (g *gccGraph) insertBlock(bi int, b gccBlock) {
	for i := range g.blocks {
		for ai := range g.blocks[i].succ {
			if g.blocks[i].succ[ai].to >= bi {
				g.blocks[i].succ[ai].to++
			}
		}
	}
	for ai := range b.succ {
		if b.succ[ai].to >= bi {
			b.succ[ai].to++
		}
	}
	g.blocks = slices.Insert(g.blocks, bi, b)
}

// deleteBlock removes block bi, which no arc enters any more, and
// renumbers the blocks after it.
func (g *gccGraph) deleteBlock(bi int) {
	g.blocks = slices.Delete(g.blocks, bi, bi+1)
	for i := range g.blocks {
		for ai := range g.blocks[i].succ {
			if g.blocks[i].succ[ai].to > bi {
				g.blocks[i].succ[ai].to--
			}
		}
	}
}
