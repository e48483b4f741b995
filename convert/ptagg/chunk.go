package ptagg

import (
	"slices"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
)

// Aggregating a chunk of trace decoded ahead (the session's parallel
// decode), for Merge into the Agg of the decode in sequence.
//
// A chunk's decoder does not know the call stacks its threads had where
// it began. Its Agg (NewChunk) keeps call-tree nodes of its own: each
// thread starts under a base node, which stands for the whole stack the
// thread will turn out to have had there, and a call makes a child node
// of the frame it was made in, one per (frame, call site), folding
// recursion above the base as Agg.fold does (Merge checks that the real
// tree folds there too). A return
// to a frame of the chunk's own pops to it, as Runs would; what depends on
// the stack below the base (a return to no frame of the chunk's, a jump
// to another mapping, which may be a longjmp) is an event: the thread goes
// on under a new base node, which stands for the stack the event leaves.
//
// Merge replays, in execution order, what the chunk's Agg logged: its
// nodes are mapped to the real ones (a child to the node a call from the
// same site makes under its parent's real node: Agg.fold, which numbers
// new nodes in the order the calls were first made, as in sequence), its
// events are applied to the real stack they had (the base's, with the
// chunk's frames above it), and the return addresses the chunk's frames
// learnt (callNode.ret) are given to their real nodes when they were
// learnt. Then the chunk's records are added to the real ones. What the
// chunk decided on its own is what Runs would have decided on the real
// tree when every real node a frame maps to learnt the same return
// address, and the stack never exceeded maxDepth: Merge checks both, and
// where either fails it undoes what it did and reports it (the session
// then decodes the chunk in sequence). Edge counts (Options.Edges) need
// no stacks: their chunks are merged by mergeEdges (edges.go).

// chunkState is what a chunk's Agg logs for Merge.
type chunkState struct {
	// th is the machine's thread of the chunk's queue (the maps of a jump
	// are looked up only in its maps: a worker may read no others).
	th     *machine.Thread
	log    []chunkLog
	events []chunkEvent
	depth  []int32 // by base node: the most frames the stack had on it
	bad    bool    // a stack deeper than maxDepth
}

// Kinds of chunkLog.
const (
	logBase = iota // a base node (ev: its event, -1: the thread's start)
	logNode        // a child node
	logRet         // node learnt its return address to
	logFold        // a call from site to made in frame ev folded to node
)

type chunkLog struct {
	kind uint8
	node int32
	ev   int32
	to   uint64
}

// chunkEvent is a move of the stack that depends on the stack below
// the base: Agg.move(f, end, to) with frames (the chunk's) on the base.
type chunkEvent struct {
	f       uint32
	end, to uint64
	frames  []int32
}

// NewChunk returns an empty aggregation of a chunk of the runs of
// thread th that a takes (the same options), for a.Merge.
func (a *Agg) NewChunk(th *machine.Thread) *Agg {
	c := New(a.m, a.o)
	c.chunk = &chunkState{th: th}
	return c
}

// chunkRoot makes the base node of a thread starting in the chunk.
func (a *Agg) chunkRoot(t *Thread) int32 {
	c := a.chunk
	n := a.newNode(-1, t, 0)
	c.depth = append(c.depth, 0)
	c.log = append(c.log, chunkLog{kind: logBase, node: n, ev: -1})
	t.timeUnknown = true
	return n
}

// unknownStep is timeStep for run, of record ri, of a chunk's thread
// whose last time is not known (the one it had where the chunk began):
// the first time it sees is its first time step (Merge adds the time
// since the last), after which its last time is known.
func (a *Agg) unknownStep(t *Thread, ri int32, marks []RunMark, run *Run, tm uint64) uint64 {
	if run.Mark != 0 && int(run.Mark) <= len(marks) {
		m := &marks[run.Mark-1]
		tm = m.Time
		a.recs.recs[ri].cycles += m.Cycles
	}
	if tm != 0 {
		t.timeUnknown = false
		t.firstRec, t.firstTm, t.lastTime = ri, tm, tm
		if run.Flags&sample.FlagTraceEnd != 0 {
			t.lastTime = 0
		}
	}
	return tm
}

