package pprof

import (
	"cmp"
	"math"
	"slices"

	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/internal/perfopt"
	"github.com/perfpt/perfpt/ptdecode/insn"
)

// callNode is one frame of a thread's call tree: the call instruction in
// the parent frame (site) that entered it. Roots (parent -1, site 0) are
// per thread. Nodes are indexes into ptAgg.nodes, so that the per-block
// path writes no pointers.
type callNode struct {
	parent   int32
	thr      *ptThread // the thread whose tree this is
	site     uint64
	ret      uint64 // the return address, once a return to it was seen
	children []int32
}

type ptThread struct {
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
}

func (t *ptThread) setTop(n int) {
	t.stack = t.stack[:n]
	if n == 0 {
		t.cur = t.root
	} else {
		t.cur = t.stack[n-1]
	}
	t.nc = nodeCPU(t.cur, t.cpu)
}

// ptAgg aggregates decoded PT blocks per call stack.
type ptAgg struct {
	o       *Options
	m       *machine.Machine
	threads map[int32]*ptThread
	recs    recTable
	// hasCycles: the recording has CYC packets (cycles/count).
	hasCycles bool
	// timeRanges: the session's --time ranges (nil: no time filter).
	timeRanges perfopt.TimeRanges
	edges      edgeTable
	nodes      []callNode
	cr         *codeReader
	last       *ptThread // the thread of the previous block
	fs         fastState // ptAgg.fast's
	// callerLocs caches each node's caller locations (by node id) while
	// a profile is built.
	callerLocs [][]*profile.Location
	callerOK   []bool
}

// maxDepth bounds a thread's reconstructed stack (runaway recursion or
// unmatched calls).
const maxDepth = 1024

// maxCallLen is the longest x86 call instruction: a return to To matches
// the frame whose call site lies within this distance before To.
const maxCallLen = 15

// inTime reports whether time tm passes the time filter.
func (a *ptAgg) inTime(tm uint64) bool {
	return !a.timeRanges.Skip(tm)
}

