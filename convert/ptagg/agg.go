package ptagg

import (
	"math"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/internal/perfopt"
)

// callNode is one frame of a thread's call tree: the call instruction in
// the parent frame (site) that entered it. Roots (parent -1, site 0) are
// per thread. Nodes are indexes into Agg.nodes, so that the per-block
// path writes no pointers.
type callNode struct {
	parent   int32
	thr      *Thread // the thread whose tree this is
	site     uint64
	ret      uint64 // the return address, once a return to it was seen
	children []int32
}

type Thread struct {
	pid, tid int32
	root     int32
	cur      int32  // the top of stack, or root
	cpu      int32  // the CPU of the previous block (-1: unknown)
	nc       uint64 // nodeCPU(cur, cpu): the key part of the next block
	// prev is the record of the thread's previous run and cand the
	// guess for the next one: prev's successor in slot (0 or 1) of
	// prev.succ. 0: none.
	prev, cand int32
	slot       uint64
	// stack holds one node per active call (recursion folded: a node can
	// appear more than once); deeper calls than maxDepth are only counted.
	stack    []int32
	overflow int
	// mapLo, mapHi cache the range of the map the last jump came from.
	mapLo, mapHi uint64
	lastTime     uint64
	// In a chunk's Agg (chunk.go): timeUnknown while the thread's last
	// time is the one it had where the chunk began, not known; firstRec
	// and firstTm are the record and time of its first time step, whose
	// time since that one Merge adds (firstRec 0: none).
	timeUnknown bool
	firstRec    int32
	firstTm     uint64
}

func (t *Thread) setTop(n int) {
	t.stack = t.stack[:n]
	if n == 0 {
		t.cur = t.root
	} else {
		t.cur = t.stack[n-1]
	}
	t.nc = nodeCPU(t.cur, t.cpu)
}

// Options select what an Agg takes.
type Options struct {
	// PIDs and TIDs, when not nil, are the processes and threads whose
	// runs are taken; the others' are passed over.
	PIDs, TIDs map[int32]bool
	// Time, when not nil, holds the --time ranges of the runs taken
	// (session.Session.TimeRanges).
	Time perfopt.TimeRanges
	// Edges makes records per block and preceding block of the thread,
	// without call stacks, CPUs, branches or times (edges.go; EdgeCounts).
	Edges bool
}

// Agg aggregates decoded PT runs per block, call stack and CPU.
type Agg struct {
	o       Options
	m       *machine.Machine
	threads map[int32]*Thread
	recs    recTable
	// timeRanges: Options.Time (nil: no time filter).
	timeRanges perfopt.TimeRanges
	edges      edgeTable
	nodes      []callNode
	last       *Thread   // the thread of the previous block
	fs         fastState // Agg.fast's
	// chunk is set in the Agg of a chunk decoded ahead (chunk.go);
	// undo while Merge adds one.
	chunk *chunkState
	undo  *aggUndo
	// With Options.Edges (edges.go): ctx[ri]-1 is the node of record
	// ri's block as a predecessor (0: not made yet), ctxNodes finds
	// those nodes, and ninsn[ri] is the instruction count of ri's block.
	ctx      []int32
	ctxNodes map[ctxKey]int32
	ninsn    []uint32
}

// maxDepth bounds a thread's reconstructed stack (runaway recursion or
// unmatched calls).
const maxDepth = 1024

// maxCallLen is the longest x86 call instruction: a return to To matches
// the frame whose call site lies within this distance before To.
const maxCallLen = 15

// inTime reports whether time tm passes the time filter.
func (a *Agg) inTime(tm uint64) bool {
	return !a.timeRanges.Skip(tm)
}

func (a *Agg) thread(rb *RunBatch) *Thread {
	t := a.threads[rb.TID]
	if t == nil {
		t = &Thread{pid: rb.PID, tid: rb.TID, cpu: rb.CPU}
		if a.o.Edges {
			t.cpu = -1
		}
		if a.chunk != nil {
			t.root = a.chunkRoot(t)
		} else {
			t.root = a.newNode(-1, t, 0)
		}
		t.setTop(0)
		a.threads[rb.TID] = t
	}
	a.last = t
	return t
}

