package ptagg

import (
	"unsafe"

	"github.com/perfpt/perfpt/convert/sample"
)

// fastState is what the fast loop (fastRuns) reads and updates of the
// aggregation and of one thread: the tables it reads (records and their
// index, call-tree nodes, the edge index), the records' counts and
// successors, the thread's stack, which it moves within its capacity, and
// the guess state. Agg.fast fills it from the thread and writes it
// back.
type fastState struct {
	recs   []blockRec
	rslots []int32 // recTable.slots
	nodes  []callNode
	edges  []edge // edgeTable.slots
	stack  []int32
	marks  []RunMark // the batch's
	rshift uint64    // recTable.shift
	eshift uint64    // edgeTable.shift
	// lo and span (hi - lo) are the map range of the thread's last jump
	// (Thread.mapLo, mapHi).
	lo, span uint64
	nc       uint64
	slot     uint64
	// tm is the time of the batch's runs so far, last the thread's
	// lastTime (runs' and runTime's).
	tm, last uint64
	root     int32
	cpu      int32
	cur      int32
	prev     int32
	cand     int32
	overflow int32 // 1: the thread has calls beyond maxDepth
}

// Offsets in Run and RunMark, for the assembly (go_asm.h has only
// this package's types).
const (
	runStart = unsafe.Offsetof(Run{}.Start)
	runEnd   = unsafe.Offsetof(Run{}.End)
	runTo    = unsafe.Offsetof(Run{}.To)
	runNInsn = unsafe.Offsetof(Run{}.NInsn)
	runFlags = unsafe.Offsetof(Run{}.Flags)
	runMark  = unsafe.Offsetof(Run{}.Mark)
	runSize  = unsafe.Sizeof(Run{})

	markTime   = unsafe.Offsetof(RunMark{}.Time)
	markCycles = unsafe.Offsetof(RunMark{}.Cycles)
	markSize   = unsafe.Sizeof(RunMark{})
)

// The flags fastRuns tests.
const (
	fBranch   = sample.FlagBranch
	fCall     = sample.FlagCall
	fReturn   = sample.FlagReturn
	fCond     = sample.FlagConditional
	fTraceEnd = sample.FlagTraceEnd
	fNoMove   = sample.FlagSyscallRet | sample.FlagInterrupt | sample.FlagAsync | sample.FlagTraceBegin | sample.FlagTraceEnd
	fTakenBit = 15 // RunTaken
)

// fast runs fastRuns on t from runs[0] on, at time tm, with the batch's
// marks, and returns how many runs it took and the time after them.
func (a *Agg) fast(t *Thread, runs []Run, marks []RunMark, tm uint64) (int, uint64) {
	s := &a.fs
	s.recs, s.rslots, s.nodes, s.edges, s.stack = a.recs.recs, a.recs.slots, a.nodes, a.edges.slots, t.stack
	s.rshift, s.eshift = uint64(a.recs.shift), uint64(a.edges.shift)
	s.lo, s.span = t.mapLo, t.mapHi-t.mapLo
	s.nc, s.slot = t.nc, t.slot
	s.root, s.cpu, s.cur, s.prev, s.cand = t.root, t.cpu, t.cur, t.prev, t.cand
	s.overflow = int32(min(t.overflow, 1))
	s.marks, s.tm, s.last = marks, tm, t.lastTime
	n := fastRuns(s, runs)
	t.stack, t.cur, t.nc = s.stack, s.cur, s.nc
	t.prev, t.slot, t.cand = s.prev, s.slot, s.cand
	t.lastTime = s.last
	return n, s.tm
}

// fastRunsGo is what runs' loop does for a run, for as many runs as need
// nothing else: the run's record exists (the guess, else found in the
// index, and then learnt as lookup does), and the stack moves, if at all,
// by a call whose node is in the edge index and that the stack has room
// for, by a return to a frame on the stack, or not (a jump within the map
// of the thread's last jump). Marks and trace stops are runTime's; it
// stops after a trace stop that leaves the time stale (s.tm != s.last,
// which runs' loop handles), and it starts with s.tm == s.last or s.tm ==
// 0. It returns the number of runs taken; the next is left as it was, but
// that its record may be found and learnt (the guess is then right for
// runs' loop). fastRuns is this in assembly where there is one.
func fastRunsGo(s *fastState, runs []Run) int {
	i := 0
	for ; i < len(runs); i++ {
		run := &runs[i]
		if c := s.cand; uint64(c) >= uint64(len(s.recs)) || s.recs[c].start != run.Start || s.recs[c].end != run.End || s.recs[c].nc != s.nc {
			ri := recFind(s.recs, s.rslots, s.rshift, run.Start, run.End, s.nc)
			if ri == 0 {
				break // a new record: runs' loop inserts it
			}
			if s.prev != 0 {
				s.recs[s.prev].succ[s.slot] = ri
			}
			s.cand = ri
		}
		r := &s.recs[s.cand]
		f := uint32(run.Flags)
		taken := uint64(f >> fTakenBit)
		slot := taken
		next, depth := s.cur, len(s.stack)
		if stackMoves>>(f&stackFlags)&1 != 0 {
			// move's cases, in its order; nothing is written before
			// the run is known to be taken.
			switch {
			case f&fNoMove != 0:
			case f&fCall != 0:
				if depth >= maxDepth || depth == cap(s.stack) {
					return i
				}
				n := edgeFind(s.edges, s.eshift, s.cur, run.End)
				if n < 0 {
					return i
				}
				next, depth = n, depth+1
			case f&fReturn != 0:
				if s.overflow != 0 {
					return i
				}
				for depth--; ; depth-- {
					if depth < 0 {
						return i
					}
					if s.nodes[s.stack[depth]].returnsTo(run.To) {
						break
					}
				}
				next = s.root
				if depth > 0 {
					next = s.stack[depth-1]
				}
			case f&fBranch != 0 && f&fCond == 0 && run.To != 0 && !inRange(run.End, run.To, s.lo, s.span):
				return i // maybe a longjmp: move looks at the maps
			}
			slot = b2u(next != s.cur)
		}
		r.insns += uint64(run.NInsn)
		r.branches += taken
		// runTime's work (the time is not stale here); a trace stop that
		// leaves it stale ends the loop after the run.
		stale := false
		if uint32(run.Mark)|f&fTraceEnd != 0 {
			s.tm, s.last = timeStep(r, s.marks, run, s.tm, s.last)
			stale = f&fTraceEnd != 0 && s.tm != 0
		}
		if depth > len(s.stack) {
			s.stack = s.stack[:depth]
			s.stack[depth-1] = next
		} else if depth < len(s.stack) {
			s.nodes[s.stack[depth]].ret = run.To
			s.stack = s.stack[:depth]
		}
		if next != s.cur {
			s.cur, s.nc = next, nodeCPU(next, s.cpu)
		}
		s.prev, s.slot, s.cand = s.cand, slot, r.succ[slot]
		if stale {
			return i + 1
		}
	}
	return i
}