// moveChunk is move for a chunk's Agg.
func (a *Agg) moveChunk(t *Thread, f uint32, end, to uint64) {
	c := a.chunk
	switch {
	case f&(sample.FlagSyscallRet|sample.FlagInterrupt|sample.FlagAsync|sample.FlagTraceBegin|sample.FlagTraceEnd) != 0:
	case f&sample.FlagCall != 0:
		if len(t.stack) >= maxDepth {
			c.bad = true
			return
		}
		n := a.edges.find(t.cur, end)
		if n < 0 {
			n = a.chunkFold(t.cur, end)
			a.edges.insert(t.cur, end, n)
		}
		t.stack = append(t.stack, n)
		t.setTop(len(t.stack))
		c.deepest(t)
	case f&sample.FlagReturn != 0:
		for i := len(t.stack) - 1; i >= 0; i-- {
			n := &a.nodes[t.stack[i]]
			if n.returnsTo(to) {
				if n.ret != to {
					n.ret = to
					c.log = append(c.log, chunkLog{kind: logRet, node: t.stack[i], to: to})
				}
				t.setTop(i)
				return
			}
		}
		a.chunkEvent(t, f, end, to)
	case f&sample.FlagBranch != 0 && f&sample.FlagConditional == 0 && to != 0 && a.chunkCrosses(t, end, to):
		a.chunkEvent(t, f, end, to)
	}
}

// deepest notes t's stack in the most frames it had on its base.
func (c *chunkState) deepest(t *Thread) {
	if d := &c.depth[t.root]; int(*d) < len(t.stack) {
		*d = int32(len(t.stack))
	}
}

// chunkFold is foldNew above the base: a call from site made in frame
// cur folds to the frame up to the base entered from the same site, else
// makes a child of cur (logged for Merge either way).
func (a *Agg) chunkFold(cur int32, site uint64) int32 {
	c := a.chunk
	for n, i := cur, 0; a.nodes[n].parent >= 0 && i < 256; n, i = a.nodes[n].parent, i+1 {
		if a.nodes[n].site == site {
			c.log = append(c.log, chunkLog{kind: logFold, node: n, ev: cur, to: site})
			return n
		}
	}
	n := a.newNode(cur, a.nodes[cur].thr, site)
	c.depth = append(c.depth, 0)
	c.log = append(c.log, chunkLog{kind: logNode, node: n})
	return n
}

// chunkCrosses is crossesMaps in the maps of the chunk's thread (a jump
// of another thread is an event).
func (a *Agg) chunkCrosses(t *Thread, end, to uint64) bool {
	if t.inMap(end, to) {
		return false
	}
	th := a.chunk.th
	if th == nil || th.TID != t.tid {
		return true
	}
	from := a.m.FindMap(th, end)
	if from != nil {
		t.mapLo, t.mapHi = from.Start, from.End
	}
	return from != a.m.FindMap(th, to)
}

// chunkEvent logs the move (f, end, to) of t's stack as an event and
// puts t under a new base.
func (a *Agg) chunkEvent(t *Thread, f uint32, end, to uint64) {
	c := a.chunk
	ev := int32(len(c.events))
	c.events = append(c.events, chunkEvent{f: f, end: end, to: to, frames: slices.Clone(t.stack)})
	n := a.newNode(-1, t, 0)
	c.depth = append(c.depth, 0)
	c.log = append(c.log, chunkLog{kind: logBase, node: n, ev: ev})
	t.root = n
	t.setTop(0)
}

// aggUndo is what Merge undoes when it fails.
type aggUndo struct {
	rets     []retUndo
	children []childUndo
}

type retUndo struct {
	node int32
	ret  uint64
}

type childUndo struct {
	node int32
	n    int
}

// threadSave is a thread's state before Merge: was is *t then, its stack
// a copy.
type threadSave struct {
	t     *Thread
	isNew bool
	was   Thread
}

// mergeThread is a chunk thread's real thread and the real stack of its
// current base.
type mergeThread struct {
	rt       *Thread
	base     []int32
	lastTime uint64 // rt's before Merge
}