func (a *ptAgg) thread(rb *session.RunBatch) *ptThread {
	t := a.threads[rb.TID]
	if t == nil {
		t = &ptThread{pid: rb.PID, tid: rb.TID, cpu: rb.CPU}
		t.root = a.newNode(-1, t, 0)
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

func (a *ptAgg) newNode(parent int32, t *ptThread, site uint64) int32 {
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

// runs aggregates a batch of runs of one thread (Handler.Runs). The loop
// is the per-run work: the session calls once per batch.
func (a *ptAgg) runs(rb *session.RunBatch) {
	if a.o.PIDs != nil && !a.o.PIDs[rb.PID] || a.o.TIDs != nil && !a.o.TIDs[rb.TID] {
		return
	}
	t := a.last
	if t.tid != rb.TID {
		t = a.thread(rb)
	}
	if t.cpu != rb.CPU {
		// Records are per CPU.
		t.cpu = rb.CPU
		t.nc = nodeCPU(t.cur, t.cpu)
	}
	tm := rb.Time
	runs := rb.Runs
	for i := 0; i < len(runs); i++ {
		if a.timeRanges == nil && (tm == t.lastTime || tm == 0) {
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
		taken := uint64(f / session.RunTaken)
		r.branches += taken
		// The time advances in MTC steps: most runs have their
		// predecessor's time, and no cycles.
		if uint32(run.Mark)|f&sample.FlagTraceEnd != 0 || tm != t.lastTime {
			tm = a.runTime(t, r, rb, run, tm)
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
func (a *ptAgg) runTime(t *ptThread, r *blockRec, rb *session.RunBatch, run *session.Run, tm uint64) uint64 {
	tm, t.lastTime = timeStep(r, rb.Marks, run, tm, t.lastTime)
	return tm
}

// timeStep is the time and cycles of run, whose record is r, at time tm
// after the thread's last time last: its mark's time and cycles (none if
// the mark is not one of marks), the time since last, and a trace stop
// after it. It returns the run's time and the thread's last time after it.
func timeStep(r *blockRec, marks []session.RunMark, run *session.Run, tm, last uint64) (uint64, uint64) {
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
func (a *ptAgg) lookup(t *ptThread, start, end uint64) int32 {
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
func (a *ptAgg) move(t *ptThread, f uint32, end, to uint64) {
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
func (t *ptThread) inMap(end, to uint64) bool { return inRange(end, to, t.mapLo, t.mapHi-t.mapLo) }

// inRange reports whether end and to are in [lo, lo+span).
func inRange(end, to, lo, span uint64) bool { return end-lo < span && to-lo < span }

// crossesMaps reports whether thread t jumps from end in one mapping to
// to in another.
func (a *ptAgg) crossesMaps(t *ptThread, end, to uint64) bool {
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
func (a *ptAgg) fold(cur int32, site uint64) int32 {
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
func (a *ptAgg) foldNew(cur int32, site uint64) int32 {
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
	a.nodes[cur].children = append(a.nodes[cur].children, c)
	return c
}

// insnAddrs returns the instruction addresses of the block [start, end] in
// mp, or nil when its code cannot be read.
func (c *codeReader) insnAddrs(mp *machine.Map, start, end uint64, dst []uint64) []uint64 {
	if mp == nil || mp.DSO == nil || end < start || end-start > 1<<16 {
		return nil
	}
	var code []byte
	if path := mp.DSO.File(); path != "" {
		code = c.read(path, mp.MapIP(start), int(end-start)+1, int(end-start)+maxCallLen)
	} else if mem := mp.DSO.Code(); mp.MapIP(start) < uint64(len(mem)) && mp.MapIP(end) < uint64(len(mem)) {
		// The vdso: its code is in the recording.
		code = mem[mp.MapIP(start):min(mp.MapIP(end)+maxCallLen, uint64(len(mem)))]
	}
	if code == nil {
		return nil
	}
	dst = dst[:0]
	for off := uint64(0); start+off <= end; {
		dst = append(dst, start+off)
		if start+off == end {
			break
		}
		var in insn.Insn
		if err := insn.Decode(&in, code[off:], insn.Mode64); err != nil || in.Size == 0 {
			return nil
		}
		off += uint64(in.Size)
	}
	if dst[len(dst)-1] != end {
		return nil
	}
	return dst
}

func newPTAgg(s *session.Session, o *Options) *ptAgg {
	a := &ptAgg{o: o, m: s.Machine(), threads: map[int32]*ptThread{}, recs: newRecTable(), edges: newEdgeTable()}
	a.cr = newCodeReader()
	a.hasCycles = s.HasCycles()
	a.timeRanges = s.TimeRanges()
	// A thread no run has: the first run looks its thread up.
	a.last = &ptThread{tid: math.MinInt32}
	return a
}

func fromPT(s *session.Session, o Options) (*profile.Profile, error) {
	a := newPTAgg(s, &o)
	defer a.cr.close()
	if err := s.Run(session.Handler{Runs: a.runs}); err != nil {
		return nil, err
	}
	return a.profile(o.Granularity)
}

// blockKey identifies the code of a block; records of the same block under
// different call stacks share its leaf locations.
type blockKey struct {
	mp         *machine.Map
	start, end uint64
}

// profile turns the aggregated blocks into samples: one per call-tree node,
// CPU and leaf location.
func (a *ptAgg) profile(gran Granularity) (*profile.Profile, error) {
	types := []*profile.ValueType{{Type: "instructions", Unit: "count"}, {Type: "branches", Unit: "count"}}
	// The records grouped by (node, CPU), in a fixed order: the samples
	// of a group are made together, and a leaf location met twice in a
	// group (overlapping blocks, or one line at line granularity) adds to
	// its sample, found through stamp and sidx (by location ID) instead
	// of a map.
	recs := make([]int32, 0, len(a.recs.recs))
	hasTime := false
	for i := 1; i < len(a.recs.recs); i++ {
		recs = append(recs, int32(i))
		hasTime = hasTime || a.recs.recs[i].nanos != 0
	}
	// The value indexes of time and cycles, -1 when absent.
	timeIdx, cycIdx := -1, -1
	if hasTime {
		timeIdx = len(types)
		types = append(types, &profile.ValueType{Type: "time", Unit: "nanoseconds"})
	}
	if a.hasCycles {
		cycIdx = len(types)
		types = append(types, &profile.ValueType{Type: "cycles", Unit: "count"})
	}
	b := NewBuilder(gran, types)
	slices.SortFunc(recs, func(i, j int32) int {
		x, y := &a.recs.recs[i], &a.recs.recs[j]
		if c := cmp.Compare(x.node(), y.node()); c != 0 {
			return c
		}
		if c := cmp.Compare(x.cpu(), y.cpu()); c != 0 {
			return c
		}
		if c := cmp.Compare(x.start, y.start); c != 0 {
			return c
		}
		return cmp.Compare(x.end, y.end)
	})
	a.callerLocs = make([][]*profile.Location, len(a.nodes))
	a.callerOK = make([]bool, len(a.nodes))
	blocks := make(map[blockKey][]*profile.Location, len(recs))
	// leafLocs caches the leaf locations of line and function
	// granularity (their DWARF lookups) by address.
	leafLocs := map[leafKey]*profile.Location{}
	var stamp, sidx []int32
	group := int32(0)
	var (
		prevNode, prevCPU int32
		th                *machine.Thread
		lm                labelMaps
		addrs             []uint64
	)
	stack := make([]*profile.Location, 1, 64)
	vals := make([]int64, len(types))
	b.P.Sample = make([]*profile.Sample, 0, len(recs))
	for _, ri := range recs {
		r := &a.recs.recs[ri]
		n, cpu := r.node(), r.cpu()
		if n != prevNode || cpu != prevCPU || group == 0 {
			group++
			prevNode, prevCPU = n, cpu
			t := a.nodes[n].thr
			th = a.m.FindThread(t.tid)
			lb := Labels{PID: int64(t.pid), TID: int64(t.tid), CPU: int64(cpu)}
			if th != nil {
				lb.Comm = th.Comm
			}
			lm = b.labelMaps(lb)
			stack = append(stack[:1], a.callers(b, n)...)
		}
		mp := a.m.FindMap(th, r.start)
		bk := blockKey{mp, r.start, r.end}
		locs, ok := blocks[bk]
		if !ok {
			addrs = a.cr.insnAddrs(mp, r.start, r.end, addrs)
			if len(addrs) == 0 {
				// The code cannot be read: the whole count on the
				// block's start.
				addrs = append(addrs[:0], r.start)
			}
			locs = make([]*profile.Location, len(addrs))
			for i, ip := range addrs {
				if gran == Address {
					// The Builder's own address map is the cache.
					fr := a.frameIn(mp, ip)
					locs[i] = b.Location(&fr)
					continue
				}
				lk := leafKey{mp, ip}
				loc := leafLocs[lk]
				if loc == nil {
					fr := a.frameIn(mp, ip)
					loc = b.Location(&fr)
					leafLocs[lk] = loc
				}
				locs[i] = loc
			}
			blocks[bk] = locs
		}
		perExec := uint64(len(locs))
		total := r.insns
		for i, loc := range locs {
			clear(vals)
			share := total / perExec
			if uint64(i) < total%perExec {
				share++
			}
			vals[0] = int64(share)
			if i == len(locs)-1 {
				// The block's branch, and the time and cycles
				// up to it, go to its last instruction.
				vals[1] = int64(r.branches)
				if timeIdx >= 0 {
					vals[timeIdx] = int64(r.nanos)
				}
				if cycIdx >= 0 {
					vals[cycIdx] = int64(r.cycles)
				}
			}
			id := loc.ID
			if id >= uint64(len(stamp)) {
				stamp = slices.Grow(stamp, int(id)+1-len(stamp))[:id+1]
				sidx = slices.Grow(sidx, int(id)+1-len(sidx))[:id+1]
			}
			if stamp[id] == group {
				smp := b.P.Sample[sidx[id]]
				for j, v := range vals {
					smp.Value[j] += v
				}
				continue
			}
			stamp[id], sidx[id] = group, int32(len(b.P.Sample))
			stack[0] = loc
			b.P.Sample = append(b.P.Sample, b.newSampleLabels(stack, lm, vals))
		}
	}
	b.P.DefaultSampleType = "instructions"
	return b.Finish()
}

type leafKey struct {
	mp *machine.Map
	ip uint64
}

// callers returns the caller locations of node n, innermost first.
func (a *ptAgg) callers(b *Builder, n int32) []*profile.Location {
	nd := &a.nodes[n]
	if nd.parent < 0 {
		return nil
	}
	if a.callerOK[n] {
		return a.callerLocs[n]
	}
	fr := a.frame(nd.thr, nd.site)
	up := a.callers(b, nd.parent)
	l := make([]*profile.Location, 0, len(up)+1)
	l = append(append(l, b.Location(&fr)), up...)
	a.callerLocs[n], a.callerOK[n] = l, true
	return l
}

// frame resolves a caller frame at site of thread t.
func (a *ptAgg) frame(t *ptThread, site uint64) Frame {
	mp := a.m.FindMap(a.m.FindThread(t.tid), site)
	fr := a.frameIn(mp, site)
	// The site is the call instruction itself: no ip-1 adjustment.
	fr.Caller = false
	return fr
}

func (a *ptAgg) frameIn(mp *machine.Map, ip uint64) Frame {
	fr := Frame{IP: ip}
	if mp == nil || mp.DSO == nil {
		return fr
	}
	fr.Map = MapInfo{Start: mp.Start, End: mp.End, PgOff: mp.PgOff, File: mp.DSO.Name, Path: mp.DSO.File(), BuildID: mp.DSO.BuildID}
	fr.Sym = mp.DSO.Symbols().Find(mp.MapIP(ip))
	return fr
}
