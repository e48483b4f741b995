package gcov

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// The block graph gcc instruments, rebuilt from -O0 machine code.
//
// gcov reads a function's control-flow graph from the notes file gcc
// wrote when it instrumented the function (early GIMPLE, after the CFG is
// built), solves every block's and arc's count from the counters, and
// prints from that graph: a line's branch and call records are the arcs
// of the blocks whose last line it is, in block order; "blocks executed"
// counts the blocks that ran. At -O0 the machine code keeps that graph
// almost block for block; buildGccGraph rebuilds it from the machine
// blocks, undoing what gcc changes between the two:
//   - a call that may not return (any call but to a builtin that cannot
//     throw or a const or pure function) ends a block, with a fake arc to
//     the exit: gcov's call record;
//   - the return statements jump to one return block (the epilogue),
//     which keeps the return's line when the function has one return;
//     a function returning a value that can fall off its end has one more
//     block for that, on its closing brace;
//   - a branch to a goto, break or continue on a line of its own goes to a
//     block of its own, right after the branch's; the machine code keeps
//     it as a nop (for its line) moved before the jump's destination, or
//     not at all;
//   - a jump that only carries a conditional branch's other arm to where
//     it goes is not a block.
//
// Blocks are numbered as gcc numbers them (its layout order): 0 is the
// entry, 1 the exit, 2 the function's first block.

// gccBlock is one block of a function's graph.
type gccBlock struct {
	first, end int     // its machine instructions [first, end); none when equal
	lines      []int32 // gcov lines, sorted by line as gcov sorts them
	succ       []gccArc
	dispatch   bool // a switch's dispatch: its arcs are no fallthroughs
}

// gccArc is one arc of the graph.
type gccArc struct {
	to    int // block index: 0 is the entry, 1 the exit
	fall  bool
	fake  bool // a call's exit (gcov's call record)
	throw bool // to an exception handler
	// obs are the machine transitions the arc's count sums (none: the
	// count is what its block passes on); zero marks an arc that never
	// runs (va_arg's fake exit).
	obs    []arcObs
	zero   bool
	swLine int32 // obsSwitch: the switch's gcov line
	noFall bool  // an unconditional arc that is no fallthrough (into a resume)
}

// gccGraph is the graph of one function.
type gccGraph struct {
	fn     int32
	blocks []gccBlock
}

// segKind classifies a machine segment.
type segKind uint8

const (
	segPlain    segKind = iota
	segNopGoto          // a goto's nop, moved before its destination
	segJmpArm           // a jmp carrying a conditional branch's arm
	segEpilogue         // the epilogue: the return block
	segDispatch         // more of a switch's dispatch: part of its block
	segMerged           // part of the block of segment src (a variadic prologue)
)

// seg is a machine segment: a run of instructions gcc keeps as one block.
type seg struct {
	first, end int
	kind       segKind
	block      int // gcc block index
	src        int // segNopGoto: the segment whose branch jumps to it; segDispatch: the dispatch's first
	// emptyAfter is the line of a block without code that follows the
	// segment's call (see callStatementEnd), or -1.
	emptyAfter int32
	call       int // the call that ends the segment's gcc block, or -1
	vaArg      int // the join of the segment's va_arg (its call's end), or 0
}

// buildGccGraph rebuilds the graph gcc instrumented for the -O0 function
// fi.
func (p *Program) buildGccGraph(fi int) *gccGraph {
	gb := &graphBuilder{p: p, fi: fi, fn: &p.funcs[fi]}
	return gb.build()
}

// graphBuilder holds the state of buildGccGraph.
type graphBuilder struct {
	p     *Program
	fi    int
	fn    *function
	segs  []seg
	segAt map[int]int // first instruction -> segment
	g     *gccGraph
	// loopEntry maps the first instruction of a loop's condition to
	// the block of the loop's entry that the machine code left out, and
	// the first instruction of the loop's body and the loop's back
	// edge: jumps from before the body, or from after the back edge (an
	// outer loop's back edge), enter the loop there.
	loopEntry map[int][3]int
	// The blocks the epilogue stands for (-1 when absent): the closing
	// brace of a value function falling off its end, the joins of
	// conditional return values by line, the block that ends the
	// lifetime of aggregate locals, and the return block.
	fallOff, finally, ret int
	joins                 map[int32]int
	// inner are the joins of conditional expressions nested in the
	// arms of returned ones (findJoins); armJoin maps an arm's last
	// instruction to the innermost one it goes to.
	inner   []innerJoin
	armJoin map[int]int
	// copies are the scope-exit copies (findScopeCopies); copyOf maps a
	// jump out of the scope to its copy.
	copies []scopeCopy
	copyOf map[int]int
	// empty maps a segment to the block without code after its call.
	empty map[int]int
	// visibleEntry marks the jumps that are a loop's entry block.
	visibleEntry map[int]bool
	// shared maps the jumps of a repeated break (sharedBreaks) to the
	// one whose segment is the statement's block.
	shared map[int]int
	// latch maps the top of an endless loop (for (;;), while (1)) to the
	// block its back jumps go through.
	latch map[int]int
	epi   int // the epilogue's first instruction, or -1
	// resxEntry maps a resume segment's first instruction to the empty
	// block before it.
	resxEntry map[int]int
	ehOnly    map[int]bool // segments only exception handling reaches
	// pseudoDtor maps an instruction to the lines of trivial destructors
	// called explicitly just before it (pseudoDestructors).
	pseudoDtor map[int][]int32
	// clobberPad is the block of the cleanup that only ends aggregate
	// locals' lifetimes (C++), made when a call needs it, or -1.
	clobberPad int
	// tempPad maps a segment whose call throws into the aggregates'
	// cleanup to the first block of its temporaries' cleanups (tempPads).
	tempPad map[int]int
	// sretPad maps a segment whose call makes a temporary in memory
	// (its hidden result pointer) to the block resuming the unwind after
	// that temporary's destructor (sretPads).
	sretPad map[int]int
	// exitSeg is the epilogue segment of a C++ void function that only a
	// jump over the landing pads reaches (exitJump), or -1: part of that
	// jump's block, whose arc goes to the exit.
	exitSeg int
}

func (gb *graphBuilder) build() *gccGraph {
	p, fn := gb.p, gb.fn
	gb.epi = -1
	if p.explicitReturns(fn) > 0 || fn.returnsValue {
		gb.epi = p.epilogueStart(fn)
	}
	gb.segs = p.machineSegments(fn, p.explicitReturns(fn) > 0 || fn.returnsValue)
	gb.shared = p.sharedBreaks(fn)
	gb.segAt = map[int]int{}
	for si, s := range gb.segs {
		gb.segAt[s.first] = si
	}
	gb.classify()
	gb.exitSeg = -1
	segs := gb.segs
	// Order the blocks as gcc lays them out: machine order, but a goto's
	// nop right after the branch that jumps to it.
	after := map[int][]int{}
	for si, s := range segs {
		if s.kind == segNopGoto && s.src >= 0 {
			// Right after its branch, or after the code the branch
			// falls to when that code's statements come before the
			// goto's (the goto follows an if's arm).
			// (Code on lines before the branch's is a loop's increment
			// or condition, which gcc lays out after the goto.)
			at := s.src
			nl := p.insns[s.first].gline
			bl := p.insns[segs[s.src].end-1].gline
			// A case's nop from the head of a switch's compare tree.
			caseNop := bl >= 0 && p.switches[bl] != nil && segs[s.src].kind == segPlain
			for j := s.src + 1; j < len(segs) && j != si && nl >= 0; j++ {
				gl := p.insns[segs[j].first].gline
				if caseNop && (segs[j].kind == segDispatch && segs[j].src == s.src || segs[j].kind == segJmpArm && gl == bl) {
					continue // the rest of the switch's dispatch
				}
				if segs[j].kind != segPlain || gl < 0 || p.lines[gl].file != p.lines[nl].file || p.lines[gl].line >= p.lines[nl].line ||
					bl >= 0 && p.lines[bl].file == p.lines[gl].file && p.lines[gl].line < p.lines[bl].line {
					break
				}
				at = j
			}
			after[at] = append(after[at], si)
		}
	}
	entries := gb.findLoopEntries()         // body's first instruction -> entry line
	joinAfter, innerAfter := gb.findJoins() // segment -> return lines (inner joins) joined after it
	latchAfter := gb.findLatches()          // segment -> loop tops whose latch follows it
	copyAfter := gb.findScopeCopies()       // segment -> scope-exit copies after it
	gb.g = &gccGraph{fn: int32(gb.fi), blocks: make([]gccBlock, 2, 8+len(segs))}
	g := gb.g
	gb.loopEntry = map[int][3]int{}
	gb.visibleEntry = map[int]bool{}
	gb.latch = map[int]int{}
	gb.resxEntry = map[int]int{}
	gb.clobberPad = -1
	gb.empty = map[int]int{}
	gb.joins = map[int32]int{}
	gb.pseudoDtor = gb.p.pseudoDestructors(gb.fn)
	epi := -1
	var order []int
	ehOnly := gb.exceptionalSegments()
	gb.ehOnly = ehOnly
	gb.exitSeg = gb.exitJump()
	gb.mergePadMoves()
	gb.jumpsOverPads()
	place := func(si int) {
		s := &segs[si]
		if si == gb.exitSeg {
			return
		}
		switch s.kind {
		case segNopGoto:
			if s.src >= 0 {
				return
			}
		case segJmpArm, segDispatch, segMerged:
			return
		case segEpilogue:
			epi = si
			return
		}
		if e, ok := entries[s.first]; ok && e.visible < 0 {
			// The loop's entry block, before its body.
			gb.loopEntry[e.cond] = [3]int{len(g.blocks), s.first, e.back}
			g.blocks = append(g.blocks, gccBlock{first: s.first, end: s.first, lines: []int32{e.line}})
		}
		for _, sj := range append([]int{si}, after[si]...) {
			t := &segs[sj]
			if t.first > fn.first && p.endsGccBlock(t.first-1) && (t.call >= 0 && p.insns[t.call].resume && !p.endsCatch(t.first-1) && !p.insns[t.first-1].freeExc ||
				ehOnly[sj] && (gb.padLike(t.first) || p.destructorCall(t.first-1))) {
				// Resuming the unwind, or going on to an outer landing
				// pad, after a cleanup's call: gcc ends the cleanup in an
				// empty block that goes on (not as a fallthrough) there.
				// (A throw expression's cleanup, which frees the
				// exception when its constructor throws, resumes from
				// its call's block: no clobber follows that call.)
				gb.resxEntry[t.first] = len(g.blocks)
				g.blocks = append(g.blocks, gccBlock{first: t.first, end: t.first})
			}
			if t.call >= 0 && p.insns[t.call].resume && p.clobberRegion(fn, t.call) {
				// The unwind resumes through the cleanup of the
				// aggregates' lifetimes: that block (at the end) is the
				// resume's.
				t.block = gb.clobber()
				continue
			}
			t.block = len(g.blocks)
			g.blocks = append(g.blocks, gccBlock{first: t.first, end: t.end})
			order = append(order, sj)
			if gb.outerPadJump(sj) {
				// A cleanup's call, then on to an outer landing pad:
				// the resx's goto is a block of its own.
				gb.empty[sj] = len(g.blocks)
				g.blocks = append(g.blocks, gccBlock{first: t.end, end: t.end})
			}
			if t.emptyAfter >= 0 {
				gb.empty[sj] = len(g.blocks)
				ls := []int32{t.emptyAfter}
				if l := p.continueIf(t.emptyAfter); l >= 0 {
					// A continue's prediction, on its if's line.
					ls = appendLine(ls, l)
				}
				g.blocks = append(g.blocks, gccBlock{first: t.end, end: t.end, lines: ls})
			}
			if t.call >= 0 && p.insns[t.call].twice {
				// gcc's abnormal dispatcher after setjmp: no arc in, a
				// fake one out.
				g.blocks = append(g.blocks, gccBlock{first: t.end, end: t.end, succ: []gccArc{{to: 1, fake: true}}})
			}
			for _, ci := range copyAfter[sj] {
				gb.copies[ci].block = len(g.blocks)
				var ls []int32
				if l := gb.copies[ci].line; l >= 0 {
					ls = []int32{l}
				}
				g.blocks = append(g.blocks, gccBlock{first: t.end, end: t.end, lines: ls})
			}
			for _, ij := range innerAfter[sj] {
				gb.inner[ij].block = len(g.blocks)
				g.blocks = append(g.blocks, gccBlock{first: t.end, end: t.end, lines: []int32{gb.inner[ij].line}})
			}
			for _, l := range joinAfter[sj] {
				gb.joins[l] = len(g.blocks)
				g.blocks = append(g.blocks, gccBlock{first: t.end, end: t.end, lines: []int32{l}})
			}
			for _, top := range latchAfter[sj] {
				gb.latch[top] = len(g.blocks)
				g.blocks = append(g.blocks, gccBlock{first: t.end, end: t.end})
			}
		}
	}
	// The function's own code, its return, then the code only exception
	// handling reaches (gcc lowers the landing pads after the body).
	for si := range segs {
		if !ehOnly[si] {
			place(si)
		}
	}
	gb.fallOff, gb.finally, gb.ret = -1, -1, -1
	if epi >= 0 {
		gb.tail(epi)
	}
	for si := range segs {
		if ehOnly[si] {
			place(si)
		}
	}
	tails := gb.tempPads()
	if gb.needsClobberPad() {
		gb.clobber()
	}
	for _, t := range tails {
		g.blocks[t].succ = []gccArc{{to: gb.clobberPad, noFall: true}}
	}
	for _, e := range entries {
		if e.visible >= 0 {
			// Jumps from outside the loop go through its entry's jump.
			gb.loopEntry[e.cond] = [3]int{segsBlock(gb, e.visible), e.visible, fn.end}
			gb.visibleEntry[e.visible] = true
		}
	}
	gb.sretPads()
	for _, si := range order {
		gb.blockArcs(si)
	}
	for _, bi := range []int{gb.fallOff, gb.ret} {
		if bi >= 0 {
			g.blocks[bi].succ = []gccArc{{to: 1}}
		}
	}
	if gb.finally >= 0 {
		g.blocks[gb.finally].succ = []gccArc{{to: gb.ret}}
	}
	for _, j := range gb.joins {
		g.blocks[j].succ = []gccArc{{to: gb.afterJoin()}}
	}
	for _, c := range gb.copies {
		if c.block > 0 {
			g.blocks[c.block].succ = []gccArc{{to: gb.enter(c.dest, -1)}}
		}
	}
	for _, ij := range gb.inner {
		to, ok := gb.joins[ij.line]
		switch {
		case ij.parent >= 0:
			to = gb.inner[ij.parent].block
		case ij.target >= 0:
			to = segsBlock(gb, ij.target)
		case !ok:
			to = gb.afterJoin()
		}
		g.blocks[ij.block].succ = []gccArc{{to: to}}
	}
	for cond, e := range gb.loopEntry {
		g.blocks[e[0]].succ = []gccArc{{to: segsBlock(gb, cond)}}
	}
	for top, l := range gb.latch {
		g.blocks[l].succ = []gccArc{{to: segsBlock(gb, top)}}
	}
	for k, e := range gb.resxEntry {
		g.blocks[e].succ = []gccArc{{to: segsBlock(gb, k), noFall: true}}
	}
	g.blocks[0].succ = []gccArc{{to: 2, fall: true}}
	gb.finallySwitches()
	gb.mergeCatchTests()
	g = gb.g
	g.finish(p)
	return g
}