// returnsTo reports whether a return to to leaves frame n: to is the
// return address seen before, or, for a frame not yet returned from, lies
// within a call instruction's length after the call site.
func (n *callNode) returnsTo(to uint64) bool {
	return n.ret == to || n.ret == 0 && to > n.site && to-n.site <= maxCallLen
}

func (a *Agg) newNode(parent int32, t *Thread, site uint64) int32 {
	a.nodes = append(a.nodes, callNode{parent: parent, thr: t, site: site})
	return int32(len(a.nodes) - 1)
}

// stackMoves has bit f&stackFlags set for the Block flags that can move
// the stack: calls, returns and unconditional jumps (conditional branches
// never do), tested with a shift instead of two branches.
const (
	stackFlags = sample.FlagBranch | sample.FlagCall | sample.FlagReturn | sample.FlagConditional
	stackMoves = 0xfcfe
)

// b2u is 1 for true: compiled to a flag move, not a branch.
func b2u(x bool) uint64 {
	var u uint64
	if x {
		u = 1
	}
	return u
}

// Runs aggregates a batch of runs of one thread (the session's
// Handler.Runs). The loop
// is the per-run work: the session calls once per batch.
func (a *Agg) Runs(rb *RunBatch) {
	if a.o.PIDs != nil && !a.o.PIDs[rb.PID] || a.o.TIDs != nil && !a.o.TIDs[rb.TID] {
		return
	}
	t := a.last
	if t.tid != rb.TID {
		t = a.thread(rb)
	}
	if a.o.Edges {
		a.runsEdges(t, rb.Runs)
		return
	}
	if t.cpu != rb.CPU {
		// Records are per CPU; the call stack (t.cur) is the thread's
		// and is kept across the move. perf report does not: each
		// CPU's queue of a per-CPU trace is a trace of its own
		// (trace_nr), and thread_stack__event flushes a thread's stack
		// when the trace_nr changes, so a migrating thread loses its
		// callers there (main 5.31% children in perf report against
		// 8.56% here on the recording measured). That is perf's
		// artefact, and pprof is not perf's output: kept on purpose
		// (package pprof's doc; TestPerCPUStacks pins it).
		t.cpu = rb.CPU
		t.nc = nodeCPU(t.cur, t.cpu)
	}
	tm := rb.Time
	runs := rb.Runs
	for i := 0; i < len(runs); i++ {
		if a.timeRanges == nil && a.chunk == nil && (tm == t.lastTime || tm == 0) {
			// Most runs: fastRuns takes them up to one that needs
			// this loop.
			var n int
			n, tm = a.fast(t, runs[i:], rb.Marks, tm)
			if i += n; i == len(runs) {
				break
			}
		}
		run := &runs[i]
		if a.timeRanges != nil {
			if run.Mark != 0 && int(run.Mark) <= len(rb.Marks) {
				tm = rb.Marks[run.Mark-1].Time
			}
			if !a.inTime(tm) {
				continue
			}
		}
		// The guess, whose record the previous run loaded, is nearly
		// always right; else the hash index finds the record and the
		// guess is learnt.
		ri := t.cand
		r := &a.recs.recs[ri]
		if r.start != run.Start || r.end != run.End || r.nc != t.nc {
			ri = a.lookup(t, run.Start, run.End)
			r = &a.recs.recs[ri]
		}
		r.insns += uint64(run.NInsn)
		// Taken branches only, as perf's branches samples (RunTaken).
		f := uint32(run.Flags)
		taken := uint64(f / RunTaken)
		r.branches += taken
		// The time advances in MTC steps: most runs have their
		// predecessor's time, and no cycles.
		if uint32(run.Mark)|f&sample.FlagTraceEnd != 0 || tm != t.lastTime {
			tm = a.runTime(t, ri, r, rb, run, tm)
		}
		// The guess for the next run: after a conditional branch, by
		// whether it was taken; after a call, return or jump, by whether
		// the frame changed (a return in folded recursion stays in it,
		// the return from its outermost call does not).
		slot := taken
		if stackMoves>>(f&stackFlags)&1 != 0 {
			cur := t.cur
			a.move(t, f, run.End, run.To)
			slot = b2u(t.cur != cur)
		}
		t.prev, t.slot, t.cand = ri, slot, r.succ[slot]
	}
}

