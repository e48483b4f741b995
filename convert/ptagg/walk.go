package ptagg

import (
	"unsafe"

	"github.com/perfpt/perfpt/convert/sample"
)

// The session's edge-graph walk counts the runs it walks into an Agg
// directly, without making Runs of them: it follows its graph of blocks
// over the trace, keeps the records of the blocks it walks, adds their
// counts (Add), and moves the thread's call stack at calls and returns
// (Call, Return) in execution order, between the batches of runs it hands
// to Runs. What it does for a run is what Runs does for a run without a
// mark, without a trace stop and with a known successor in the same
// mapping: the same records, counts and call stacks.

// Walking returns the thread whose runs the session walks (pid, tid, on
// cpu), as Runs would take a batch of them, or nil when Runs would pass
// them over or check their times (Options' filters): the walk then makes
// Runs of them.
func (a *Agg) Walking(pid, tid, cpu int32) *Thread {
	if a.timeRanges != nil || a.o.PIDs != nil && !a.o.PIDs[pid] || a.o.TIDs != nil && !a.o.TIDs[tid] {
		return nil
	}
	t := a.last
	if t.tid != tid {
		t = a.thread(&RunBatch{PID: pid, TID: tid, CPU: cpu})
	}
	if t.cpu != cpu && !a.o.Edges {
		t.cpu = cpu
		t.nc = nodeCPU(t.cur, t.cpu)
	}
	return t
}

// NC returns the key of t's current call-tree node and CPU: records are
// per (start, end, NC).
func (t *Thread) NC() uint64 { return t.nc }

// Overflowed says whether t made calls beyond the stack's depth that its
// returns have not undone (its calls push nothing then).
func (t *Thread) Overflowed() bool { return t.overflow != 0 }

// Record returns the record of the block [start, end] under t's current
// node and CPU, made if need be.
func (a *Agg) Record(t *Thread, start, end uint64) int32 {
	ri := a.recs.find(start, end, t.nc)
	if ri == 0 {
		ri = a.recs.insert(start, end, t.nc)
	}
	return ri
}

// Add adds insns instructions and branches taken branches to record ri.
func (a *Agg) Add(ri int32, insns, branches uint64) {
	r := &a.recs.recs[ri]
	r.insns += insns
	if !a.o.Edges { // (edge counts keep no branches)
		r.branches += branches
	}
}

// Step accounts for the time of a walked run of record ri at time tm (a
// perf time; 0 in untimed recordings), as Runs does for a run without a
// mark or a trace stop: the time since t's last goes to the run.
func (a *Agg) Step(t *Thread, ri int32, tm uint64) {
	if tm == t.lastTime || a.o.Edges { // (edge counts keep no times)
		return
	}
	run := Run{}
	if t.timeUnknown {
		a.unknownStep(t, ri, nil, &run, tm)
		return
	}
	_, t.lastTime = timeStep(&a.recs.recs[ri], nil, &run, tm, t.lastTime)
}

// Call moves t's stack for a call made by the instruction at site.
func (a *Agg) Call(t *Thread, site uint64) {
	a.move(t, sample.FlagBranch|sample.FlagCall, site, 0)
}

// CallTo is Call for a call whose record's last call entered the node
// and CPU nc (what NC returned then; 0: none yet): as a record stands for
// one node and CPU and Agg.fold is a function of the node and site, a
// call from it that pushed a frame pushes the same one again. (A call that
// left NC as it was either pushed its own node, folded recursion, or
// pushed nothing, at maxDepth: Call finds out which.)
func (a *Agg) CallTo(t *Thread, site, nc uint64) {
	if nc != t.nc && nc != 0 && !a.o.Edges && len(t.stack) < maxDepth {
		n := int32(nc>>32) - 1
		t.stack = append(t.stack, n)
		t.cur, t.nc = n, nc
		if c := a.chunk; c != nil {
			c.deepest(t)
		}
		return
	}
	a.Call(t, site)
}