// exceptionalSegments marks the segments that only exception handling
// reaches: not reached from the function's entry, but from a landing pad.
func (gb *graphBuilder) exceptionalSegments() map[int]bool {
	p, fn, segs := gb.p, gb.fn, gb.segs
	if len(p.lpads[fn.low]) == 0 {
		return nil
	}
	succ := func(si int) []int {
		s := &segs[si]
		in := &p.insns[s.end-1]
		var ks []int
		switch {
		case in.kind == kJcc:
			ks = append(ks, p.index(in.target), s.end)
		case in.kind == kJmp:
			ks = append(ks, p.index(in.target))
		case in.kind == kJmpInd:
			if sw := p.switches[in.gline]; in.gline >= 0 && sw != nil {
				for _, t := range append(sw.targets, sw.deflt) {
					ks = append(ks, p.index(t))
				}
			}
		case in.kind == kRet || in.noReturn:
		default:
			ks = append(ks, s.end)
		}
		var out []int
		for _, k := range ks {
			if sj, ok := gb.segAt[k]; ok {
				out = append(out, sj)
			}
		}
		return out
	}
	walk := func(from []int) map[int]bool {
		seen := map[int]bool{}
		for len(from) > 0 {
			si := from[len(from)-1]
			from = from[:len(from)-1]
			if seen[si] {
				continue
			}
			seen[si] = true
			from = append(from, succ(si)...)
		}
		return seen
	}
	normal := walk([]int{0})
	var pads []int
	for _, cs := range p.lpads[fn.low] {
		if si, ok := gb.segAt[p.index(cs.lp)]; ok && cs.lp != 0 {
			pads = append(pads, si)
		}
	}
	out := map[int]bool{}
	for si := range walk(pads) {
		if !normal[si] {
			out[si] = true
		}
	}
	return out
}

// segsBlock returns the block of the segment starting at instruction k.
func segsBlock(gb *graphBuilder, k int) int {
	if si, ok := gb.segAt[k]; ok {
		return gb.segs[si].block
	}
	return -1
}

// afterJoin returns the block a return value's join goes on to.
func (gb *graphBuilder) afterJoin() int {
	if gb.finally >= 0 {
		return gb.finally
	}
	return gb.ret
}

// classify sets the kind of each segment.
func (gb *graphBuilder) classify() {
	gb.splitVaArgJoins()
	p, fn, segs := gb.p, gb.fn, gb.segs
	for si := range segs {
		s := &segs[si]
		ins := p.insns[s.first:s.end]
		prev := (*insn)(nil)
		if s.first > fn.first {
			prev = &p.insns[s.first-1]
		}
		switch {
		case ins[len(ins)-1].kind == kRet && (allEpilogue(ins) || s.first == gb.epi) && gb.epi >= 0:
			s.kind = segEpilogue
		case ins[0].kind == kNop && ins[0].gline >= 0 && (len(ins) == 1 || len(ins) == 2 && ins[1].kind == kJmp) &&
			prev != nil && (prev.kind == kJmp || prev.kind == kRet):
			s.kind = segNopGoto
			s.src = -1
		case len(ins) == 1 && ins[0].kind == kJmp && prev != nil && prev.kind == kJcc && prev.gline == ins[0].gline:
			s.kind = segJmpArm
		case len(ins) == 1 && ins[0].kind == kJmp && prev != nil && prev.kind == kJcc && ins[0].gline >= 0 &&
			p.index(ins[0].target) >= 0 && p.insns[p.index(ins[0].target)].gline == ins[0].gline && !p.loopLineOf(ins[0].gline):
			// The jump carries its destination's line: the branch's
			// other arm, not a block.
			s.kind = segJmpArm
		}
	}
	// The return value moved into rax on the closing brace, then a jump
	// to the epilogue: the return block's start, not a block.
	for si := range segs {
		s := &segs[si]
		ins := p.insns[s.first:s.end]
		if s.kind == segPlain && len(ins) == 2 && ins[0].movRax && ins[1].kind == kJmp && gb.epi >= 0 &&
			p.index(ins[1].target) == gb.epi && ins[0].gline >= 0 && p.lines[ins[0].gline].line == fn.endLine &&
			!(s.first > fn.first && p.destructorCall(s.first-1)) {
			s.kind = segJmpArm
		}
	}
	// The jump to the return after a call that built the returned object
	// in the return slot: no block (slotReturnJump).
	for si := range segs {
		if s := &segs[si]; s.kind == segPlain && p.slotReturnJump(fn, s) && !p.clobberRegion(fn, s.first-1) {
			s.kind = segJmpArm
		}
	}
	// A repeated break's other jumps are ways into its block.
	for si := range segs {
		s := &segs[si]
		if last, ok := gb.shared[s.first]; ok && s.end == s.first+1 && last != s.first && s.kind == segPlain {
			s.kind = segJmpArm
		}
	}
	// A jump to a goto's nop of its own line is the way into that
	// goto's block (a loop's exit into the break after it).
	for si := range segs {
		s := &segs[si]
		in := &p.insns[s.first]
		if s.kind != segPlain || s.end != s.first+1 || in.kind != kJmp || in.gline < 0 {
			continue
		}
		if ti, ok := gb.segAt[p.index(in.target)]; ok && segs[ti].kind == segNopGoto && p.insns[segs[ti].first].gline == in.gline {
			s.kind = segJmpArm
		}
	}
	// A switch's dispatch (a jump table or a tree of compares) is one
	// block: its first segment, where the switch line's code starts,
	// takes the segments after it that hold only code of that line.
	// (A call in the switch's expression ends a block of its own before
	// the dispatch: parcel.c's `switch (size_class(p->dims)) {`.)
	head := map[int32]int{} // switch line -> its dispatch's first segment
	for si := range segs {
		s := &segs[si]
		g := p.insns[s.end-1].gline
		if g < 0 || p.switches[g] == nil || s.kind != segPlain || s.call == s.end-1 {
			continue
		}
		if h, ok := head[g]; ok && allLine(p.insns[s.first:s.end], g) {
			s.kind, s.src = segDispatch, h
		} else if !ok {
			head[g] = si
		}
	}
	// A variadic function's prologue tests whether to save the vector
	// registers (test %al,%al; je): no block for gcc. (The saves fall
	// into the code after them; a function on one line whose first
	// statement tests a bool, `return ok ? a : b;`, jumps on.)
	if len(segs) > 2 && segs[0].end-segs[0].first >= 2 && p.insns[segs[0].end-2].testAL && p.insns[segs[0].end-1].kind == kJcc &&
		p.onDeclLine(gb.fn, segs[1].first, segs[1].end) && p.insns[segs[1].end-1].kind != kJmp {
		segs[1].kind, segs[1].src = segMerged, 0
		segs[2].kind, segs[2].src = segMerged, 0
	}
	// A loop whose head is the function's first statement (a do-while
	// before any other code): gcc's first block starts with the loop's
	// label, so the function's entry and the loop's back jumps go to one
	// block, which has the declaration's line too.
	if len(segs) > 1 && segs[0].kind == segPlain && segs[1].kind == segPlain && segs[0].call < 0 &&
		p.insns[segs[0].end-1].kind == kOther && p.onDeclLine(gb.fn, segs[0].first, segs[0].end) &&
		gb.backTarget(segs[1].first) {
		segs[1].kind, segs[1].src = segMerged, 0
	}
	// A float comparison's unordered test (jp) and its compare: one
	// condition for gcc.
	for si := 0; si+1 < len(segs); si++ {
		s, t := &segs[si], &segs[si+1]
		jp, jc := &p.insns[s.end-1], &p.insns[t.end-1]
		if s.kind != segPlain || t.kind != segPlain || !jp.parity || jc.kind != kJcc || jp.gline != jc.gline ||
			!allLine(p.insns[t.first:t.end], jp.gline) || (jp.target != jc.target && p.index(jp.target) != t.end) {
			continue
		}
		t.kind, t.src = segMerged, si
		if s.src > 0 && s.kind == segMerged {
			t.src = s.src
		}
	}
	// The source of each goto's nop: the one segment whose conditional
	// branch jumps to it.
	for si := range segs {
		s := &segs[si]
		last := &p.insns[s.end-1]
		if s.kind == segJmpArm && si > 0 && last.kind == kJmp {
			// An arm's jump: its branch is the segment before it.
			if ti, ok := gb.segAt[p.index(last.target)]; ok && segs[ti].kind == segNopGoto {
				src := si - 1
				if segs[src].kind == segMerged {
					src = segs[src].src
				}
				if segs[src].kind == segDispatch {
					// The last jump of a switch's compare tree, to a
					// case that only breaks (`default: break;`): as
					// for the tree's branches below.
					if h := segs[src].src; gb.laterCaseBefore(h, ti) {
						segs[ti].src = max(segs[ti].src, h)
					}
					continue
				}
				segs[ti].src = max(segs[ti].src, src)
			}
			continue
		}
		if last.kind == kJcc && last.gline >= 0 && p.switches[last.gline] != nil {
			// A case that only breaks, reached from the switch's
			// compare tree: gcc lays its block out among the cases in
			// source order, though the machine code may put its goto's
			// nop after cases that follow it in the source.
			if ti, ok := gb.segAt[p.index(last.target)]; ok && segs[ti].kind == segNopGoto && segs[ti].src < 0 {
				h := si
				if s.kind == segDispatch {
					h = s.src
				}
				if gb.laterCaseBefore(h, ti) {
					segs[ti].src = h
				}
			}
			continue
		}
		if last.kind != kJcc {
			continue
		}
		if ti, ok := gb.segAt[p.index(last.target)]; ok && segs[ti].kind == segNopGoto {
			src := si
			if s.kind == segMerged {
				src = s.src
			}
			segs[ti].src = max(segs[ti].src, src) // the last branch to it (`if (a || b) goto x;`)
		}
	}
}

// laterCaseBefore reports whether a segment between a switch's dispatch
// head h and the case's nop segment ti has code of a later source line
// than the nop's: the machine code laid the case out of source order.
func (gb *graphBuilder) laterCaseBefore(h, ti int) bool {
	p, segs := gb.p, gb.segs
	nl := p.insns[segs[ti].first].gline
	for j := h + 1; j < ti && nl >= 0; j++ {
		gl := p.insns[segs[j].first].gline
		if segs[j].kind == segPlain && gl >= 0 && p.lines[gl].file == p.lines[nl].file && p.lines[gl].line > p.lines[nl].line {
			return true
		}
	}
	return false
}

// backTarget reports whether a jump of the function from after
// instruction k goes back to it.
func (gb *graphBuilder) backTarget(k int) bool {
	p := gb.p
	for j := k; j < gb.fn.end; j++ {
		if in := &p.insns[j]; (in.kind == kJcc || in.kind == kJmp) && p.index(in.target) == k {
			return true
		}
	}
	return false
}

// splitVaArgJoins finds the va_args of the function. At instrumentation
// va_arg is an internal call (with a fake exit arc, so a call record),
// lowered later into a test of the register save area's offset, two ways
// to the argument and a join that loads it. The test's segment takes the
// two ways and the load (and the store of the value into a variable:
// `v = va_arg(ap, T);` is one call statement); the call's block ends
// there and the rest of the join is a segment of its own.
func (gb *graphBuilder) splitVaArgJoins() {
	p := gb.p
	for si := 0; si+3 < len(gb.segs); si++ {
		segs := gb.segs
		s := &segs[si]
		last := &p.insns[s.end-1]
		if last.kind != kJcc || last.gline < 0 || !p.lineHas(p.lines[last.gline], "va_arg") {
			continue
		}
		reg, over, join := &segs[si+1], &segs[si+2], &segs[si+3]
		rl := &p.insns[reg.end-1]
		if rl.kind != kJmp || p.index(rl.target) != join.first || p.index(last.target) != over.first ||
			!allLine(p.insns[reg.first:reg.end], last.gline) || !allLine(p.insns[over.first:over.end], last.gline) {
			continue
		}
		reg.kind, reg.src = segMerged, si
		over.kind, over.src = segMerged, si
		// The load, and a store of it into a variable.
		cut := join.first + 1
		if cut < join.end && p.insns[cut].retStore && (cut+1 >= join.end || p.insns[cut+1].gline != last.gline) {
			cut++
		}
		if cut < join.end {
			rest := seg{first: cut, end: join.end, emptyAfter: -1, call: join.call, vaArg: join.vaArg}
			join.end, join.call, join.vaArg = cut, -1, 0
			gb.segs = append(gb.segs[:si+4], append([]seg{rest}, gb.segs[si+4:]...)...)
		}
		segs = gb.segs
		segs[si+3].kind, segs[si+3].src = segMerged, si
		segs[si].vaArg = cut
		gb.segAt = map[int]int{}
		for i, x := range gb.segs {
			gb.segAt[x.first] = i
		}
	}
}

// onDeclLine reports whether instructions [a, b) all have the gcov line
// of fn's declaration (its prologue).
func (p *Program) onDeclLine(fn *function, a, b int) bool {
	for k := a; k < b; k++ {
		g := p.insns[k].gline
		if g < 0 || p.lines[g].line != fn.startLine || p.lines[g].file != fn.file {
			return false
		}
	}
	return true
}

// loopEntryInfo is a loop whose entry block the machine code left out.
type loopEntryInfo struct {
	cond    int   // first instruction of the condition
	line    int32 // the loop's line
	visible int   // the entry's own jump when the machine code kept it, else -1
	back    int   // the back edge's jump (jumps after it come from outside the loop)
}

// findLoopEntries finds the while and for loops whose entry gcc keeps as
// a block of its own (the loop follows a label or a join: its `goto` to
// the condition starts a block) while the machine code jumps straight to
// the condition (the jump was forwarded, and its line is the
// condition's, so no nop keeps it). A loop that starts an outer loop's
// body is one (`while (a) { while (b) ...`): the outer body's label
// starts the block of the inner loop's goto, to which the outer loop's
// back edge goes, forwarded in the machine code to the inner condition.
// It returns them by the first instruction of their body.
func (gb *graphBuilder) findLoopEntries() map[int]loopEntryInfo {
	p, fn := gb.p, gb.fn
	out := map[int]loopEntryInfo{}
	src := p.source(fn.file)
	if src == nil {
		return out
	}
	// Jumps into each instruction, by where they come from.
	for si := range gb.segs {
		c := &gb.segs[si]
		if c.kind != segPlain {
			continue
		}
		line := p.insns[c.first].gline
		if line < 0 || p.lines[line].file != fn.file || !loopLine(src, p.lines[line].line) {
			continue
		}
		// The loop's back edge: a conditional jump on the loop's line,
		// at or after the condition, back before it.
		body, back := -1, -1
		for k := c.first; k < fn.end && k < c.first+64; k++ {
			in := &p.insns[k]
			if in.kind == kJcc && in.target < p.insns[c.first].addr {
				body, back = p.index(in.target), k
				break
			}
			if in.kind == kJmp || in.kind == kRet || in.kind == kJmpInd {
				break
			}
		}
		if body < 0 {
			continue
		}
		// Entries from before the body.
		hidden := false
		visible := -1 // a segment that is only the entry's jump
		for k := fn.first; k < body; k++ {
			in := &p.insns[k]
			if (in.kind != kJcc && in.kind != kJmp) || p.index(in.target) != c.first {
				continue
			}
			if si, ok := gb.segAt[k]; ok && in.kind == kJmp && in.gline == line && gb.segs[si].end == k+1 {
				visible = k
			}
			if in.kind == kJcc || in.gline != line {
				hidden = true
			}
		}
		if gb.dispatchesTo(c.first, body) {
			hidden = true
		}
		for k := back + 1; k < fn.end && !hidden; k++ {
			// An outer loop's back edge.
			in := &p.insns[k]
			hidden = in.kind == kJcc && p.index(in.target) == c.first && in.gline != line
		}
		if hidden {
			out[body] = loopEntryInfo{cond: c.first, line: line, visible: visible, back: back}
		}
	}
	return out
}

