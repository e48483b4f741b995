package ptagg

// Edge counts (Options.Edges).
//
// With Options.Edges an Agg keeps one record per block and per block that
// preceded it in the same thread, instead of per call-tree node and CPU:
// what a coverage tool (convert/gcov) needs, which counts how often each
// run of code followed each other. The "node" of a record is then the
// predecessor: a node whose site and ret are the first and last
// instruction of the previous block of the thread (its parent the thread's
// root), or the thread's root for its first block. Calls, returns and
// jumps move no stack; every run moves the thread to the node of its own
// block (Agg.after). The session's edge-graph walk keeps working as it
// does for call stacks: the record that follows a record is again a
// function of the record and the branch taken, and the walk tells the Agg
// where its thread's flow stands when it records (RecordAfter), moves
// (After) and stops (WalkedAt).

// ctxKey names a predecessor node: the thread's root and the block.
type ctxKey struct {
	root       int32
	start, end uint64
}

// after moves t to the node of record ri's block as a predecessor.
func (a *Agg) after(t *Thread, ri int32) {
	if int(ri) >= len(a.ctx) {
		a.ctx = grownFor(a.ctx, ri)
	}
	n := a.ctx[ri] - 1
	if n < 0 {
		r := &a.recs.recs[ri]
		n = a.ctxNode(t, r.start, r.end)
		a.ctx[ri] = n + 1
	}
	t.cur = n
	t.nc = nodeCPU(n, -1)
}

// ctxNode returns t's node of the block [start, end] as a predecessor,
// made if need be.
func (a *Agg) ctxNode(t *Thread, start, end uint64) int32 {
	k := ctxKey{t.root, start, end}
	n, ok := a.ctxNodes[k]
	if !ok {
		n = int32(len(a.nodes))
		a.nodes = append(a.nodes, callNode{parent: t.root, thr: t, site: start, ret: end})
		a.ctxNodes[k] = n
	}
	return n
}

// mergeEdges is Merge with Options.Edges. A chunk's thread starts under
// its base node (chunkRoot), which stands for the block the thread ran
// last before the chunk: the real thread's current node (its previous
// block, or its root before its first). The chunk's other nodes are its
// blocks as predecessors: the real thread's nodes of the same blocks. As
// no record of the chunk's depends on more than the block before it, and
// that is known when the chunk is merged in order, the merge is never
// refused. (Nodes are made in the order of the chunk's, which made them
// in execution order: the numbers Runs would have given them.)
func (a *Agg) mergeEdges(l *Agg) {
	realOf := make([]int32, len(l.nodes))
	threads := map[*Thread]*Thread{}
	for i := range l.nodes {
		n := &l.nodes[i]
		rt := threads[n.thr]
		if rt == nil {
			if rt = a.threads[n.thr.tid]; rt == nil {
				rt = &Thread{pid: n.thr.pid, tid: n.thr.tid, cpu: -1}
				rt.root = a.newNode(-1, rt, 0)
				rt.setTop(0)
				a.threads[rt.tid] = rt
			}
			threads[n.thr] = rt
		}
		if n.parent < 0 {
			realOf[i] = rt.cur
		} else {
			realOf[i] = a.ctxNode(rt, n.site, n.ret)
		}
	}
	for i := 1; i < len(l.recs.recs); i++ {
		r := &l.recs.recs[i]
		nc := nodeCPU(realOf[r.node()], -1)
		ri := a.recs.find(r.start, r.end, nc)
		if ri == 0 {
			ri = a.recs.insert(r.start, r.end, nc)
		}
		a.recs.recs[ri].insns += r.insns
		if i < len(l.ninsn) && l.ninsn[i] != 0 {
			a.noteInsns(ri, l.ninsn[i])
		}
	}
	for lt, rt := range threads {
		rt.cur = realOf[lt.cur]
		rt.nc = nodeCPU(rt.cur, -1)
		rt.prev, rt.cand, rt.slot = 0, 0, 0
	}
}

// noteInsns remembers the instruction count of record ri's block (Edges
// divides by it).
func (a *Agg) noteInsns(ri int32, n uint32) {
	if int(ri) >= len(a.ninsn) {
		a.ninsn = grownFor(a.ninsn, ri)
	}
	a.ninsn[ri] = n
}

// grownFor returns s, too short for index ri, grown with zeros to hold
// it (at least doubled).
func grownFor[T any](s []T, ri int32) []T {
	return append(s, make([]T, max(int(ri)+1, 2*len(s), 1024)-len(s))...)
}

// runsEdges is Runs with Options.Edges.
func (a *Agg) runsEdges(t *Thread, runs []Run) {
	for i := range runs {
		run := &runs[i]
		ri := t.cand
		r := &a.recs.recs[ri]
		if r.start != run.Start || r.end != run.End || r.nc != t.nc {
			ri = a.lookup(t, run.Start, run.End)
			r = &a.recs.recs[ri]
			a.noteInsns(ri, run.NInsn)
		}
		r.insns += uint64(run.NInsn)
		slot := uint64(run.Flags / RunTaken)
		cand := r.succ[slot]
		a.after(t, ri)
		t.prev, t.slot, t.cand = ri, slot, cand
	}
}

// Edges reports whether a counts edges (Options.Edges).
func (a *Agg) Edges() bool { return a.o.Edges }

// RecordAfter is Record for the walk: the record of the block [start,
// end] of ninsn instructions, which followed record from (0: t's flow
// stands where it is). With Options.Edges, t moves to from first.
func (a *Agg) RecordAfter(t *Thread, from int32, start, end uint64, ninsn uint32) int32 {
	if !a.o.Edges {
		return a.Record(t, start, end)
	}
	if from != 0 {
		a.after(t, from)
	}
	ri := a.Record(t, start, end)
	a.noteInsns(ri, ninsn)
	return ri
}

// After notes, with Options.Edges, that the walk counted record ri of t:
// the next block follows it (Call, Return and Jump move nothing then).
func (a *Agg) After(t *Thread, ri int32) {
	if a.o.Edges {
		a.after(t, ri)
	}
}

// WalkedAt is Walked for a walk whose last counted record is last (0:
// none) and whose last block, pend (0: none), is not counted: it is
// handed to Runs next, after last.
func (a *Agg) WalkedAt(t *Thread, last, pend int32) {
	if a.o.Edges {
		switch {
		case pend != 0:
			t.cur = a.recs.recs[pend].node()
			t.nc = nodeCPU(t.cur, -1)
		case last != 0:
			a.after(t, last)
		}
	}
	a.Walked(t)
}

// Edge is how often a thread ran a block after another (Options.Edges).
type Edge struct {
	PID, TID int32
	// From and FromEnd are the first and last instruction of the block
	// before (0, 0: none, the thread's first block).
	From, FromEnd uint64
	Start, End    uint64 // the block's first and last instruction
	N             uint64 // times
}

// EdgeCounts returns the edges counted with Options.Edges, in no
// particular order.
func (a *Agg) EdgeCounts() []Edge {
	es := make([]Edge, 0, len(a.recs.recs))
	for i := 1; i < len(a.recs.recs); i++ {
		r := &a.recs.recs[i]
		if r.insns == 0 || i >= len(a.ninsn) || a.ninsn[i] == 0 {
			continue
		}
		n := &a.nodes[r.node()]
		e := Edge{PID: n.thr.pid, TID: n.thr.tid, Start: r.start, End: r.end, N: r.insns / uint64(a.ninsn[i])}
		if n.parent >= 0 {
			e.From, e.FromEnd = n.site, n.ret
		}
		es = append(es, e)
	}
	return es
}