// runTime accounts for the time and cycles of run (whose record is r)
// (timeStep). It returns the run's time.
func (a *Agg) runTime(t *Thread, ri int32, r *blockRec, rb *RunBatch, run *Run, tm uint64) uint64 {
	if t.timeUnknown {
		return a.unknownStep(t, ri, rb.Marks, run, tm)
	}
	tm, t.lastTime = timeStep(r, rb.Marks, run, tm, t.lastTime)
	return tm
}

// timeStep is the time and cycles of run, whose record is r, at time tm
// after the thread's last time last: its mark's time and cycles (none if
// the mark is not one of marks), the time since last, and a trace stop
// after it. It returns the run's time and the thread's last time after it.
func timeStep(r *blockRec, marks []RunMark, run *Run, tm, last uint64) (uint64, uint64) {
	if run.Mark != 0 && int(run.Mark) <= len(marks) {
		m := &marks[run.Mark-1]
		tm = m.Time
		r.cycles += m.Cycles
	}
	if tm != last && tm != 0 {
		if last != 0 && tm > last {
			r.nanos += tm - last
		}
		last = tm
	}
	if run.Flags&sample.FlagTraceEnd != 0 && tm != 0 {
		// The thread stopped (switched out): the time until its trace
		// resumes is not its own.
		last = 0
	}
	return tm, last
}

// lookup finds or makes the record of the run [start, end] under the
// thread's stack and CPU, and makes it the successor of the thread's
// previous run.
func (a *Agg) lookup(t *Thread, start, end uint64) int32 {
	ri := a.recs.find(start, end, t.nc)
	if ri == 0 {
		ri = a.recs.insert(start, end, t.nc)
	}
	if t.prev != 0 {
		a.recs.recs[t.prev].succ[t.slot] = ri
	}
	return ri
}

// move updates the thread's call stack after a run that ended at end
// with a branch of kind f to to.
func (a *Agg) move(t *Thread, f uint32, end, to uint64) {
	if a.o.Edges {
		return // (After moves t)
	}
	if a.chunk != nil {
		a.moveChunk(t, f, end, to)
		return
	}
	switch {
	case f&(sample.FlagSyscallRet|sample.FlagInterrupt|sample.FlagAsync|sample.FlagTraceBegin|sample.FlagTraceEnd) != 0:
		// Kernel entries and trace gaps resume where they left.
	case f&sample.FlagCall != 0:
		if len(t.stack) >= maxDepth {
			t.overflow++
			return
		}
		t.stack = append(t.stack, a.fold(t.cur, end))
		t.setTop(len(t.stack))
	case f&sample.FlagReturn != 0:
		if t.overflow > 0 {
			t.overflow--
			return
		}
		for i := len(t.stack) - 1; i >= 0; i-- {
			n := &a.nodes[t.stack[i]]
			if n.returnsTo(to) {
				if u := a.undo; u != nil && n.ret != to {
					u.rets = append(u.rets, retUndo{t.stack[i], n.ret})
				}
				n.ret = to
				t.setTop(i)
				return
			}
		}
		// A return to a caller the trace never saw called (the trace
		// started inside it) pops one frame, or stays at the root.
		if len(t.stack) > 0 {
			t.setTop(len(t.stack) - 1)
		}
	case f&sample.FlagBranch != 0 && f&sample.FlagConditional == 0 && to != 0 && a.crossesMaps(t, end, to):
		// longjmp: a jump from another object (libc) to the return
		// address of a call made earlier from a frame up the stack
		// resumes that frame. (Jumps inside a function can land on a
		// return address too: they are not considered.)
		for i := len(t.stack) - 2; i >= -1; i-- {
			n := t.root
			if i >= 0 {
				n = t.stack[i]
			}
			for _, c := range a.nodes[n].children {
				if a.nodes[c].ret == to {
					t.overflow = 0
					t.setTop(i + 1)
					return
				}
			}
		}
	}
}

// inMap reports whether end and to are in the map whose range t caches.
func (t *Thread) inMap(end, to uint64) bool { return inRange(end, to, t.mapLo, t.mapHi-t.mapLo) }