// Merge adds the aggregation of a chunk (NewChunk), which followed what a
// has taken so far, to a (see chunkState). It reports false, with a as it
// was, where the chunk's own decisions may not be a's: the chunk must
// then be aggregated in sequence.
func (a *Agg) Merge(l *Agg) bool {
	c := l.chunk
	if c == nil || c.bad {
		return false
	}
	if a.o.Edges {
		a.mergeEdges(l)
		return true
	}
	var u aggUndo
	a.undo = &u
	defer func() { a.undo = nil }()
	n0 := len(a.nodes)
	var saves []threadSave
	threads := map[*Thread]*mergeThread{}
	realOf := make([]int32, len(l.nodes))
	baseLen := map[int32]int{} // by base node: its real stack's length
	var stack []int32
	ok := true
log:
	for _, e := range c.log {
		switch e.kind {
		case logBase:
			lt := l.nodes[e.node].thr
			mt := threads[lt]
			if mt == nil {
				rt, isNew := a.threads[lt.tid], false
				if rt == nil {
					isNew = true
					rt = &Thread{pid: lt.pid, tid: lt.tid, cpu: lt.cpu}
					rt.root = a.newNode(-1, rt, 0)
					rt.setTop(0)
					a.threads[lt.tid] = rt
				}
				s := threadSave{t: rt, isNew: isNew, was: *rt}
				s.was.stack = slices.Clone(rt.stack)
				saves = append(saves, s)
				mt = &mergeThread{rt: rt, lastTime: rt.lastTime}
				threads[lt] = mt
			}
			rt := mt.rt
			if e.ev >= 0 {
				ev := &c.events[e.ev]
				stack = append(stack[:0], mt.base...)
				for _, n := range ev.frames {
					stack = append(stack, realOf[n])
				}
				rt.stack = append(rt.stack[:0], stack...)
				rt.setTop(len(rt.stack))
				a.move(rt, ev.f, ev.end, ev.to)
			}
			if rt.overflow != 0 {
				ok = false
				break log
			}
			mt.base = append(mt.base[:0], rt.stack...)
			realOf[e.node] = rt.cur
			baseLen[e.node] = len(rt.stack)
		case logNode:
			n := &l.nodes[e.node]
			realOf[e.node] = a.fold(realOf[n.parent], n.site)
		case logFold:
			if a.fold(realOf[e.ev], e.to) != realOf[e.node] {
				ok = false
				break log
			}
		case logRet:
			r := &a.nodes[realOf[e.node]]
			if r.ret != e.to {
				if r.ret != 0 {
					ok = false
					break log
				}
				u.rets = append(u.rets, retUndo{realOf[e.node], 0})
				r.ret = e.to
			}
		}
	}
	for b, n := range baseLen {
		if n+int(c.depth[b]) > maxDepth {
			ok = false // (the stack grew past maxDepth)
		}
	}
	if !ok {
		for i := len(u.rets) - 1; i >= 0; i-- {
			a.nodes[u.rets[i].node].ret = u.rets[i].ret
		}
		for i := len(u.children) - 1; i >= 0; i-- {
			ch := &a.nodes[u.children[i].node].children
			*ch = (*ch)[:u.children[i].n]
		}
		if len(a.nodes) != n0 {
			a.nodes = a.nodes[:n0]
			a.edges = newEdgeTable() // (a cache: fold makes the same nodes again)
		}
		for _, s := range saves {
			t := s.t
			if s.isNew {
				delete(a.threads, t.tid)
				if a.last == t {
					a.last = &Thread{tid: -1 << 31}
				}
				continue
			}
			stack := append(t.stack[:0], s.was.stack...)
			*t = s.was
			t.stack = stack
		}
		return false
	}
	// The records.
	realRec := make([]int32, len(l.recs.recs))
	for i := 1; i < len(l.recs.recs); i++ {
		r := &l.recs.recs[i]
		nc := nodeCPU(realOf[r.node()], r.cpu())
		ri := a.recs.find(r.start, r.end, nc)
		if ri == 0 {
			ri = a.recs.insert(r.start, r.end, nc)
		}
		realRec[i] = ri
		x := &a.recs.recs[ri]
		x.insns += r.insns
		x.branches += r.branches
		x.nanos += r.nanos
		x.cycles += r.cycles
	}
	// The threads as the chunk left them, and their first time steps.
	for lt, mt := range threads {
		rt := mt.rt
		if lt.firstRec != 0 && mt.lastTime != 0 && lt.firstTm > mt.lastTime {
			a.recs.recs[realRec[lt.firstRec]].nanos += lt.firstTm - mt.lastTime
		}
		if !lt.timeUnknown {
			rt.lastTime = lt.lastTime
		}
		rt.stack = append(rt.stack[:0], mt.base...)
		for _, n := range lt.stack {
			rt.stack = append(rt.stack, realOf[n])
		}
		rt.cpu = lt.cpu
		rt.setTop(len(rt.stack))
		rt.prev, rt.cand, rt.slot = 0, 0, 0
	}
	return true
}