// dispatchesTo reports whether a switch's dispatch before instruction
// before jumps to instruction k.
func (gb *graphBuilder) dispatchesTo(k, before int) bool {
	p := gb.p
	for _, s := range gb.segs {
		if s.end > before {
			break
		}
		in := &p.insns[s.end-1]
		if in.gline < 0 || p.switches[in.gline] == nil {
			continue
		}
		sw := p.switches[in.gline]
		if in.kind == kJmpInd {
			for _, t := range sw.targets {
				if p.index(t) == k {
					return true
				}
			}
			if sw.deflt != 0 && p.index(sw.deflt) == k {
				return true
			}
		}
		if (in.kind == kJcc || in.kind == kJmp) && p.index(in.target) == k {
			return true
		}
	}
	return false
}

// loopLineOf reports whether gcov line g starts a while or for loop.
func (p *Program) loopLineOf(g int32) bool {
	k := p.lines[g]
	return loopLine(p.source(k.file), k.line)
}

// loopLine reports whether source line ln starts a while or for loop
// (not the end of a do-while).
func loopLine(src []string, ln int32) bool {
	if ln < 1 || int(ln) > len(src) {
		return false
	}
	t := strings.TrimSpace(src[ln-1])
	return (strings.HasPrefix(t, "while") && !isIdentByte(t, 5)) || (strings.HasPrefix(t, "for") && !isIdentByte(t, 3))
}

// tail makes the blocks the epilogue segment epi stands for.
func (gb *graphBuilder) tail(epi int) {
	p, fn, g := gb.p, gb.fn, gb.g
	first := gb.segs[epi].first
	if fn.returnsValue && p.canFallOff(fn, first) {
		gb.fallOff = len(g.blocks)
		g.blocks = append(g.blocks, gccBlock{first: first, end: first, lines: p.lineIDs(fn.file, fn.endLine)})
	}
	if p.hasAggregateLocal(fn) && p.explicitReturns(fn) >= 2 && !gb.finallyCall() {
		gb.finally = len(g.blocks)
		g.blocks = append(g.blocks, gccBlock{first: first, end: first})
	}
	gb.ret = len(g.blocks)
	gb.segs[epi].block = gb.ret
	b := gccBlock{first: first, end: gb.segs[epi].end}
	if l := p.singleReturnLine(fn); l >= 0 && fn.returnsValue {
		b.lines = []int32{l}
	}
	g.blocks = append(g.blocks, b)
}

// endlessLoop matches the head of a loop without a condition.
var endlessLoop = newLazyRegexp(`^\s*(for\s*\(\s*;\s*;\s*\)|while\s*\(\s*1\s*\))\s*\{?\s*$`)

// findLatches finds the loops without a condition (for (;;), while (1)):
// gcc ends their body in a block that jumps back to the top (the
// machine code jumps straight there). It returns the first instruction
// of each such loop's body by the last segment of the loop, after which
// gcc lays out that block.
func (gb *graphBuilder) findLatches() map[int][]int {
	p, fn := gb.p, gb.fn
	out := map[int][]int{}
	src := p.source(fn.file)
	for ln := max(fn.startLine, 1); ln < fn.endLine && int(ln) <= len(src); ln++ {
		if !endlessLoop.MatchString(src[ln-1]) {
			continue
		}
		// The loop's extent, to its closing brace.
		end, depth := ln, 0
		for l := ln; l <= fn.endLine && int(l) <= len(src); l++ {
			for _, c := range stripStrings(src[l-1]) {
				switch c {
				case '{':
					depth++
				case '}':
					depth--
				}
			}
			if depth <= 0 && l > ln {
				end = l
				break
			}
		}
		// The top: the first instruction of the loop's first line with code.
		top := -1
		for k := fn.first; k < fn.end && top < 0; k++ {
			if g := p.insns[k].gline; g >= 0 && p.lines[g].file == fn.file && p.lines[g].line > ln && p.lines[g].line < end {
				top = k
			}
		}
		if top < 0 {
			continue
		}
		back := false
		for k := top; k < fn.end; k++ {
			if in := &p.insns[k]; (in.kind == kJmp || in.kind == kJcc) && p.index(in.target) == top {
				back = true
			}
		}
		if !back {
			continue
		}
		last := -1
		for si, s := range gb.segs {
			if g := p.insns[s.first].gline; s.kind == segPlain && g >= 0 && p.lines[g].file == fn.file &&
				p.lines[g].line > ln && p.lines[g].line < end {
				last = si
			}
		}
		if last >= 0 && last+1 < len(gb.segs) {
			// The body ends in a call (which ends gcc's block): the jump
			// back, on the loop's line, is the latch block already.
			if n := &gb.segs[last+1]; n.end-n.first == 1 {
				in := &p.insns[n.first]
				if in.kind == kJmp && p.index(in.target) == top && in.gline >= 0 && p.lines[in.gline].line == ln &&
					p.lines[in.gline].file == fn.file {
					continue
				}
			}
		}
		if last >= 0 {
			out[last] = append(out[last], top)
		}
	}
	return out
}

// findJoins finds the return statements with a conditional value (?:,
// && or ||) whose arms go straight to the epilogue: gcc joins the arms in
// a block of its own, which copies the value into the return value (no
// code at -O0). It returns the return lines by the segment of their last
// arm, after which gcc lays out the join, and the joins of conditional
// expressions nested in their arms (gb.inner) by the segment of their
// last arm.
func (gb *graphBuilder) findJoins() (map[int][]int32, map[int][]int) {
	p, fn := gb.p, gb.fn
	out := map[int][]int32{}
	innerAfter := map[int][]int{}
	gb.armJoin = map[int]int{}
	gb.expressionJoins(innerAfter)
	if !fn.returnsValue {
		return out, innerAfter
	}
	first := -1
	for _, s := range gb.segs {
		if s.kind == segEpilogue {
			first = s.first
		}
	}
	if first < 0 {
		return out, innerAfter
	}
	n := map[int32]int{}
	last := map[int32]int{}
	armEnd := map[int]int{} // an arm's last instruction -> its segment
	for si, s := range gb.segs {
		in := &p.insns[s.end-1]
		if in.gline < 0 || !p.returnLine(in.gline) || s.kind != segPlain {
			continue
		}
		if (in.kind == kJmp || in.kind == kJcc) && p.index(in.target) == first ||
			s.end == first && in.kind != kJmp && in.kind != kRet {
			n[in.gline]++
			last[in.gline] = si
			armEnd[s.end-1] = si
		}
	}
	for _, l := range sortedKeys(n) {
		if n[l] >= 2 {
			stmt := p.returnStart(l)
			gb.nestedJoins(l, -1, armEnd, innerAfter, func(g int32) bool { return stmt >= 0 && p.returnStart(g) == stmt })
			out[last[l]] = append(out[last[l]], l)
		}
	}
	return out, innerAfter
}

// scopeCopy is the copy of a scope's clobbers that gcc's try/finally
// lowering (tree-eh.cc's lower_try_finally_copy, at -O0 for a finally of
// clobbers) makes for a destination that two or more jumps out of the
// scope go to (break, continue, goto, return): a block without code, with the
// location of the first of them, which they all go through to their
// destination, laid out after the scope's code. (With one jump the copy
// joins the jump's block: findScopeExits, scopeExitAfter.)
type scopeCopy struct {
	line  int32
	dest  int // the destination's first instruction
	block int
}

// findScopeCopies finds the scope-exit copies of the function and returns
// them by the segment after which gcc lays them out.
func (gb *graphBuilder) findScopeCopies() map[int][]int {
	p, fn := gb.p, gb.fn
	gb.copyOf = map[int]int{}
	out := map[int][]int{}
	for _, r := range fn.memScopes {
		in := func(k int) bool {
			return k >= fn.first && k < fn.end && p.insns[k].addr >= r[0] && p.insns[k].addr < r[1]
		}
		exits := map[int][]int{} // destination -> jumps
		var dests []int
		lastSeg := -1
		for si, s := range gb.segs {
			if in(s.first) && s.kind == segPlain {
				lastSeg = si // (a goto's nop goes after its branch)
			}
		}
		for k := fn.first; k < fn.end; k++ {
			ins := &p.insns[k]
			if !in(k) || ins.gline < 0 || !jumpStmt.MatchString(p.lineText(ins.gline)) && !(ins.kind == kJmp && p.returnLine(ins.gline)) {
				continue
			}
			if _, done := gb.copyOf[k]; done {
				continue // an inner scope's
			}
			d := -1
			switch {
			case ins.kind == kJmp:
				d = p.index(ins.target)
			case ins.kind == kNop && k+1 < fn.end && p.insns[k+1].gline != ins.gline:
				d = k + 1
			}
			if d < 0 || in(d) {
				continue
			}
			if exits[d] == nil {
				dests = append(dests, d)
			}
			exits[d] = append(exits[d], k)
		}
		if lastSeg < 0 {
			continue
		}
		// The copy for falling off the scope's end has no location: a
		// block of its own when several ways reach that end (an if/else's
		// arms, a switch's breaks), else part of the block before.
		end := -1 // the first instruction after the scope
		for k := fn.first; k < fn.end; k++ {
			if p.insns[k].addr == r[1] {
				end = k
				break
			}
		}
		jumps := map[int]bool{}
		for _, ks := range exits {
			for _, k := range ks {
				jumps[k] = true
			}
		}
		var falls []int
		for k := fn.first; k < fn.end && end > fn.first; k++ {
			ins := &p.insns[k]
			if _, done := gb.copyOf[k]; !in(k) || jumps[k] || done {
				continue
			}
			if (ins.kind == kJmp || ins.kind == kJcc) && p.index(ins.target) == end ||
				k == end-1 && ins.kind != kJmp && ins.kind != kRet && ins.kind != kJmpInd && !ins.noReturn {
				falls = append(falls, k)
			}
		}
		// (It joins the block of the scope's end when nothing else enters
		// that: a loop's increment without a continue to it.)
		others := len(exits[end]) > 0 || // a break, continue or goto to it
			len(falls) >= 2 && p.jumpedToExcept(fn, end, func(k int) bool { return slices.Contains(falls, k) })
		// One way falling off the end also has a block of its own when it
		// is a call: gcc's coverage instrumentation splits a block after
		// each call (gimple_flow_call_edges_add), and the fallthrough copy
		// (the clobbers and the goto past the jumps' copies) is what
		// follows the call, while another way into the end keeps it apart
		// from the end's block (calendar.c: the printf ending a loop body
		// with two continues).
		oneCall := len(falls) == 1 && (p.insns[falls[0]].kind == kCall || p.insns[falls[0]].kind == kCallInd)
		dest, endJump := end, -1
		if oneCall && !others && end > fn.first && falls[0] == end-1 {
			// The call (a local's destructor, at its scope's end) then
			// the code after the scope: its clobbers join that code's
			// block only when nothing else enters it (gcc merged the
			// two before instrumentation split the block after the
			// call). A jump there (an if arm's end over its else) is
			// no statement: the code after the scope is its target.
			if in := &p.insns[end]; in.kind == kJmp && p.index(in.target) > end {
				dest, endJump = p.index(in.target), end
			}
			others = gb.enteredElsewhere(dest, falls[0], endJump)
		}
		if (len(falls) >= 2 || oneCall) && others {
			ci := len(gb.copies)
			gb.copies = append(gb.copies, scopeCopy{line: -1, dest: dest})
			for _, k := range falls {
				gb.copyOf[k] = ci
			}
			if endJump >= 0 {
				gb.copyOf[endJump] = ci
				if sj, ok := gb.segAt[endJump]; ok && gb.segs[sj].end == endJump+1 && gb.segs[sj].kind == segPlain {
					// The jump on its own (with the line of a void
					// function's closing brace): the copy's goto, no
					// block of its own.
					gb.segs[sj].kind = segJmpArm
				}
			}
			out[lastSeg] = append(out[lastSeg], ci)
		}
		for _, d := range dests {
			ks := exits[d]
			if len(ks) < 2 {
				continue
			}
			first := ks[0]
			for _, k := range ks {
				if p.lines[p.insns[k].gline].line < p.lines[p.insns[first].gline].line {
					first = k
				}
			}
			ci := len(gb.copies)
			gb.copies = append(gb.copies, scopeCopy{line: p.insns[first].gline, dest: d})
			for _, k := range ks {
				gb.copyOf[k] = ci
			}
			out[lastSeg] = append(out[lastSeg], ci)
		}
	}
	return out
}

// innerJoin is a conditional expression nested in an arm of a returned
// one (`return a < b ? (b < c ? b : c) : a;`): gcc joins its arms in a
// block of their own, which copies its value into the outer expression's
// temporary (no code at -O0) and goes on to the outer join.
type innerJoin struct {
	line   int32
	parent int // the enclosing inner join, or -1: the outer join
	target int // the outer join's instruction, or -1: the return's join
	block  int
}

// expressionJoins finds the conditional expressions nested in the arms of
// one that is not returned (an argument, an assignment's value): its arms
// jump to (or fall into) code of their line that uses the value.
func (gb *graphBuilder) expressionJoins(innerAfter map[int][]int) {
	p := gb.p
	arms := map[int]map[int]int{} // join instruction -> arm's last instruction -> segment
	for si, s := range gb.segs {
		in := &p.insns[s.end-1]
		if s.kind != segPlain || in.gline < 0 || !p.lineHas(p.lines[in.gline], "?") {
			continue
		}
		t := -1
		switch {
		case in.kind == kJmp:
			t = p.index(in.target)
		case in.kind == kOther && s.call < 0:
			t = s.end
		}
		if t < gb.fn.first || t >= gb.fn.end || p.insns[t].gline != in.gline || t == gb.epi {
			continue
		}
		if arms[t] == nil {
			arms[t] = map[int]int{}
		}
		arms[t][s.end-1] = si
	}
	for t, a := range arms {
		if len(a) >= 3 {
			l := p.insns[t].gline
			gb.nestedJoins(l, t, a, innerAfter, func(g int32) bool { return g == l })
		}
	}
}

// nestedJoins finds the inner joins of the return statement on line l,
// whose arms' last instructions are armEnd's keys, from its conditional
// jumps: a jump forward inside the statement's code splits it into two
// arms; an arm holding two or more of the statement's arms, which nothing
// outside it jumps into, is a nested conditional expression.
func (gb *graphBuilder) nestedJoins(l int32, target int, armEnd map[int]int, innerAfter map[int][]int, same func(int32) bool) {
	p, fn := gb.p, gb.fn
	lastArm, firstArm := -1, fn.end
	for k := range armEnd {
		if p.insns[k].gline == l {
			lastArm = max(lastArm, k)
			firstArm = min(firstArm, gb.segs[armEnd[k]].first)
		}
	}
	a := firstArm
	for a > fn.first && p.insns[a-1].gline >= 0 && same(p.insns[a-1].gline) {
		a--
	}
	singleEntry := func(s, e int) bool {
		for k := fn.first; k < fn.end; k++ {
			in := &p.insns[k]
			if (in.kind == kJcc || in.kind == kJmp) && (k < s || k >= e) {
				if t := p.index(in.target); t > s && t < e {
					return false
				}
			}
		}
		return true
	}
	top := func(ij int) int {
		for gb.inner[ij].parent >= 0 {
			ij = gb.inner[ij].parent
		}
		return ij
	}
	var split func(a, b int) []int
	split = func(a, b int) []int {
		var arms []int
		for j := a; j < b; j++ {
			in := &p.insns[j]
			if _, ok := armEnd[j]; ok && in.gline == l {
				arms = append(arms, j)
			}
			if in.kind != kJcc {
				continue
			}
			t := p.index(in.target)
			if t <= j+1 || t >= b {
				continue
			}
			for _, r := range [][2]int{{j + 1, t}, {t, b}} {
				sub := split(r[0], r[1])
				if len(sub) >= 2 && singleEntry(r[0], r[1]) {
					ij := len(gb.inner)
					gb.inner = append(gb.inner, innerJoin{line: l, parent: -1, target: target})
					for _, x := range sub {
						if cur, ok := gb.armJoin[x]; ok {
							if t := top(cur); t != ij {
								gb.inner[t].parent = ij
							}
						} else {
							gb.armJoin[x] = ij
						}
					}
					at := armEnd[sub[len(sub)-1]]
					innerAfter[at] = append(innerAfter[at], ij)
				}
				arms = append(arms, sub...)
			}
			return arms
		}
		return arms
	}
	split(a, lastArm+1)
}