// inRange reports whether end and to are in [lo, lo+span).
func inRange(end, to, lo, span uint64) bool { return end-lo < span && to-lo < span }

// crossesMaps reports whether thread t jumps from end in one mapping to
// to in another.
func (a *Agg) crossesMaps(t *Thread, end, to uint64) bool {
	if t.inMap(end, to) {
		return false
	}
	th := a.m.FindThread(t.tid)
	if th == nil {
		return false
	}
	from := a.m.FindMap(th, end)
	if from != nil {
		t.mapLo, t.mapHi = from.Start, from.End
	}
	return from != a.m.FindMap(th, to)
}

// fold returns the node for a call from site made in frame cur: the
// memoised result of foldNew.
func (a *Agg) fold(cur int32, site uint64) int32 {
	if n := a.edges.find(cur, site); n >= 0 {
		return n
	}
	n := a.foldNew(cur, site)
	a.edges.insert(cur, site, n)
	return n
}

// foldNew returns the node for a call from site made in frame cur.
// Recursion is folded: when an enclosing frame was entered from the same
// call site, its node is reused, so that the call tree stays as large as
// the program's call graph however deep the recursion; flat counts and
// the cumulative counts of directly recursive functions are unchanged.
// The result depends only on the tree above cur and on cur's children,
// which only grow, so it can be kept.
func (a *Agg) foldNew(cur int32, site uint64) int32 {
	for n, i := cur, 0; a.nodes[n].parent >= 0 && i < 256; n, i = a.nodes[n].parent, i+1 {
		if a.nodes[n].site == site {
			return n
		}
	}
	for _, c := range a.nodes[cur].children {
		if a.nodes[c].site == site {
			return c
		}
	}
	c := a.newNode(cur, a.nodes[cur].thr, site)
	if u := a.undo; u != nil {
		u.children = append(u.children, childUndo{cur, len(a.nodes[cur].children)})
	}
	a.nodes[cur].children = append(a.nodes[cur].children, c)
	return c
}

// New returns an empty aggregation of the runs of a session whose
// machine is m (it resolves maps for longjmps).
func New(m *machine.Machine, o Options) *Agg {
	a := &Agg{o: o, m: m, threads: map[int32]*Thread{}, recs: newRecTable(), edges: newEdgeTable()}
	a.timeRanges = o.Time
	if o.Edges {
		a.ctxNodes = map[ctxKey]int32{}
	}
	// A thread no run has: the first run looks its thread up.
	a.last = &Thread{tid: math.MinInt32}
	return a
}

// Record is what was aggregated of one block under one call-tree node on
// one CPU.
type Record struct {
	Start, End uint64 // the block's first and last instruction
	Node       int32  // the call-tree node (Agg.Nodes)
	CPU        int32  // -1: unknown
	Insns      uint64 // instructions executed
	Branches   uint64 // taken branches at its end
	Nanos      uint64 // the time estimate (see the package comment)
	Cycles     uint64 // CYC cycles
}

// Records returns the aggregated blocks, in no particular order.
func (a *Agg) Records() []Record {
	rs := make([]Record, 0, len(a.recs.recs))
	for i := 1; i < len(a.recs.recs); i++ {
		r := &a.recs.recs[i]
		rs = append(rs, Record{Start: r.start, End: r.end, Node: r.node(), CPU: r.cpu(),
			Insns: r.insns, Branches: r.branches, Nanos: r.nanos, Cycles: r.cycles})
	}
	return rs
}

// Node is one frame of a thread's call tree.
type Node struct {
	// Parent is the caller's node, -1 for the thread's root.
	Parent int32
	// PID and TID are the thread whose tree this is.
	PID, TID int32
	// Site is the call instruction in the parent's frame that entered
	// the node (0 for a root).
	Site uint64
}

// Nodes returns the call-tree nodes, by their number (Record.Node). Nodes
// are numbered in the order the calls that made them were first seen.
func (a *Agg) Nodes() []Node {
	ns := make([]Node, len(a.nodes))
	for i := range a.nodes {
		n := &a.nodes[i]
		ns[i] = Node{Parent: n.parent, PID: n.thr.pid, TID: n.thr.tid, Site: n.site}
	}
	return ns
}