// Return moves t's stack for a return to to from the instruction at end.
func (a *Agg) Return(t *Thread, end, to uint64) {
	if n := len(t.stack); n > 0 && t.overflow == 0 && !a.o.Edges && a.nodes[t.stack[n-1]].ret == to {
		// The return to the top frame, seen before (move's and
		// moveChunk's first match; nothing to learn or log).
		t.setTop(n - 1)
		return
	}
	a.move(t, sample.FlagBranch|sample.FlagReturn, end, to)
}

// Walked notes that t's runs went on in the walk: the next run of Runs
// guesses no record.
func (a *Agg) Walked(t *Thread) { t.prev, t.slot, t.cand = 0, 0, 0 }

// Takes says whether Walking takes the runs of thread tid of process pid.
func (a *Agg) Takes(pid, tid int32) bool {
	return a.timeRanges == nil && (a.o.PIDs == nil || a.o.PIDs[pid]) && (a.o.TIDs == nil || a.o.TIDs[tid])
}

// Jump moves t's stack for a jump from the instruction at end to to in
// another mapping (a longjmp may resume a frame up the stack).
func (a *Agg) Jump(t *Thread, end, to uint64) {
	a.move(t, sample.FlagBranch, end, to)
}

// Frames is a thread's call tree as the session's assembly walk reads and
// moves it between calls of Agg (Agg.Frames, Agg.SetFrames): the moves of
// CallTo and Return that need no lookup, and Edges' After for a record
// whose node is made, in a flat layout.
type Frames struct {
	// Stack is the thread's stack of nodes, its capacity at most
	// maxDepth: a call may push within it.
	Stack []int32
	// Ctx holds, with Options.Edges, each record's node as a
	// predecessor plus 1 (0: not made yet; Agg.After).
	Ctx []int32
	// Nodes points at the call-tree nodes: NodeSize bytes each, a node's
	// return address (0: none seen yet) NodeRet bytes in.
	Nodes unsafe.Pointer
	// NC is the thread's NC; Root and CPU its root node and CPU.
	NC        uint64
	Root, CPU int32
	// Mode says which moves the walk may make itself (FramesNone: only
	// jumps in the map, which move nothing).
	Mode uint32
	// Overflow (1): the thread made calls beyond maxDepth, which its
	// returns undo first (Return's work).
	Overflow uint32
	// Depth is the most frames Stack had: a walk that pushes beyond it
	// raises it (a chunk's Agg logs it for Merge: chunkState.depth).
	Depth int32
}

// Frames modes.
const (
	FramesNone  = iota // calls and returns are CallTo's and Return's
	FramesStack        // call stacks (a chunk's too): a call to a known node pushes it, a return to the top's address pops
	FramesEdges        // Options.Edges: After sets the node of the record's block
)

// The call-tree node's size and the offset of its return address
// (Frames.Nodes).
const (
	NodeSize = unsafe.Sizeof(callNode{})
	NodeRet  = unsafe.Offsetof(callNode{}.ret)
)

// Frames sets f to t's call tree.
func (a *Agg) Frames(t *Thread, f *Frames) {
	f.Mode, f.Ctx = FramesNone, nil
	switch {
	case a.o.Edges:
		f.Mode, f.Ctx = FramesEdges, a.ctx
	default:
		f.Mode = FramesStack
	}
	n := len(t.stack)
	f.Depth = int32(n)
	if c := a.chunk; c != nil {
		f.Depth = max(f.Depth, c.depth[t.root])
	}
	f.Stack = t.stack[:n:max(n, min(cap(t.stack), maxDepth))]
	f.Nodes = unsafe.Pointer(unsafe.SliceData(a.nodes))
	f.NC, f.Root, f.CPU = t.nc, t.root, t.cpu
	f.Overflow = uint32(b2u(t.overflow != 0))
}

// SetFrames sets t's call tree to f, which Frames set and a walk moved.
func (a *Agg) SetFrames(t *Thread, f *Frames) {
	t.stack = t.stack[:len(f.Stack)]
	t.nc = f.NC
	t.cur = int32(f.NC>>32) - 1
	if c := a.chunk; c != nil && f.Depth > c.depth[t.root] {
		c.depth[t.root] = f.Depth
	}
}
