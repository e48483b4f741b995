package pprof

import (
	"unsafe"

	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/session"
)

// fastState is what the fast loop (fastRuns) reads and updates of the
// aggregation and of one thread: the tables it reads (records, call-tree
// nodes, the edge index), the thread's stack, which it moves within its
// capacity, and the guess state. ptAgg.fast fills it from the thread and
// writes it back.
type fastState struct {
	recs   []blockRec
	nodes  []callNode
	edges  []edge // edgeTable.slots
	stack  []int32
	eshift uint64 // edgeTable.shift
	// lo and span (hi - lo) are the map range of the thread's last jump
	// (ptThread.mapLo, mapHi).
	lo, span uint64
	nc       uint64
	slot     uint64
	root     int32
	cpu      int32
	cur      int32
	prev     int32
	cand     int32
	overflow int32 // 1: the thread has calls beyond maxDepth
}

// Offsets in session.Run, for the assembly (go_asm.h has only this
// package's types).
const (
	runStart = unsafe.Offsetof(session.Run{}.Start)
	runEnd   = unsafe.Offsetof(session.Run{}.End)
	runTo    = unsafe.Offsetof(session.Run{}.To)
	runNInsn = unsafe.Offsetof(session.Run{}.NInsn)
	runFlags = unsafe.Offsetof(session.Run{}.Flags)
	runMark  = unsafe.Offsetof(session.Run{}.Mark)
	runSize  = unsafe.Sizeof(session.Run{})
)

// The flags fastRuns tests.
const (
	fBranch    = script.FlagBranch
	fCall      = script.FlagCall
	fReturn    = script.FlagReturn
	fCond      = script.FlagConditional
	fTraceEnd  = script.FlagTraceEnd
	fNoMove    = script.FlagSyscallRet | script.FlagInterrupt | script.FlagAsync | script.FlagTraceBegin
	fTakenBit  = 15 // session.RunTaken
	fStackMask = stackFlags
	hashMul1   = 0x9e3779b97f4a7c15 // recHash
	hashMul2   = 0xbf58476d1ce4e5b9
)

// fast runs fastRuns on t from runs[0] on and returns how many runs it
// took.
func (a *ptAgg) fast(t *ptThread, runs []session.Run) int {
	s := &a.fs
	s.recs, s.nodes, s.edges, s.stack = a.recs.recs, a.nodes, a.edges.slots, t.stack
	s.eshift = uint64(a.edges.shift)
	s.lo, s.span = t.mapLo, t.mapHi-t.mapLo
	s.nc, s.slot = t.nc, t.slot
	s.root, s.cpu, s.cur, s.prev, s.cand = t.root, t.cpu, t.cur, t.prev, t.cand
	s.overflow = int32(min(t.overflow, 1))
	n := fastRuns(s, runs)
	t.stack, t.cur, t.nc = s.stack, s.cur, s.nc
	t.prev, t.slot, t.cand = s.prev, s.slot, s.cand
	return n
}

// fastRunsGo is what runs' loop does for a run, for as many runs as need
// nothing else: the guess is the run's record, the run has no mark and
// no trace stop after it, and the stack moves, if at all, by a call whose
// node is in the edge index and that the stack has room for, by a return
// to a frame on the stack, or not (a jump within the map of the thread's
// last jump). It returns the number of runs taken; the next is left as
// it was. fastRuns is this in assembly where there is one.
func fastRunsGo(s *fastState, runs []session.Run) int {
	i := 0
	for ; i < len(runs); i++ {
		run := &runs[i]
		if uint64(s.cand) >= uint64(len(s.recs)) {
			break
		}
		r := &s.recs[s.cand]
		f := uint32(run.Flags)
		if r.start != run.Start || r.end != run.End || r.nc != s.nc || uint32(run.Mark)|f&fTraceEnd != 0 {
			break
		}
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
					n := &s.nodes[s.stack[depth]]
					if n.ret == run.To || n.ret == 0 && run.To > n.site && run.To-n.site <= maxCallLen {
						break
					}
				}
				next = s.root
				if depth > 0 {
					next = s.stack[depth-1]
				}
			case f&fBranch != 0 && f&fCond == 0 && run.To != 0 && (run.End-s.lo >= s.span || run.To-s.lo >= s.span):
				return i // maybe a longjmp: move looks at the maps
			}
			slot = b2u(next != s.cur)
		}
		r.insns += uint64(run.NInsn)
		r.branches += taken
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
	}
	return i
}

// edgeFind is edgeTable.find on the table's slots and shift.
func edgeFind(slots []edge, shift uint64, from int32, site uint64) int32 {
	mask := uint64(len(slots) - 1)
	for i := recHash(site, uint64(from), uint8(shift)); ; i = (i + 1) & mask {
		e := &slots[i]
		if e.site == site && e.from == from+1 {
			return e.to
		}
		if e.from == 0 {
			return -1
		}
	}
}