// returnStart returns the source line where the return statement that
// gcov line g belongs to starts, or -1 when g is no return's line.
func (p *Program) returnStart(g int32) int32 {
	k := p.lines[g]
	src := p.source(k.file)
	if k.line < 1 || int(k.line) > len(src) || !returnStatementAt(src, int(k.line)) {
		return -1
	}
	for l := k.line; l >= 1; l-- {
		if hasReturnWord(src[l-1]) {
			return l
		}
	}
	return -1
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys(m map[int32]int) []int32 {
	ks := make([]int32, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// hasAggregateLocal reports whether fn takes the address of a local (an
// array, a struct or an address-taken variable): gcc ends their lifetime
// in a block of its own that every return goes through.
func (p *Program) hasAggregateLocal(fn *function) bool {
	if fn.aggregateLocals {
		return true
	}
	for k := fn.first; k < fn.end; k++ {
		if p.insns[k].leaRBP {
			return true
		}
	}
	return false
}

// explicitReturns counts the return statements in fn's source.
func (p *Program) explicitReturns(fn *function) int {
	if fn.rets > 0 {
		return int(fn.rets) - 1
	}
	n := p.countReturns(fn)
	fn.rets = int32(n) + 1
	return n
}

// countReturns is explicitReturns without its memo.
func (p *Program) countReturns(fn *function) int {
	src := p.ownSource(fn)
	n := 0
	for ln := max(fn.startLine, 1); ln <= fn.endLine && int(ln) <= len(src); ln++ {
		if hasReturnWord(stripStrings(src[ln-1])) {
			n++
		}
	}
	return n
}

// enter returns the block control enters at instruction k coming from
// instruction from (-1: not known, -2: a switch's dispatch).
func (gb *graphBuilder) enter(k, from int) int {
	p := gb.p
	if ci, ok := gb.copyOf[from]; ok && gb.copies[ci].dest == k && gb.copies[ci].block > 0 {
		return gb.copies[ci].block // through the scope's clobbers
	}
	if ij, ok := gb.armJoin[from]; ok && gb.inner[ij].target == k && k >= 0 {
		return gb.inner[ij].block // a nested conditional expression's join
	}
	if e, ok := gb.loopEntry[k]; ok && (from == -2 || from >= 0 && (from < e[1] || from > e[2])) && !gb.visibleEntry[from] {
		return e[0]
	}
	if l, ok := gb.latch[k]; ok && from > k {
		return l // an endless loop's back jump
	}
	if from >= 0 {
		// A jump that gcc's forwarding sent past a break's block.
		for _, fw := range p.forwards {
			if p.index(fw.target) != k || from == fw.insn || fw.insn < gb.fn.first || fw.insn >= gb.fn.end {
				continue
			}
			if gl := p.insns[from].gline; gl >= 0 {
				if fl, at := p.lines[gl], p.lines[fw.gline]; fl.file == at.file && fl.line >= fw.chain && fl.line < at.line {
					return segsBlock(gb, fw.insn)
				}
			}
		}
	}
	if e, ok := gb.resxEntry[k]; ok && from == k-1 {
		return e // from the cleanup's call that falls into it
	}
	si, ok := gb.segAt[k]
	if !ok {
		return -1
	}
	if si == gb.exitSeg {
		return 1
	}
	s := &gb.segs[si]
	switch s.kind {
	case segJmpArm:
		if last, ok := gb.shared[s.first]; ok {
			return segsBlock(gb, last)
		}
		return gb.enter(p.index(p.insns[s.end-1].target), from)
	case segDispatch, segMerged:
		return gb.segs[s.src].block
	case segEpilogue:
		if from >= 0 {
			gl := p.insns[from].gline
			if gb.fallOff >= 0 && (gl < 0 || !p.returnLine(gl)) {
				return gb.fallOff
			}
			if ij, ok := gb.armJoin[from]; ok {
				return gb.inner[ij].block
			}
			if j, ok := gb.joins[gl]; ok {
				return j
			}
		}
		if gb.finally >= 0 {
			return gb.finally
		}
		return gb.ret
	}
	return s.block
}

// blockArcs sets the lines and arcs of segment si's block.
func (gb *graphBuilder) blockArcs(si int) {
	p, fn, g, segs := gb.p, gb.fn, gb.g, gb.segs
	s := &segs[si]
	b := &g.blocks[s.block]
	if s.first == fn.first && fn.startLine > 0 {
		b.lines = append(b.lines, p.lineIDs(fn.file, fn.startLine)...)
	}
	labels := p.labelsAt(gb.fi, s.first)
	if e, ok := gb.loopEntry[s.first]; ok && len(labels) > 0 {
		// The labels before a loop start its entry block.
		for _, l := range labels {
			g.blocks[e[0]].lines = appendLine(g.blocks[e[0]].lines, l)
		}
		labels = nil
	}
	for _, l := range labels {
		b.lines = appendLine(b.lines, l)
	}
	if k := s.first - 1; k > fn.first && p.insns[k].kind == kNop && p.insns[s.first].leader && p.namedLabel(p.insns[k].gline) {
		// A label whose line has only the nop of the edge falling into
		// it (its goto locus): the label statement starts the block the
		// jumps to it land in.
		b.lines = appendLine(b.lines, p.insns[k].gline)
	}
	if s.first > fn.first && !gb.ehOnly[si] && !p.insns[s.first].leader {
		if g := p.temporaryEnd(fn, s.first-1); g >= 0 {
			b.lines = appendLine(b.lines, g)
		} else {
			for _, g := range p.temporariesEnd(fn, s.first-1) {
				b.lines = appendLine(b.lines, g)
			}
		}
	}
	if gb.epi < 0 && p.insns[s.end-1].kind == kRet && p.epilogueAt(fn, s.first) && s.first > fn.first && p.insns[s.first-1].kind == kCall {
		// A void function's implicit return after its last call (a
		// line the block may have already: the destructor of a base
		// or member in a one-line destructor, `~D() noexcept { }`).
		for _, l := range p.lineIDs(fn.file, fn.endLine) {
			b.lines = appendLine(b.lines, l)
		}
	}
	end := s.end
	if last, ok := gb.shared[s.end-1]; ok && last != s.end-1 && s.end-1 > s.first {
		// The arm's jump into a repeated break's block.
		end--
	}
	ehPass := gb.ehOnly[si] && gb.passesToPad(s)
	if s.call >= 0 && p.insns[s.call].resume || p.bareReturnJump(fn, s) || ehPass {
		end = s.first // no line of its own
		if g := p.resumeTemporary(fn, s); g >= 0 {
			// Resuming after a temporary's destructor: the resx
			// follows the temporary's clobber, of its location.
			b.lines = appendLine(b.lines, g)
		}
	} else if j := &p.insns[end-1]; end-1 > s.first && j.kind == kJmp && j.gline >= 0 && j.gline != p.insns[end-2].gline &&
		p.index(j.target) >= 0 && p.insns[p.index(j.target)].gline == j.gline && !p.loopLineOf(j.gline) && !p.jumpLine(j.gline) {
		// The jump to a join carries the join's line (an arm's end
		// before a closing brace), not a statement of the block.
		end--
	} else if ij, ok := gb.armJoin[end-1]; ok && end-1 > s.first && j.kind == kJmp && j.gline == gb.inner[ij].line &&
		j.gline != p.insns[end-2].gline {
		// An arm's jump on to its nested conditional's join: the copy
		// into the outer expression's temporary there has the outer
		// expression's location, which the jump carries.
		end--
	}
	for k := s.first; k < end; k++ {
		for _, l := range p.graphPre[k] {
			b.lines = appendLine(b.lines, l)
		}
		for _, l := range gb.pseudoDtor[k] {
			b.lines = appendLine(b.lines, l)
		}
		b.lines = appendLine(b.lines, p.insns[k].gline)
		if gl, ok := p.graphLine[k]; ok {
			b.lines = appendLine(b.lines, gl)
		}
		if in := &p.insns[k]; (in.kind == kJmp || in.kind == kNop) && in.gline >= 0 {
			// A continue in an if arm: gcc's prediction for it has the
			// if's line.
			if l := p.continueIf(in.gline); l >= 0 {
				b.lines = appendLine(b.lines, l)
			}
		}
	}
	var disp []int
	for j := si + 1; j < len(segs); j++ {
		if (segs[j].kind == segDispatch || segs[j].kind == segMerged) && segs[j].src == si {
			disp = append(disp, j)
			for k := segs[j].first; k < segs[j].end; k++ {
				b.lines = appendLine(b.lines, p.insns[k].gline)
			}
		}
	}
	if s.vaArg > 0 {
		// va_arg's call: a fake exit arc and the way on to its join.
		b.succ = append(b.succ, gccArc{to: 1, fake: true, zero: true}, gccArc{to: gb.enter(s.vaArg, s.end-1)})
		return
	}
	var jps []int // the unordered tests of a float compare merged in
	if len(disp) > 0 && segs[disp[0]].kind == segMerged {
		// The merged segments are straight-line code: the block ends as
		// its last one does.
		if p.insns[s.end-1].parity {
			jps = append(jps, s.end-1)
		}
		for _, d := range disp[:len(disp)-1] {
			if p.insns[segs[d].end-1].parity {
				jps = append(jps, segs[d].end-1)
			}
		}
		s = &segs[disp[len(disp)-1]]
		si = disp[len(disp)-1]
		disp = nil
	}
	last := s.end - 1
	in := &p.insns[last]
	if sw := p.switches[in.gline]; sw != nil && in.gline >= 0 && (len(disp) > 0 || in.kind == kJmpInd || in.kind == kJcc) {
		// The dispatch: an arc to each case's block and to the default,
		// however the machine code reaches them.
		self := s.block
		seen := map[int]int{}
		// add makes or finds the arc to where control goes at
		// instruction k and counts the transition o in it.
		add := func(k int, o arcObs) {
			bl := gb.enter(k, -2)
			if bl < 0 || bl == self {
				return
			}
			ai, ok := seen[bl]
			if !ok {
				ai = len(b.succ)
				seen[bl] = ai
				b.succ = append(b.succ, gccArc{to: bl, swLine: in.gline})
			}
			if !containsObs(b.succ[ai].obs, o.insn) {
				b.succ[ai].obs = append(b.succ[ai].obs, o)
			}
		}
		for _, d := range append([]int{si}, disp...) {
			end := segs[d].end - 1
			in := &p.insns[end]
			switch in.kind {
			case kJcc:
				add(p.index(in.target), arcObs{end, obsTaken, 0})
				add(segs[d].end, arcObs{end, obsNotTaken, 0})
			case kJmp:
				add(p.index(in.target), arcObs{end, obsExec, 0})
			case kJmpInd:
				// The table's targets: counted from the jumps that
				// reached them from the switch's line.
				for _, t := range sw.targets {
					add(p.index(t), arcObs{p.index(t), obsSwitch, end})
				}
				if sw.deflt != 0 {
					add(p.index(sw.deflt), arcObs{p.index(sw.deflt), obsSwitch, end})
				}
			default:
				add(segs[d].end, arcObs{end, obsExec, 0})
			}
		}
		b.dispatch = true
		return
	}
	if s.call >= 0 {
		call := &p.insns[s.call]
		b.succ = append(b.succ, gccArc{to: 1, fake: true, obs: []arcObs{{s.call, obsFake, 0}}})
		switch pad := p.ehPad(fn, s.call); {
		case pad > 0:
			// An exception arc to the landing pad.
			b.succ = append(b.succ, gccArc{to: gb.enter(pad, -1), throw: true, obs: []arcObs{{s.call, obsThrow, pad}}})
		case pad == 0 && gb.sretPad[si] > 0:
			// Into the cleanup of the temporary the call makes.
			b.succ = append(b.succ, gccArc{to: gb.sretPad[si], throw: true, obs: []arcObs{{s.call, obsThrow, -1}}})
		case pad < 0 && !gb.ehOnly[si]:
			// To the cleanup that only ends the aggregates' lifetimes,
			// which the machine code has no landing pad for (through
			// the cleanups of the statement's temporaries).
			to, ok := gb.tempPad[si]
			if !ok {
				to = gb.clobberPad
			}
			b.succ = append(b.succ, gccArc{to: to, throw: true, obs: []arcObs{{s.call, obsThrow, -1}}})
		}
		if call.noReturn {
			return
		}
	}
	if in.kind == kJcc && last > s.first && p.insns[last-1].cmpRDX && p.catchAt(fn, s.end) && p.catchAt(fn, p.index(in.target)) {
		// A landing pad's choice between catch clauses: gcc's exception
		// dispatch, whose arcs are no fallthroughs (with one clause it is
		// a condition).
		b.dispatch = true
	}
	switch in.kind {
	case kJcc:
		fall := gccArc{to: gb.enter(s.end, last), obs: []arcObs{{last, obsNotTaken, 0}}}
		jump := gccArc{to: gb.enter(p.index(in.target), last), obs: []arcObs{{last, obsTaken, 0}}}
		for _, jp := range jps {
			if t := gb.enter(p.index(p.insns[jp].target), jp); t == jump.to {
				jump.obs = append(jump.obs, arcObs{jp, obsTaken, 0})
			} else if t == fall.to {
				fall.obs = append(fall.obs, arcObs{jp, obsTaken, 0})
			}
		}
		b.succ = append(b.succ, fall, jump)
	case kJmp:
		if l, ok := gb.shared[last]; ok && l != last {
			b.succ = append(b.succ, gccArc{to: segsBlock(gb, l)})
			break
		}
		b.succ = append(b.succ, gccArc{to: gb.enter(p.index(in.target), last), noFall: ehPass})
	case kRet:
		b.succ = append(b.succ, gccArc{to: 1})
	case kJmpInd:
		// An indirect jump that is no switch (a computed goto).
	default:
		b.succ = append(b.succ, gccArc{to: gb.enter(s.end, last)})
	}
	if e, ok := gb.empty[si]; ok {
		// The call's block goes on to the empty block, which goes
		// where the call's block went.
		for ai := range b.succ {
			if !b.succ[ai].fake {
				a := b.succ[ai]
				a.noFall = a.noFall || gb.ehOnly[si]
				g.blocks[e].succ = append(g.blocks[e].succ, a)
				b.succ[ai].to = e
			}
		}
	}
}

// labelsAt returns the label lines of function fi whose code starts at
// instruction k.
func (p *Program) labelsAt(fi, k int) []int32 {
	var out []int32
	for _, lb := range p.labels {
		if lb.fn == int32(fi) && lb.insn == k && !lb.fallOff {
			out = append(out, lb.gline)
		}
	}
	return out
}

// namedLabel reports whether gcov line g holds only a named label (a
// goto's target, not a case).
func (p *Program) namedLabel(g int32) bool {
	if g < 0 {
		return false
	}
	m := labelLine.FindStringSubmatch(p.lineText(g))
	return m != nil && m[1] != "" && !strings.Contains(m[0], "case") && !strings.Contains(m[0], "default")
}

// containsObs reports whether obs has an observation of instruction k.
func containsObs(obs []arcObs, k int) bool {
	for _, o := range obs {
		if o.insn == k {
			return true
		}
	}
	return false
}

// allLine reports whether every instruction of ins has gcov line g.
func allLine(ins []insn, g int32) bool {
	for _, in := range ins {
		if in.gline != g {
			return false
		}
	}
	return true
}

// appendLine appends gcov line g to ls unless it is -1 or there already.
func appendLine(ls []int32, g int32) []int32 {
	if g < 0 {
		return ls
	}
	for _, x := range ls {
		if x == g {
			return ls
		}
	}
	return append(ls, g)
}

// exitJump returns the epilogue segment of a C++ void function without
// return statements when its code comes after the landing pads, reached
// only by the jump from the end of the body (a statement that is no
// call: `balance -= total; }` after a throw in bank.cc's withdraw), else
// -1. gcc's implicit return is a statement of that block, which goes to
// the exit (g++ 12 -O0 --coverage); after a call, or after a loop's exit
// test, the return is a block of its own.
func (gb *graphBuilder) exitJump() int {
	p, fn, segs := gb.p, gb.fn, gb.segs
	if !fn.cxx || fn.returnsValue || gb.epi >= 0 || len(segs) < 2 {
		return -1
	}
	si := len(segs) - 1
	s := &segs[si]
	if s.kind != segPlain || !allEpilogue(p.insns[s.first:s.end]) || !p.insns[s.first].leader || s.first == fn.first {
		return -1
	}
	if prev := &p.insns[s.first-1]; prev.kind != kJmp && prev.kind != kRet && !prev.noReturn && !prev.resume {
		return -1 // falls into it
	}
	jumps := 0
	for k := fn.first; k < s.first; k++ {
		in := &p.insns[k]
		if (in.kind == kJmp || in.kind == kJcc || in.kind == kJmpInd) && p.index(in.target) == s.first {
			if in.kind != kJmp {
				return -1
			}
			ji, ok := gb.segOf(k)
			if !ok || segs[ji].call >= 0 || segs[ji].kind != segPlain || gb.ehOnly[ji] || k == segs[ji].first {
				// (A jump alone: a loop's exit, whose return is a
				// block of its own.)
				return -1
			}
			jumps++
		}
	}
	if jumps != 1 {
		return -1
	}
	return si
}

// segOf returns the segment holding instruction k.
func (gb *graphBuilder) segOf(k int) (int, bool) {
	i := sort.Search(len(gb.segs), func(i int) bool { return gb.segs[i].end > k })
	return i, i < len(gb.segs) && gb.segs[i].first <= k
}

// allEpilogue reports whether ins are only restores and returns.
func allEpilogue(ins []insn) bool {
	for _, in := range ins {
		if in.kind != kEpilogue && in.kind != kRet || in.toRax && in.gline >= 0 {
			return false
		}
	}
	return true
}

// machineSegments splits fn's instructions at its machine blocks'
// leaders, after calls that end a gcc block, and before the epilogue.
func (p *Program) machineSegments(fn *function, retBlock bool) []seg {
	var segs []seg
	callEnd := -1 // the instruction that ends a call's block
	shared := p.sharedBreaks(fn)
	// A call that returns twice starts a block with its statement's code.
	twice := map[int]bool{}
	for k := fn.first; k < fn.end; k++ {
		if p.insns[k].twice {
			j := k
			for j > fn.first && !p.insns[j].leader && p.insns[j-1].gline == p.insns[k].gline && p.insns[j-1].kind == kOther {
				j--
			}
			twice[j] = true
		}
	}
	epi := -1
	if retBlock {
		epi = p.epilogueStart(fn)
	}
	dead := p.constantIfs(fn)
	for k := fn.first; k < fn.end; k++ {
		in := &p.insns[k]
		split := k == fn.first || in.leader || k == callEnd+1 || k == epi || p.forwardedAt(k) || shared[k] == k || twice[k] || dead[k]
		if !split && len(segs) > 0 && segs[len(segs)-1].first == k-1 {
			// After the nop that keeps a goto's line before its
			// destination.
			if prev := &p.insns[k-1]; prev.kind == kNop && prev.gline >= 0 && prev.gline != in.gline {
				split = true
			}
		}
		if split {
			segs = append(segs, seg{first: k, end: k + 1, emptyAfter: -1, call: -1})
		}
		segs[len(segs)-1].end = k + 1
		if p.endsGccBlock(k) {
			var empty int32
			callEnd, empty = p.callStatementEnd(fn, k)
			if empty >= 0 {
				segs[len(segs)-1].emptyAfter = empty
			}
			segs[len(segs)-1].call = k
		}
	}
	return segs
}

// constantIfs returns the instructions of fn that start a gcc block
// after an `if` whose condition is a constant (`if (DEBUG)` with DEBUG
// 0, `if (alignof(_Tp) > __STDCPP_DEFAULT_NEW_ALIGNMENT__)` in
// __new_allocator::deallocate): the front end folded the condition, so
// its lines have no code at -O0, but the label of the arm it goes to
// stays a block of its own, started by the first code after the
// condition (the live arm's, or the code after the statement when the
// arm is dead). g++ 12 and gcc 12 -O0 --coverage alike. (`if constexpr`
// discards its arm before any block is made.)
func (p *Program) constantIfs(fn *function) map[int]bool {
	src := p.ownSource(fn)
	if src == nil {
		return nil
	}
	var code map[int32]bool
	var out map[int]bool
	for ln := max(int(fn.startLine), 1) + 1; ln < int(fn.endLine) && ln <= len(src); ln++ {
		text := strings.TrimSpace(stripStrings(src[ln-1]))
		if !strings.HasPrefix(text, "if") || !strings.HasPrefix(strings.TrimSpace(text[2:]), "(") {
			continue // (`if constexpr`, `if _GLIBCXX17_CONSTEXPR`)
		}
		if code == nil {
			code = map[int32]bool{}
			for k := fn.first; k < fn.end; k++ {
				if g := p.insns[k].gline; g >= 0 && p.lines[g].file == fn.file {
					code[p.lines[g].line] = true
				}
			}
		}
		// The condition's lines, to its closing parenthesis.
		end, depth, opened := -1, 0, false
		for l := ln; l <= len(src) && l < int(fn.endLine) && end < 0; l++ {
			t := stripStrings(src[l-1])
			if l == ln {
				t = t[strings.Index(t, "if")+2:]
			}
			for i := 0; i < len(t) && end < 0; i++ {
				switch t[i] {
				case '(':
					depth++
					opened = true
				case ')':
					if depth--; opened && depth == 0 {
						end = l
					}
				}
			}
		}
		if end < 0 {
			continue
		}
		folded := true
		for l := ln; l <= end && folded; l++ {
			folded = !code[int32(l)]
		}
		if !folded {
			continue
		}
		// The first code after the condition, in machine order.
		after := func(end int) {
			for k := fn.first; k < fn.end; k++ {
				if g := p.insns[k].gline; g >= 0 && p.lines[g].file == fn.file && p.lines[g].line > int32(end) {
					if out == nil {
						out = map[int]bool{}
					}
					out[k] = true
					return
				}
			}
		}
		after(end)
		// A condition found true with an else: the code after the
		// else (the join the then arm jumps to) starts one too.
		thenEnd, elseAt := statementEnd(src, end, int(fn.endLine))
		if thenEnd < 0 || elseAt < 0 {
			continue
		}
		live := false
		for l := end; l <= thenEnd && !live; l++ {
			live = code[int32(l)]
		}
		if elseEnd, _ := statementEnd(src, elseAt, int(fn.endLine)); live && elseEnd >= 0 {
			after(elseEnd)
		}
	}
	return out
}

// statementEnd returns the line where the statement that follows the
// `)` or `else` ending on line from ends (a braced block, or a statement
// up to its `;`) and, when `else` follows it, the line of that `else`,
// else -1. It reads only simple statements: -1, -1 for a nested if,
// loop or switch without braces.
func statementEnd(src []string, from, last int) (end, elseAt int) {
	end, elseAt = -1, -1
	depth, started := 0, false
	for l := from; l <= last && l <= len(src) && end < 0; l++ {
		t := stripStrings(src[l-1])
		if l == from {
			// After the condition's `)` or the `else`.
			i := strings.LastIndex(t, ")")
			if j := strings.LastIndex(t, "else"); j > i {
				i = j + 3
			}
			if i < 0 {
				return -1, -1
			}
			t = t[i+1:]
		}
		for i := 0; i < len(t) && end < 0; i++ {
			c := t[i]
			switch {
			case c == ' ' || c == '\t':
			case !started && (strings.HasPrefix(t[i:], "if") || strings.HasPrefix(t[i:], "for") ||
				strings.HasPrefix(t[i:], "while") || strings.HasPrefix(t[i:], "switch") || strings.HasPrefix(t[i:], "do")):
				return -1, -1
			case c == '{':
				depth++
				started = true
			case c == '}':
				if depth--; depth == 0 {
					end = l
				}
			case c == ';' && depth == 0:
				end = l
			default:
				started = true
			}
		}
	}
	if end < 0 {
		return -1, -1
	}
	// `else` as the next word.
	for l := end; l <= last && l <= len(src); l++ {
		t := stripStrings(src[l-1])
		if l == end {
			i := strings.LastIndexAny(t, ";}")
			t = t[i+1:]
		}
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if strings.HasPrefix(t, "else") && (len(t) == 4 || !isIdentByte(t, 4)) {
			elseAt = l
		}
		break
	}
	return end, elseAt
}

// recordCall reports whether instruction k calls a function of the
// program that returns a struct, union or class.
func (p *Program) recordCall(k int) bool {
	in := &p.insns[k]
	fi, ok := p.lowFn[in.target]
	return ok && in.kind == kCall && p.funcs[fi].returnsRecord
}

// temporaryEnd returns, when instruction k calls the destructor of a
// temporary, the line of the statements that end its lifetime after the
// call (gcc's clobbers, on the full expression's line), else -1. A named
// local's end of scope has no line; when the object is not known, a brace
// line is taken for a scope's end.
func (p *Program) temporaryEnd(fn *function, k int) int32 {
	dt := &p.insns[k]
	if dt.kind != kCall || !p.destructorCall(k) || dt.gline < 0 {
		return -1
	}
	if dt.thisSlot != 0 && fn.localSlots[dt.thisSlot] || dt.thisSlot == 0 && (p.braceLine(dt.gline) || p.implicitFn[dt.target] != "") {
		return -1
	}
	if explicitDestructor(p.lineText(dt.gline)) {
		return -1 // `__pointer->~_Tp();`: no temporary (the callee ends its lifetime)
	}
	return dt.gline
}

// explicitDestructor reports whether a source line calls a destructor
// explicitly (`p->~T()`, `x.~T()`).
func explicitDestructor(line string) bool {
	line = stripStrings(line)
	for i, c := range []byte(line) {
		if c != '~' {
			continue
		}
		if j := strings.TrimRight(line[:i], " \t"); strings.HasSuffix(j, "->") || strings.HasSuffix(j, ".") {
			return true
		}
	}
	return false
}

// pseudoDestructors returns, for the lines of fn that call the destructor
// of a trivially destructible type explicitly (`__victim._M_access<
// _Functor>().~_Functor();` of a lambda's closure in std::function's
// _M_destroy; `t->~T()` in a template), the instruction whose gcc block
// holds the line: no call, only a clobber ending the object's lifetime,
// a statement after the line's code, in the block of the code that
// follows it (after a call that ends a block, the next one).
func (p *Program) pseudoDestructors(fn *function) map[int][]int32 {
	if !fn.cxx {
		return nil
	}
	src := p.ownSource(fn)
	var out map[int][]int32
	for ln := max(int(fn.startLine), 1); ln <= int(fn.endLine) && ln <= len(src); ln++ {
		if !strings.Contains(src[ln-1], "~") || !explicitDestructor(src[ln-1]) {
			continue
		}
		ids := p.lineIDs(fn.file, int32(ln))
		if len(ids) == 0 {
			continue
		}
		last, dtor := -1, false
		for k := fn.first; k < fn.end; k++ {
			if g := p.insns[k].gline; g >= 0 && p.lines[g] == (lineKey{fn.file, int32(ln)}) {
				last = k
				dtor = dtor || p.insns[k].kind == kCall && p.destructorCall(k)
			}
		}
		if dtor {
			continue
		}
		at := last + 1
		if last < 0 {
			// No code: the block of the code after it.
			at = -1
			for k := fn.first; k < fn.end && at < 0; k++ {
				if g := p.insns[k].gline; g >= 0 && p.lines[g].file == fn.file && p.lines[g].line > int32(ln) {
					at = k
				}
			}
		}
		if at <= fn.first || at >= fn.end {
			continue
		}
		if out == nil {
			out = map[int][]int32{}
		}
		out[at] = append(out[at], ids[0])
	}
	return out
}

// callStatementEnd returns the last instruction of the gcc block that
// the call at k ends (the call, or the store of its result into a
// variable: `v = f(x);` is one GIMPLE call statement with v as its
// result), and whether a block without code follows it. gcc splits the
// block after the call only when statements follow in it: code, a jump
// that carries a goto's line (a goto, break or continue after the call),
// or the prediction gcc attaches to a return inside an if or else arm
// (the copy of `return f(x);`'s value, or `f(); return;`). It returns
// fn.end when the call's block goes on to the next jump target.
func (p *Program) callStatementEnd(fn *function, k int) (end int, empty int32) {
	call := &p.insns[k]
	if g := p.temporaryEnd(fn, k); g >= 0 && k+1 < fn.end && p.insns[k+1].leader {
		// The temporary's lifetime ends in a block of its own before
		// the join that follows.
		return k, g
	}
	j := k + 1
	for j < fn.end && !p.insns[j].leader && p.insns[j].addRSP {
		j++ // the call's stack arguments popped
	}
	if j < fn.end && !p.insns[j].leader && p.insns[j].gline == call.gline {
		// The result stored into a variable: mov %eax/%rax/%xmm0 (or
		// movq %xmm0,%rax first) to a local or global without index.
		m := j
		if p.insns[m].kind == kEpilogue && m+1 < fn.end && !p.insns[m+1].leader && p.insns[m+1].gline == call.gline {
			m++ // movq %xmm0,%rax
		}
		st := &p.insns[m]
		if st.retStore && (m+1 >= fn.end || p.insns[m+1].gline != call.gline || p.insns[m+1].leader ||
			p.insns[m+1].kind == kJmp) && !call.catch &&
			(p.ehPad(fn, k) == 0 && !(st.slotStore && fn.addrSlots[int64(st.slot)]) || p.recordCall(k)) {
			// (A catch's binding of its parameter is a statement of
			// its own. A call that may throw assigns a scalar through
			// a temporary, a statement after it, and so does a call
			// into a local whose address is taken (`const size_t
			// __allocmax = _Alloc_traits::max_size(__a);` before
			// std::min(__diffmax, __allocmax) in vector's
			// _S_max_size; C and C++, gcc 12 -O0); a class object is
			// built in place, `Result<int> r = parse(argv[i]);` in
			// pool.cc, even when it comes back in rax.)
			j = m + 1
		}
	}
	jump := -1
	for i := j; i < fn.end; i++ {
		in := &p.insns[i]
		if in.leader {
			break
		}
		switch in.kind {
		case kNop, kEpilogue, kRet:
			continue
		case kJmp:
			if jump < 0 {
				jump = i
			}
			continue
		}
		if jump >= 0 {
			break
		}
		return j - 1, -1
	}
	early := call.gline >= 0 && p.ifArmReturn(call.gline) || p.cxxReturnCopy(fn, k)
	if jump >= 0 {
		jl := p.insns[jump].gline
		// A goto, break or continue on the call's line still has a
		// location of its own (another column), which gcc's block
		// after the call keeps.
		if jl >= 0 && (jl != call.gline || p.lineHas(p.lines[jl], "break;") && !returnStmt.MatchString(p.lineText(jl))) || early || jl >= 0 && p.ifArmReturn(jl) {
			return j - 1, -1 // the jump is the block
		}
		if g := p.scopeExitAfter(fn, k); g >= 0 {
			return fn.end, g
		}
		return fn.end, -1
	}
	if early && fn.returnsValue && !call.noReturn && call.gline >= 0 && p.returnLine(call.gline) {
		// The copy into the return value: a block of no code (C++ copies
		// a scalar result into it after the call, C only in an if arm,
		// where gcc's prediction for the early return follows the call).
		return j - 1, p.cxxReturnLine(fn, call.gline)
	}
	if !fn.returnsValue && !call.noReturn && jump < 0 && p.explicitReturns(fn) == 0 && p.epilogueAt(fn, j) {
		// A void function's implicit return, a statement of the call's
		// block, on the closing brace's line (which has no nop of its
		// own when the function is on one line): the epilogue is its
		// block.
		return j - 1, -1
	}
	return fn.end, -1
}

// scopeExitAfter returns, when the statement after the call at k is a
// break, continue or goto on a line of its own without code, or a va_end
// before a jump (to the return), that line's gcov line, else -1. Such a
// jump leaves a scope whose locals live in memory (an array, a struct, an
// address-taken variable): gcc's try/finally lowering (tree-eh.cc's
// lower_try_finally_copy, which at -O0 copies a finally of clobbers for
// each destination) makes the jump a goto into a copy of the clobbers
// with the jump's location, a block of its own after the call's; the
// clobbers expand to no code, and the machine jump keeps the call's line.
// va_end expands to nothing: a block of its own after the call's too.
func (p *Program) scopeExitAfter(fn *function, k int) int32 {
	call := &p.insns[k]
	if call.gline < 0 {
		return -1
	}
	at := p.lines[call.gline]
	src := p.source(at.file)
	for ln := at.line + 1; ln <= fn.endLine && int(ln) <= len(src); ln++ {
		t := strings.TrimSpace(src[ln-1])
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		if !jumpStmt.MatchString(t) && !vaEndStmt.MatchString(t) || p.lineHasCode(fn, at.file, ln) {
			return -1
		}
		if ids := p.lineIDs(at.file, ln); len(ids) > 0 {
			return ids[0]
		}
		return -1
	}
	return -1
}

// lineHasCode reports whether an instruction of fn has file:line as its
// gcov line.
func (p *Program) lineHasCode(fn *function, file, line int32) bool {
	for k := fn.first; k < fn.end; k++ {
		if g := p.insns[k].gline; g >= 0 && p.lines[g] == (lineKey{file, line}) {
			return true
		}
	}
	return false
}

// bareReturnJump reports whether segment s is only the jump of a
// `return expr;` statement that follows a call ending a gcc block: gcc
// splits the return's jump off the call's block into a block without
// lines (the jump's location is the statement's, already seen on its
// other statements), unless the return is in an if arm.
func (p *Program) bareReturnJump(fn *function, s *seg) bool {
	in := &p.insns[s.end-1]
	if in.kind != kJmp || in.gline < 0 || s.first == fn.first || !fn.returnsValue || s.end-s.first > 3 {
		return false
	}
	for k := s.first; k < s.end-1; k++ {
		// The return value's move into the result register from where
		// it was kept across the call: gcc's return statement, in the
		// return block.
		if !p.insns[k].movRax || p.insns[k].gline != in.gline {
			return false
		}
	}
	k := s.first - 1
	for k > fn.first && p.insns[k].addRSP {
		k--
	}
	if !p.endsGccBlock(k) {
		return false
	}
	if p.destructorCall(k) && s.end-s.first >= 2 {
		return true // the value kept across the destructors' calls, then the return
	}
	if p.slotReturnJump(fn, s) && p.clobberRegion(fn, k) {
		return true // through the aggregates' clobbers (see slotReturnJump)
	}
	return p.returnLine(in.gline) && !p.ifArmReturn(in.gline) && p.insns[k].gline != in.gline
}

// slotReturnJump reports whether segment s of a C++ function returning a
// class object in memory is only the jump to the return of `return
// f(...);` after the call on its line that built the object in the
// return slot, ending a gcc block: no statement follows the call there
// (no copy, and an early return's prediction comes before the call), so
// gcc has no block for it, unless the return leaves the scope of
// aggregate locals, whose clobbers make a block without lines (grid.cc's
// power: `return identity<N>();` and `return g;` then `return sq * g;`
// after `Grid<N> half`, g++ 12 -O0 --coverage).
func (p *Program) slotReturnJump(fn *function, s *seg) bool {
	in := &p.insns[s.first]
	if !fn.cxx || s.end != s.first+1 || s.first == fn.first || in.kind != kJmp || in.gline < 0 || !p.memoryReturn(fn) {
		return false
	}
	k := s.first - 1
	return p.insns[k].kind == kCall && p.endsGccBlock(k) && p.insns[k].gline == in.gline && p.index(in.target) == p.epilogueStart(fn) &&
		p.returnLine(in.gline)
}

// lineText returns the source text of gcov line g, or "".
func (p *Program) lineText(g int32) string {
	k := p.lines[g]
	src := p.source(k.file)
	if k.line < 1 || int(k.line) > len(src) {
		return ""
	}
	return src[k.line-1]
}

// jumpLine reports whether gcov line g holds a break, continue, goto or
// return statement.
func (p *Program) jumpLine(g int32) bool {
	k := p.lines[g]
	src := p.source(k.file)
	return k.line >= 1 && int(k.line) <= len(src) && (jumpStmt.MatchString(src[k.line-1]) || returnStmt.MatchString(src[k.line-1]))
}

// cxxReturnCopy reports whether the call at k is the last of a C++
// return statement whose value gcc copies into the return value after it:
// the call may throw (its result goes through a temporary: a scalar's, as
// gcc 12 makes it; a struct or class value, even one returned in rax,
// goes straight into the return value, `It a(int k) { return mk(k); }`
// is [5] then the return block, as lower_bound's `{ return
// _M_t.lower_bound(__x); }`, where `int *c(int k) { return mp(k); }` has
// a block of no code between them), or it is a
// constructor (the value is the new object's address), or the statement
// ends on a later line than the call's (`return fold(0, [](...) {` ...
// `});`): the return's goto to the return block has its location, and
// gcov's branch_prob splits an edge whose goto location is on another
// line than its block's last statement off into a block of its own when
// the block has other edges (the call's fake one).
func (p *Program) cxxReturnCopy(fn *function, k int) bool {
	call := &p.insns[k]
	if !fn.cxx || !fn.returnsValue || call.gline < 0 || !p.returnLine(call.gline) || call.noReturn {
		return false
	}
	if _, temps := p.liveTemporaries(fn, k); len(temps) > 0 && k+1 < fn.end && !p.insns[k+1].leader {
		// The temporaries' clobbers at the end of the full expression
		// come before the return (vector's back(): `{ return *(end() -
		// 1); }`; `return [k](int x) { ... };` into a std::function).
		return true
	}
	if p.memoryReturn(fn) {
		return false
	}
	return call.throws && !fn.returnsRecord || p.constructorCall(k) || !call.pure && p.cxxReturnLine(fn, call.gline) != call.gline
}

// endsCatch reports whether instruction k calls __cxa_end_catch.
func (p *Program) endsCatch(k int) bool {
	in := &p.insns[k]
	return in.kind == kCall && in.endCatch
}

// ehPad returns where an exception from the call at k goes in gcc's
// graph: the landing pad's instruction (> 0), -1 for the cleanup of a
// C++ function's aggregate locals that left no landing pad (only their
// lifetimes end there), or 0 for none (the call cannot throw, or the
// exception leaves the function, or a noexcept filter stops it).
func (p *Program) ehPad(fn *function, k int) int {
	call := &p.insns[k]
	if !fn.cxx || !call.throws && !call.raises || p.destructorCall(k) {
		return 0
	}
	cs, ok := p.site(fn.low, call.addr)
	if ok && cs.lp != 0 {
		return p.index(cs.lp)
	}
	if _, own := p.lowFn[call.target]; !ok && own && call.kind == kCall {
		if lp := p.regionPad(fn, k); lp > 0 {
			return lp
		}
	}
	if !ok && !p.clobberRegion(fn, k) {
		if _, lsda := p.lpads[fn.low]; !lsda {
			if _, temps := p.liveTemporaries(fn, k); len(temps) > 0 {
				// Into the cleanups of the statement's temporaries in
				// memory (their clobbers), then out of the function: a
				// function without an exception table (a constructor
				// passing a temporary aggregate by reference).
				return -2
			}
		}
	}
	if ok && cs.action != 0 || !p.clobberRegion(fn, k) {
		return 0
	}
	return -1
}

// regionPad returns the landing pad of the cleanup region that the call
// at k of a function of the program, which gcc's front end found may
// throw but the final code has no call-site record for (its callee was
// found nothrow later, before the code was made), lies in: that of the next call of the region with a
// record, or 0 when the region ends first (a constructor or destructor
// of a named local, the return, a try's handler) or has no landing pad.
func (p *Program) regionPad(fn *function, k int) int {
	if c := &p.insns[k]; p.constructorCall(k) && (c.thisSlot == 0 || fn.localSlots[c.thisSlot]) {
		return 0 // the local's region begins after its construction
	}
	for j := k + 1; j < fn.end; j++ {
		in := &p.insns[j]
		switch {
		case in.kind == kRet || p.isLandingPad(fn, j):
			return 0
		case in.kind != kCall && in.kind != kCallInd:
			continue
		case (p.destructorCall(j) || p.constructorCall(j)) && (in.thisSlot == 0 || fn.localSlots[in.thisSlot]):
			return 0
		}
		if cs, ok := p.site(fn.low, in.addr); ok {
			if cs.lp == 0 || cs.action != 0 {
				return 0 // none, or a try's handler the call may be outside of
			}
			return p.index(cs.lp)
		}
	}
	return 0
}

// braceLine reports whether gcov line g holds only braces.
func (p *Program) braceLine(g int32) bool {
	k := p.lines[g]
	src := p.source(k.file)
	return k.line >= 1 && int(k.line) <= len(src) && braceOnly(src[k.line-1])
}

// destructorCall reports whether the call at k runs a destructor, which
// cannot throw (implicitly noexcept): a direct call of a D0, D1 or D2
// function, or a call through a pointer on a delete's line (the
// virtual deleting destructor).
func (p *Program) destructorCall(k int) bool {
	in := &p.insns[k]
	if fi, ok := p.lowFn[in.target]; ok && in.kind == kCall {
		return destructorName(p.funcs[fi].name)
	}
	if n, ok := p.implicitFn[in.target]; ok && in.kind == kCall {
		return destructorName(n)
	}
	return in.dtor || in.kind == kCallInd && in.gline >= 0 && p.lineHas(p.lines[in.gline], "delete ")
}

// clobberRegion reports whether the call at k lies in the scope of a
// C++ function's aggregate locals, whose lifetimes gcc ends in an
// exception cleanup of its own.
func (p *Program) clobberRegion(fn *function, k int) bool {
	g := p.insns[k].gline
	if !fn.cxx || !fn.aggregateLocals || g < 0 {
		return false
	}
	if p.lines[g].line >= fn.aggregateFrom {
		return true
	}
	for _, r := range fn.aggregateScopes {
		if a := p.insns[k].addr; r[0] <= a && a < r[1] {
			return true
		}
	}
	return false
}

// needsClobberPad reports whether a call of the function throws into
// the aggregates' cleanup (ehPad -1).
func (gb *graphBuilder) needsClobberPad() bool {
	for si, s := range gb.segs {
		if s.call >= 0 && !gb.ehOnly[si] && gb.p.ehPad(gb.fn, s.call) == -1 {
			return true
		}
	}
	return false
}

// tempPads makes the blocks of the exception cleanups of the temporaries
// that the calls throwing into the aggregates' cleanup (ehPad -1) are in
// the lifetime of, and returns the last block of each chain. In C++ a
// temporary that lives in memory (an argument bound to a const reference,
// a class prvalue) ends its lifetime at the end of its full expression in
// a try/finally of its own, from its initialisation on (gimplify.cc's
// gimplify_target_expr pushes the clobber as a cleanup); tree-eh.cc lowers
// each such finally on the exception path into a copy of its clobber, a
// block with the statement's line that goes on (not as a fallthrough) to
// the copy of the temporary made before it, the last to the enclosing
// cleanup. The clobbers leave no code, so the machine code has no landing
// pad for them; the blocks are laid out innermost first, before the
// aggregates' cleanup.
func (gb *graphBuilder) tempPads() []int {
	p, fn, g := gb.p, gb.fn, gb.g
	gb.tempPad = map[int]int{}
	type key struct {
		start int
		slot  int32
	}
	made := map[key]int{}
	var tails []int
	for si, s := range gb.segs {
		if s.call < 0 || gb.ehOnly[si] || p.ehPad(fn, s.call) >= 0 {
			continue
		}
		out := p.ehPad(fn, s.call) == -2 // no enclosing cleanup
		start, temps := p.liveTemporaries(fn, s.call)
		line := p.insns[s.call].gline
		prev := -1
		for i := len(temps) - 1; i >= 0; i-- {
			k := key{start, temps[i]}
			b, ok := made[k]
			if !ok {
				b = len(g.blocks)
				made[k] = b
				g.blocks = append(g.blocks, gccBlock{first: fn.end, end: fn.end, lines: []int32{line}})
				if i == 0 && out {
					g.blocks[b].succ = []gccArc{{to: 1, fake: true}}
				} else if i == 0 {
					tails = append(tails, b)
				}
			}
			if prev >= 0 {
				g.blocks[prev].succ = []gccArc{{to: b, noFall: true}}
			} else {
				gb.tempPad[si] = b
			}
			if ok {
				break
			}
			prev = b
		}
	}
	return tails
}

// liveTemporaries returns the first instruction of the statement of the
// call at k (its instructions of the call's line before it) and the
// frame slots of the C++ temporaries that statement made in memory before
// the call, in the order they were made: slots not of a named local,
// stored to or constructed, whose address is taken. A constructor's own
// object is not yet one while it runs.
func (p *Program) liveTemporaries(fn *function, k int) (int, []int32) {
	call := &p.insns[k]
	start := k
	for start > fn.first && p.insns[start-1].gline == call.gline && p.insns[start-1].kind != kRet {
		start--
	}
	temps, _ := p.temporaries(fn, start, k)
	return start, temps
}

// temporaries returns the frame slots of the C++ temporaries that the
// instructions [start, k) made in memory before the call at k, in the
// order they were made, with the gcov line of each one's making.
func (p *Program) temporaries(fn *function, start, k int) ([]int32, []int32) {
	call := &p.insns[k]
	made := map[int32]bool{}
	addressed := map[int32]bool{}
	var order, at []int32
	for j := start; j < k; j++ {
		in := &p.insns[j]
		var s int32
		switch {
		case in.slotStore:
			s = in.slot
		case in.kind == kCall && in.thisSlot != 0 && p.constructorCall(j):
			s = in.thisSlot
			addressed[s] = true
		case in.leaRBP:
			addressed[in.slot] = true
			continue
		default:
			continue
		}
		if fn.localSlots[s] || made[s] {
			continue
		}
		made[s] = true
		order = append(order, s)
		at = append(at, in.gline)
	}
	var temps, lines []int32
	for i, s := range order {
		if addressed[s] && !(call.thisSlot == s && p.constructorCall(k)) {
			temps = append(temps, s)
			lines = append(lines, at[i])
		}
	}
	return temps, lines
}

// temporariesEnd returns, when instruction k is a C++ call that ends its
// statement's code (the next instruction is of a line after the
// statement's) and temporaries the statement made in memory are still
// alive, the lines they were made on: their clobbers at the end of the
// full expression, with their locations, begin the block after the call.
func (p *Program) temporariesEnd(fn *function, k int) []int32 {
	call := &p.insns[k]
	if !fn.cxx || call.kind != kCall && call.kind != kCallInd || call.gline < 0 || k+1 >= fn.end || p.insns[k+1].gline == call.gline {
		return nil
	}
	at := p.lines[call.gline]
	first, last := p.statementLines(at.file, at.line)
	if g := p.insns[k+1].gline; g >= 0 && p.lines[g].file == at.file && p.lines[g].line >= first && p.lines[g].line <= last {
		return nil // the statement goes on
	}
	start := k
	for start > fn.first && p.insns[start-1].kind != kRet {
		g := p.insns[start-1].gline
		if g >= 0 && (p.lines[g].file != at.file || p.lines[g].line < first || p.lines[g].line > last) {
			break
		}
		start--
	}
	_, lines := p.temporaries(fn, start, k)
	var out []int32
	for _, l := range lines {
		if l >= 0 {
			out = appendLine(out, l)
		}
	}
	return out
}

// statementLines returns the first and last source lines of the statement
// that line ln of file holds part of, from the source: the lines before
// it that do not end a statement, open or close a block or head a
// control statement, and those after it up to the one that does (at
// most 8 each way).
func (p *Program) statementLines(file, ln int32) (int32, int32) {
	src := p.source(file)
	ends := func(l int32) bool {
		t := strings.TrimSpace(stripStrings(src[l-1]))
		if i := strings.Index(t, "//"); i >= 0 {
			t = strings.TrimSpace(t[:i])
		}
		if t == "" || strings.HasSuffix(t, ";") || strings.HasSuffix(t, "{") || strings.HasSuffix(t, "}") || strings.HasSuffix(t, ":") {
			return true
		}
		// A control statement's head (`for (...)` before an unbraced
		// body) is a statement of its own.
		for _, kw := range []string{"for", "while", "if", "else", "do", "switch"} {
			if strings.HasPrefix(t, kw) && !isIdentByte(t, len(kw)) {
				return true
			}
		}
		return false
	}
	if ln < 1 || int(ln) > len(src) {
		return ln, ln
	}
	first, last := ln, ln
	for first > 1 && ln-first < 8 && !ends(first-1) {
		first--
	}
	for int(last) < len(src) && last-ln < 8 && !ends(last) {
		last++
	}
	return first, last
}

// sretPads finds the calls that make a C++ temporary in memory through
// their hidden result pointer (a frame slot of no named local, passed as
// the first argument, not made before in the statement, to a call that
// is no constructor) and throw with no landing pad of the function:
// gcc's temporary is in its own clobber's cleanup from the call on, so
// the exception goes to that cleanup's exception copy, the block that
// resumes the unwind after the temporary's destructor on the landing
// pads of the calls after it.
func (gb *graphBuilder) sretPads() {
	p, fn := gb.p, gb.fn
	gb.sretPad = map[int]int{}
	if !fn.cxx {
		return
	}
	for si, s := range gb.segs {
		if s.call < 0 || gb.ehOnly[si] {
			continue
		}
		k := s.call
		call := &p.insns[k]
		slot := call.thisSlot
		if slot == 0 || fn.localSlots[slot] || p.constructorCall(k) || p.destructorCall(k) || !call.throws || call.noReturn {
			continue
		}
		if cs, ok := p.site(fn.low, call.addr); ok && (cs.lp != 0 || cs.action != 0) {
			continue
		}
		start, _ := p.liveTemporaries(fn, k)
		made := false // stored to, or an object a call was made on
		for j := start; j < k; j++ {
			in := &p.insns[j]
			made = made || in.slotStore && in.slot == slot || (in.kind == kCall || in.kind == kCallInd) && in.thisSlot == slot
		}
		if made {
			continue
		}
		for sj, t := range gb.segs {
			if t.call < 0 || !p.insns[t.call].resume || !gb.ehOnly[sj] || t.first <= fn.first {
				continue
			}
			if d := &p.insns[t.first-1]; p.destructorCall(t.first-1) && d.thisSlot == slot {
				gb.sretPad[si] = t.block
				break
			}
		}
	}
}

// resumeTemporary returns, for a segment resuming the unwind right after
// the destructor of a temporary (a frame slot of no named local), the
// destructor's line, else -1.
func (p *Program) resumeTemporary(fn *function, s *seg) int32 {
	if s.call < 0 || !p.insns[s.call].resume || s.first <= fn.first || !fn.cxx {
		return -1
	}
	d := &p.insns[s.first-1]
	if !p.destructorCall(s.first-1) || d.thisSlot == 0 || fn.localSlots[d.thisSlot] {
		return -1
	}
	return d.gline
}

// constructorCall reports whether instruction k directly calls a C++
// constructor (a C1 or C2 function).
func (p *Program) constructorCall(k int) bool {
	in := &p.insns[k]
	n, ok := p.implicitFn[in.target]
	if fi, own := p.lowFn[in.target]; own {
		n, ok = p.funcs[fi].name, true
	}
	return ok && in.kind == kCall && (structor(n, "C1") || structor(n, "C2"))
}

// clobber returns the block of the aggregates' cleanup, making it.
func (gb *graphBuilder) clobber() int {
	if gb.clobberPad < 0 {
		gb.clobberPad = len(gb.g.blocks)
		gb.g.blocks = append(gb.g.blocks, gccBlock{first: gb.fn.end, end: gb.fn.end, succ: []gccArc{{to: 1, fake: true}}})
	}
	return gb.clobberPad
}

// finallyCall reports whether the function's normal return path ends
// with a destructor's call followed by a bare jump to the return: the
// block after that call is gcc's finally block.
func (gb *graphBuilder) finallyCall() bool {
	for i := range gb.segs {
		if s := &gb.segs[i]; gb.p.bareReturnJump(gb.fn, s) && !gb.p.slotReturnJump(gb.fn, s) {
			return true
		}
	}
	return false
}

// isLandingPad reports whether instruction k is a landing pad of fn.
func (p *Program) isLandingPad(fn *function, k int) bool {
	for _, cs := range p.lpads[fn.low] {
		if cs.lp != 0 && p.index(cs.lp) == k {
			return true
		}
	}
	return false
}

// catchAt reports whether the code at instruction k begins a catch
// clause: register moves, then a call to __cxa_begin_catch.
func (p *Program) catchAt(fn *function, k int) bool {
	for ; k >= 0 && k < fn.end; k++ {
		in := &p.insns[k]
		switch {
		case in.kind == kCall:
			return in.catch
		case in.kind != kOther:
			return false
		}
	}
	return false
}

// passesToPad reports whether segment s only moves registers and jumps
// or falls to a landing pad: in gcc's graph, exception handling's pass
// to an outer handler, a block without lines.
func (gb *graphBuilder) passesToPad(s *seg) bool {
	p := gb.p
	for k := s.first; k < s.end-1; k++ {
		if p.insns[k].kind != kOther {
			return false
		}
	}
	last := &p.insns[s.end-1]
	switch last.kind {
	case kJmp:
		return gb.padLike(p.index(last.target))
	case kOther:
		return gb.padLike(s.end)
	}
	return false
}

// mergePadMoves makes each landing pad that only moves the exception's
// registers and falls into exception handling code that other handlers
// jump to (an outer cleanup) part of that code's block: gcc's landing
// pad is the cleanup's label; the moves are the RTL's copy of the
// exception pointer, which the inner handlers' jumps made already.
func (gb *graphBuilder) mergePadMoves() {
	p, fn := gb.p, gb.fn
	for si := range gb.segs {
		s := &gb.segs[si]
		if !gb.ehOnly[si] || s.kind != segPlain || si+1 >= len(gb.segs) || !gb.ehOnly[si+1] || !p.isLandingPad(fn, s.first) {
			continue
		}
		moves := true
		for k := s.first; k < s.end; k++ {
			moves = moves && p.insns[k].kind == kOther
		}
		if moves && gb.jumpedTo(gb.segs[si+1].first) {
			s.kind, s.src = segMerged, si+1
		}
	}
}

// jumpsOverPads makes each lone jump over exception handling code to an
// epilogue of its line (a void function's closing brace after its last
// call) a way into the return block, not a block: without the landing
// pads between them the call would fall into it.
func (gb *graphBuilder) jumpsOverPads() {
	p := gb.p
	for si := range gb.segs {
		s := &gb.segs[si]
		j := &p.insns[s.first]
		if s.kind != segPlain || s.end != s.first+1 || j.kind != kJmp || j.gline < 0 || gb.ehOnly[si] {
			continue
		}
		ti, ok := gb.segAt[p.index(j.target)]
		if !ok || ti <= si+1 || !epilogueOnly(p.insns[gb.segs[ti].first:gb.segs[ti].end]) || p.lines[j.gline].line != gb.fn.endLine || p.lines[j.gline].file != gb.fn.file {
			continue
		}
		over := true
		for sk := si + 1; sk < ti; sk++ {
			over = over && gb.ehOnly[sk]
		}
		if over {
			s.kind = segJmpArm
		}
	}
}

// jumpedTo reports whether exception handling code jumps to instruction
// k.
func (gb *graphBuilder) jumpedTo(k int) bool {
	p := gb.p
	for sj, s := range gb.segs {
		if in := &p.insns[s.end-1]; gb.ehOnly[sj] && in.kind == kJmp && p.index(in.target) == k {
			return true
		}
	}
	return false
}

// outerPadJump reports whether exception-only segment si ends with a
// cleanup's call and a jump to an outer landing pad.
func (gb *graphBuilder) outerPadJump(si int) bool {
	p, s := gb.p, &gb.segs[si]
	if !gb.ehOnly[si] || s.call < 0 || s.call != s.end-2 || p.insns[s.call].noReturn || p.insns[s.call].resume {
		return false
	}
	j := &p.insns[s.end-1]
	return j.kind == kJmp && gb.padLike(p.index(j.target))
}

// padLike reports whether instruction k starts a landing pad: one of
// the call-site table's, or exception-only code that other exception
// handling code jumps to (an outer cleanup that the inner handler's
// code reaches without the unwinder).
func (gb *graphBuilder) padLike(k int) bool {
	p, fn := gb.p, gb.fn
	if p.isLandingPad(fn, k) {
		return true
	}
	si, ok := gb.segAt[k]
	if !ok || !gb.ehOnly[si] {
		return false
	}
	for sj, s := range gb.segs {
		if in := &p.insns[s.end-1]; gb.ehOnly[sj] && in.kind == kJmp && p.index(in.target) == k {
			return true
		}
	}
	return false
}

// memoryReturn reports whether fn returns an object in memory: its
// epilogue loads the object's address into rax.
func (p *Program) memoryReturn(fn *function) bool {
	e := p.epilogueStart(fn)
	return e >= 0 && e < fn.end && p.insns[e].loadRax
}

// epilogueAt reports whether the instructions from k are fn's epilogue.
func (p *Program) epilogueAt(fn *function, k int) bool {
	for ; k < fn.end; k++ {
		switch p.insns[k].kind {
		case kEpilogue, kNop:
		case kRet:
			return true
		default:
			return false
		}
	}
	return false
}

// ifArmReturn reports whether gcov line g holds a return statement whose
// enclosing statement is an if or else arm: gcc marks such an early
// return with a prediction statement, which stays in the return's block
// (found with gcc 12: returns directly in a loop, a switch case or the
// function body have none).
func (p *Program) ifArmReturn(g int32) bool {
	k := p.lines[g]
	src := p.source(k.file)
	if int(k.line) > len(src) || k.line < 1 || !returnStmt.MatchString(src[k.line-1]) {
		return false
	}
	in := indent(src[k.line-1])
	for l := k.line - 1; l >= 1; l-- {
		t := strings.TrimSpace(src[l-1])
		if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") {
			continue
		}
		if indent(src[l-1]) >= in {
			continue
		}
		t = strings.TrimPrefix(t, "}")
		t = strings.TrimSpace(t)
		return strings.HasPrefix(t, "if") && !isIdentByte(t, 2) || strings.HasPrefix(t, "else") && !isIdentByte(t, 4)
	}
	return false
}

// lineHas reports whether the source of line k contains sub.
func (p *Program) lineHas(k lineKey, sub string) bool {
	src := p.source(k.file)
	return int(k.line) <= len(src) && k.line > 0 && strings.Contains(src[k.line-1], sub)
}

// continueIf returns, when gcov line g holds a continue statement in an
// if arm, the gcov line of that if; else -1. gcc's prediction statement
// for the continue has the if's location, in the continue's block.
func (p *Program) continueIf(g int32) int32 {
	k := p.lines[g]
	src := p.source(k.file)
	if int(k.line) > len(src) || k.line < 1 || !continueStmt.MatchString(src[k.line-1]) {
		return -1
	}
	in := indent(src[k.line-1])
	for l := k.line - 1; l >= 1; l-- {
		t := strings.TrimSpace(src[l-1])
		if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") || indent(src[l-1]) >= in {
			continue
		}
		if strings.HasPrefix(t, "if") && !isIdentByte(t, 2) || strings.HasPrefix(t, "} else if") || strings.HasPrefix(t, "else if") {
			if ids := p.lineIDs(k.file, l); len(ids) > 0 {
				return ids[0]
			}
		}
		return -1
	}
	return -1
}

var continueStmt = newLazyRegexp(`^\s*continue\s*;`)

// isIdentByte reports whether s[i] exists and can continue an identifier.
func isIdentByte(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// epilogueStart returns the first instruction of fn's epilogue: the
// stack and register restores before its last return (and the move of a
// float return value back into xmm0), or -1.
func (p *Program) epilogueStart(fn *function) int {
	r := fn.end - 1
	for r >= fn.first && p.insns[r].kind != kRet {
		r--
	}
	if r < fn.first {
		return -1
	}
	e := r
	for e > fn.first && !p.insns[e].leader {
		in := &p.insns[e-1]
		if in.kind != kEpilogue || in.toRax && in.gline >= 0 {
			break
		}
		e--
	}
	// A function returning an object in memory loads its address into
	// rax on the closing brace: part of the return. (Not when the brace
	// closes a one-line body `{ return it; }`: that load is the return
	// statement's value, in the block of the body, as gcc 12 makes it for
	// the library's accessors: `__niter_base(_Iterator __it) ... { return
	// __it; }` is [313 315] then the return block [315].)
	if e > fn.first && !p.insns[e].leader {
		if in := &p.insns[e-1]; (in.loadRax || in.movRax) && in.gline >= 0 && p.lines[in.gline].line == fn.endLine && fn.endLine > fn.startLine &&
			!p.returnLine(in.gline) || in.loadRax && p.builtThrough(fn, e-1) {
			e--
		}
	}
	return e
}

// builtThrough reports whether the load into rax at k (a function's last
// one) loads a pointer that fn passed to a call as the object it builds
// (its %rdi): the return slot's address of a class returned in memory,
// whose load is the return statement's, in the return block, even in a
// one-line function (`A copy_a(const A &a) { return a; }`, whose copy
// constructor builds the value there; `{ return
// std::allocator<int>(v.get_allocator()); }`, g++ 12 -O0).
func (p *Program) builtThrough(fn *function, k int) bool {
	slot := p.insns[k].thisFrom
	if !fn.cxx || !fn.returnsRecord || slot == 0 {
		return false
	}
	for _, cs := range p.lpads[fn.low] {
		if cs.lp != 0 {
			// A landing pad (make_unique's `new _Tp(...)`, whose
			// exception frees the memory): not modelled, the load
			// stays a block of its own, which keeps the line's count
			// (the return block as gcc has it counted the line again).
			return false
		}
	}
	for j := fn.first; j < k; j++ {
		if in := &p.insns[j]; (in.kind == kCall || in.kind == kCallInd) && in.thisFrom == slot {
			return true
		}
	}
	return false
}

// sharedBreaks finds the jumps of one break, continue or goto statement
// that the machine code repeats at the end of each arm of an if/else
// chain before it (gcc's forwarding sent each arm past the statement's
// block, keeping its line). It maps each such jump to the last one,
// which stands for the statement's block.
func (p *Program) sharedBreaks(fn *function) map[int]int {
	type key struct {
		gline  int32
		target uint64
	}
	groups := map[key][]int{}
	for k := fn.first; k < fn.end; k++ {
		in := &p.insns[k]
		if in.kind != kJmp || in.gline < 0 {
			continue
		}
		lk := p.lines[in.gline]
		src := p.source(lk.file)
		if int(lk.line) > len(src) || lk.line < 1 || !jumpStmt.MatchString(src[lk.line-1]) {
			continue
		}
		kk := key{in.gline, in.target}
		groups[kk] = append(groups[kk], k)
	}
	out := map[int]int{}
	for _, ks := range groups {
		if len(ks) < 2 {
			continue
		}
		for _, k := range ks {
			out[k] = ks[len(ks)-1]
		}
	}
	return out
}

// jumpStmt matches a line that holds only a break, continue or goto.
var jumpStmt = newLazyRegexp(`^\s*(break|continue|goto\s+\w+)\s*;\s*(//.*|/\*.*)?$`)

// forwardedAt reports whether instruction k is the jump of a break whose
// block gcc's forwarding bypassed (forwarded.go): it starts a block.
func (p *Program) forwardedAt(k int) bool {
	for _, fw := range p.forwards {
		if fw.insn == k {
			return true
		}
	}
	return false
}

// endsGccBlock reports whether instruction k ends a gcc block although
// the next instruction is not a jump target: a call with a fake exit edge
// or a call that does not return.
func (p *Program) endsGccBlock(k int) bool {
	in := &p.insns[k]
	return (in.kind == kCall || in.kind == kCallInd) && (!in.pure || in.noReturn)
}

// singleReturnLine returns the gcov line of fn's return statement when it
// has exactly one, else -1. gcc lowers every return into a jump to a
// return block at the end, one per distinct return value; the block
// keeps the statement's line only when no other return shares it (and
// main has an implicit one at its end).
func (p *Program) singleReturnLine(fn *function) int32 {
	src := p.ownSource(fn)
	if src == nil || fn.name == "main" {
		return -1
	}
	found := int32(-1)
	for ln := max(fn.startLine, 1); ln <= fn.endLine && int(ln) <= len(src); ln++ {
		if hasReturnWord(stripStrings(src[ln-1])) {
			if found >= 0 {
				return -1
			}
			found = ln
		}
	}
	if found < 0 {
		return -1
	}
	if ids := p.lineIDs(fn.file, found); len(ids) > 0 {
		if !fn.cxx {
			return p.cReturnLine(fn, ids[0])
		}
		return p.cxxReturnLine(fn, ids[0])
	}
	return -1
}

// cReturnLine returns, for gcov line g of a C function's return statement
// whose value is a conditional expression going on over further lines
// (`return a < b ? x` ... `: y;`), the gcov line of its ':': gcc's C
// front end gives a conditional expression its colon's location, and
// the return statement its value's. A value that is a chain of && or ||
// over several lines (`return y > 0 &&` ... `d <= days_in(m, y);`) has
// the location of its outermost operator, as every binary expression in
// gcc's C front end (c_parser_binary_expression builds it at the
// operator's token): the last || at depth 0, else the last &&. Else it
// returns g.
func (p *Program) cReturnLine(fn *function, g int32) int32 {
	depth, open := 0, 0 // brackets; '?' at depth 0 without their ':'
	out := g
	lastAnd, lastOr := int32(-1), int32(-1)
	var prev byte
	p.walkReturn(fn, g, func(ln int32, c byte) bool {
		pair := prev == c
		if pair {
			prev = 0 // `&&&` is && then &
		} else {
			prev = c
		}
		switch {
		case pair && c == '&' && depth == 0:
			lastAnd = ln
		case pair && c == '|' && depth == 0:
			lastOr = ln
		case c == '(' || c == '{' || c == '[':
			depth++
		case c == ')' || c == '}' || c == ']':
			depth--
		case c == '?' && depth == 0:
			open++
		case c == ':' && depth == 0 && open > 0:
			if open--; open == 0 {
				if ids := p.lineIDs(p.lines[g].file, ln); ln != p.lines[g].line && len(ids) > 0 {
					out = ids[0]
				}
				return false
			}
		case c == ';' && depth == 0:
			op := lastOr
			if op < 0 {
				op = lastAnd
			}
			if ids := p.lineIDs(p.lines[g].file, op); op > p.lines[g].line && len(ids) > 0 {
				out = ids[0]
			}
			return false
		}
		return true
	})
	return out
}

// cxxReturnLine returns, for gcov line g of a C++ function's return
// statement that goes on over further lines (`return f(x, [](int v) {`
// ... `});`), the gcov line of its end: g++ gives the statement the
// location of its semicolon. Else, and in C, it returns g.
func (p *Program) cxxReturnLine(fn *function, g int32) int32 {
	if !fn.cxx || g < 0 {
		return g
	}
	depth := 0
	out := g
	p.walkReturn(fn, g, func(ln int32, c byte) bool {
		switch c {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		case ';':
			if depth > 0 {
				return true
			}
			if ids := p.lineIDs(p.lines[g].file, ln); ln != p.lines[g].line && len(ids) > 0 {
				out = ids[0]
			}
			return false
		}
		return true
	})
	return out
}

// walkReturn calls visit with each character of the return statement on
// gcov line g and its line, from its `return` to the end of fn's source
// (strings and character constants blanked), until visit returns false.
func (p *Program) walkReturn(fn *function, g int32, visit func(ln int32, c byte) bool) {
	k := p.lines[g]
	src := p.source(k.file)
	if k.line < 1 || int(k.line) > len(src) {
		return
	}
	text := stripStrings(src[k.line-1])
	i := strings.Index(text, "return")
	if i < 0 || !hasReturnWord(text) {
		return
	}
	for ln := k.line; ln <= fn.endLine && int(ln) <= len(src); ln++ {
		line := stripStrings(src[ln-1])
		if ln == k.line {
			line = line[i:]
		}
		for j := 0; j < len(line); j++ {
			if !visit(ln, line[j]) {
				return
			}
		}
	}
}

// finish sorts each block's lines and arcs as gcov does and sets the
// fallthrough flags: an arc is a fallthrough when it is the block's only
// one that is not fake (GIMPLE has no unconditional jumps), unless it
// goes to the exit, or when it goes to the next block.
func (g *gccGraph) finish(p *Program) {
	for bi := range g.blocks {
		b := &g.blocks[bi]
		sort.SliceStable(b.lines, func(i, j int) bool {
			x, y := p.lines[b.lines[i]], p.lines[b.lines[j]]
			if x.file != y.file {
				return false // gcov sorts within a file's run only
			}
			return x.line < y.line
		})
		sort.SliceStable(b.succ, func(i, j int) bool { return b.succ[i].to < b.succ[j].to })
		real := 0
		for _, a := range b.succ {
			if !a.fake && !a.throw {
				real++
			}
		}
		for ai := range b.succ {
			a := &b.succ[ai]
			a.fall = !a.fake && !a.throw && !a.noFall && a.to != 1 && (real == 1 || a.to == bi+1 && !b.dispatch)
		}
	}
}

// lineIDs returns the gcov line id of file:line, making it if needed.
func (p *Program) lineIDs(file, line int32) []int32 {
	if p.lineIndex == nil || len(p.lineIndex) != len(p.lines) {
		p.lineIndex = make(map[lineKey]int32, len(p.lines))
		for i, k := range p.lines {
			if _, ok := p.lineIndex[k]; !ok {
				p.lineIndex[k] = int32(i)
			}
		}
	}
	k := lineKey{file, line}
	if g, ok := p.lineIndex[k]; ok {
		return []int32{g}
	}
	if line <= 0 {
		return nil
	}
	p.lines = append(p.lines, k)
	p.lineIndex[k] = int32(len(p.lines) - 1)
	return []int32{int32(len(p.lines) - 1)}
}

// shape describes block i as gcnoFunc.shape does, for the tests.
func (g *gccGraph) shape(p *Program, i int) string {
	var b strings.Builder
	b.WriteString(p.lineShape(g.blocks[i].lines))
	b.WriteString("->")
	for _, a := range g.blocks[i].succ {
		fmt.Fprintf(&b, " %d", a.to)
		if a.fall {
			b.WriteString("F")
		}
		if a.fake {
			b.WriteString("X")
		}
	}
	return b.String()
}

// lineShape formats gcov lines as "file:[l1 l2] ", grouped by file in
// order.
func (p *Program) lineShape(ls []int32) string {
	var b strings.Builder
	for i := 0; i < len(ls); {
		f := p.lines[ls[i]].file
		var nums []string
		for ; i < len(ls) && p.lines[ls[i]].file == f; i++ {
			nums = append(nums, fmt.Sprint(p.lines[ls[i]].line))
		}
		fmt.Fprintf(&b, "%s:[%s] ", filepath.Base(p.files[f]), strings.Join(nums, " "))
	}
	return b.String()
}

// lambdaColumns sets the start column of lambdas' operator() as gcc
// records it, at the '[' that opens the lambda (DWARF gives the closure
// type's column, at its ']').
func (p *Program) lambdaColumns() {
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		src := p.source(fn.file)
		if !fn.closure || fn.startLine < 1 || int(fn.startLine) > len(src) {
			continue
		}
		line := src[fn.startLine-1]
		c := min(int(fn.startCol), len(line))
		for c > 0 && line[c-1] != '[' {
			c--
		}
		if c > 0 {
			fn.startCol = int32(c)
		}
	}
}

// ownSource returns the source lines of fn (index 0 is line 1) with the
// lambdas written inside it blanked out, so that scans of its statements
// do not see theirs.
func (p *Program) ownSource(fn *function) []string {
	src := p.source(fn.file)
	if src == nil {
		return nil
	}
	var out []string
	for ln := max(int(fn.startLine), 1); ln <= int(fn.endLine) && ln <= len(src); ln++ {
		line := src[ln-1]
		from := 0
		if ln == int(fn.startLine) && fn.closure {
			from = int(fn.startCol) // the function's own '['
			if c := min(from-1, len(line)); c > 0 {
				// The enclosing function's code before it (`return
				// fold(0, [](...) {`) is not the lambda's.
				if out == nil {
					out = append([]string(nil), src...)
				}
				out[ln-1] = strings.Repeat(" ", c) + line[c:]
				line = out[ln-1]
			}
		}
		for i := from; i < len(line); i++ {
			if line[i] != '[' || !lambdaStart(line, i) {
				continue
			}
			if out == nil {
				out = append([]string(nil), src...)
			}
			blankLambda(out, ln, i)
			line = out[ln-1]
		}
	}
	if blanked := p.blankInactiveGroups(fn, src, out); blanked != nil {
		out = blanked
	}
	if out == nil {
		return src
	}
	return out
}

// blankInactiveGroups blanks, in fn's source lines (out, or a copy of src
// when out is nil), the groups of the #if/#elif/#else directives inside
// fn that the preprocessor left out: a group without a line of fn's code
// whose sibling groups have some, or with a return of a value
// (valueReturnIn) (libstdc++'s `#if __PTRDIFF_MAX__ <
// __SIZE_MAX__ return ...; #else return ...; #endif` in
// __new_allocator::_M_max_size: the second return is no statement, and
// the first is fn's only one). It returns nil when it blanks nothing.
func (p *Program) blankInactiveGroups(fn *function, src, out []string) []string {
	lo, hi := max(int(fn.startLine), 1), min(int(fn.endLine), len(src))
	directive := func(ln int) string {
		t := strings.TrimSpace(src[ln-1])
		if !strings.HasPrefix(t, "#") {
			return ""
		}
		t = strings.TrimSpace(t[1:])
		for _, d := range []string{"ifdef", "ifndef", "if", "elif", "else", "endif"} {
			if strings.HasPrefix(t, d) {
				return d
			}
		}
		return ""
	}
	hasIf := false
	for ln := lo; ln <= hi && !hasIf; ln++ {
		hasIf = directive(ln) == "if" || directive(ln) == "ifdef" || directive(ln) == "ifndef"
	}
	if !hasIf {
		return nil
	}
	code := map[int32]bool{}
	for k := fn.first; k < fn.end; k++ {
		if g := p.insns[k].gline; g >= 0 && p.lines[g].file == fn.file {
			code[p.lines[g].line] = true
		}
	}
	// groups of the conditional being read, innermost last: each group's
	// first and last line and whether it has code.
	type group struct {
		from, to int
		code     bool
	}
	var stack [][]group
	var blanked []string
	blank := func(g group) {
		if blanked == nil {
			if out != nil {
				blanked = out
			} else {
				blanked = append([]string(nil), src...)
			}
		}
		for ln := g.from; ln <= g.to; ln++ {
			blanked[ln-1] = ""
		}
	}
	for ln := lo; ln <= hi; ln++ {
		switch directive(ln) {
		case "if", "ifdef", "ifndef":
			stack = append(stack, []group{{from: ln + 1}})
			continue
		case "elif", "else":
			if len(stack) > 0 {
				gs := stack[len(stack)-1]
				gs[len(gs)-1].to = ln - 1
				stack[len(stack)-1] = append(gs, group{from: ln + 1})
			}
			continue
		case "endif":
			if len(stack) == 0 {
				continue
			}
			gs := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			gs[len(gs)-1].to = ln - 1
			some := false
			for _, g := range gs {
				some = some || g.code
			}
			for _, g := range gs {
				if !g.code && (some || valueReturnIn(src, g.from, g.to)) {
					blank(g)
				}
			}
			if some && len(stack) > 0 {
				outer := stack[len(stack)-1]
				outer[len(outer)-1].code = true
			}
			continue
		}
		if len(stack) > 0 && code[int32(ln)] {
			gs := stack[len(stack)-1]
			gs[len(gs)-1].code = true
		}
	}
	return blanked
}

// valueReturnIn reports whether source lines from to to hold a return
// statement with a value: at -O0 it has code (the value's store, the
// jump to the return), so a group of them without code was left out
// (`#if __cplusplus >= 202002L` ... `return _Destroy_aux<false>::
// __destroy(__first, __last);` in libstdc++'s _Destroy).
func valueReturnIn(src []string, from, to int) bool {
	for ln := from; ln <= to; ln++ {
		text := stripStrings(src[ln-1])
		if i := strings.Index(text, "return"); i >= 0 && hasReturnWord(text) {
			if rest := strings.TrimSpace(text[i+6:]); rest != "" && rest[0] != ';' {
				return true
			}
		}
	}
	return false
}

// lambdaStart reports whether the '[' at line[i] opens a lambda: it
// follows an operator, a parenthesis, a comma or nothing (not an array
// or index), and its ']' is followed by '(' or '{'.
func lambdaStart(line string, i int) bool {
	j := i - 1
	for j >= 0 && (line[j] == ' ' || line[j] == '\t') {
		j--
	}
	if j >= 0 && !strings.ContainsRune("=(,{;:?!&|", rune(line[j])) {
		return false
	}
	k := strings.IndexByte(line[i:], ']')
	if k < 0 {
		return false
	}
	rest := strings.TrimSpace(line[i+k+1:])
	return strings.HasPrefix(rest, "(") || strings.HasPrefix(rest, "{")
}

// blankLambda replaces the lambda starting at src[ln-1][col] ('[') to
// the '}' closing its body with spaces.
func blankLambda(src []string, ln, col int) {
	depth, opened := 0, false
	for l := ln; l <= len(src); l++ {
		b := []byte(src[l-1])
		from := 0
		if l == ln {
			from = col
		}
		for i := from; i < len(b); i++ {
			switch b[i] {
			case '{':
				depth++
				opened = true
			case '}':
				depth--
			}
			b[i] = ' '
			if opened && depth == 0 {
				src[l-1] = string(b)
				return
			}
		}
		src[l-1] = string(b)
	}
}

// enteredElsewhere reports whether instruction d of the function is
// reached other than from instructions fall and jump (-1: none): a jump or
// conditional branch to it, or the instruction before it falling into it.
func (gb *graphBuilder) enteredElsewhere(d, fall, jump int) bool {
	p, fn := gb.p, gb.fn
	if d <= fn.first || d >= fn.end {
		return false
	}
	if p.jumpedToExcept(fn, d, func(k int) bool { return k == fall || k == jump }) {
		return true
	}
	prev := &p.insns[d-1]
	return d-1 != fall && d-1 != jump && prev.kind != kJmp && prev.kind != kRet && prev.kind != kJmpInd && !prev.noReturn
}
