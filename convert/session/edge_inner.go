package session

import (
	"math/bits"
	"unsafe"

	"github.com/perfpt/perfpt/convert/ptagg"
	"github.com/perfpt/perfpt/convert/session/ptperf"
	"github.com/perfpt/perfpt/ptdecode/packet"
)

// aggInner is walkAgg's inner loop (walk): its state, in and out. The
// assembly reads it by the offsets of go_asm.h.
type aggInner struct {
	recs []aggRec
	// more holds the trace bytes after the current packet where the
	// loop may read more TNT-8 packets (and the PADs before them): up to
	// the end of the buffer or the decoder's stop position.
	more []byte
	ip   uint64
	// tnt holds the TNT bits left, the next one in bit 63, followed by
	// a 1 (1<<63: none left).
	tnt   uint64
	insns uint64
	// last is the record of the block walked last, which started at
	// lastIP; pending (1): it waits for its successor (a conditional
	// branch not taken).
	lastIP  uint64
	next    int32 // the record of the block at ip (0: unknown)
	last    int32
	ep      uint32
	pending uint32
	noProg  uint32 // walkInsn's count of unconditional branches in a row
	// sstate is the decoder's sample-time state (BulkWalk.SampleState):
	// a bit was taken from the current TNT packet.
	sstate uint32

	// Out: the bytes of more used (used) and the TNT-8 packets read
	// there (refills), the last of them (lastTNT); the
	// branch states passed (BulkWalk.Passing); whether the sample time
	// was taken (sampled: a packet read, or a state passed after a bit),
	// a TNT bit taken and a conditional branch not taken.
	used, refills uint64
	passed        uint64
	lastTNT       uint32
	sampled       uint32
	tookBit       uint32
	notTaken      uint32

	// mid's (edge_mid.go), which reads TIP packets from more too, and
	// counts them in refills (lastTNT the last one's first byte): the
	// first byte of the packet before the last (prevC), the last TIP's
	// payload (tipPl) and whether one was read since the decoder was
	// synchronised (tips); the decoder's last IP (tipIP), and whether a
	// TIP's target passes (tipOK: BulkWalk.LastIP).
	tipIP, tipPl       uint64
	prevC, tips, tipOK uint32
	// TIP mode (tipMode 1): the loop read a TIP before a direct jump or
	// call, whose target (tipTo) the next return or indirect branch
	// takes (walkTIP's walk); mid goes on in TIP mode where it stops.
	tipMode uint32
	tipTo   uint64

	// The moves the loop makes itself at calls, returns and TIPs
	// (mid's common cases): the thread's call tree (fr: ptagg.Frames),
	// the decoder's return stack (dstack: BulkWalk.Stack; RetComp:
	// retComp) and the last address popped (retAddr, when popped), the
	// cache of the targets of returns and indirect branches (tgt:
	// aggState.tgt, 1<<aggTargetBits entries) and the walk's map (lo,
	// span: aggWalk's).
	fr       ptagg.Frames
	dstack   []uint64
	tgt      []aggTarget
	lo, span uint64
	retAddr  uint64
	popped   uint32
	retComp  uint32
	// walkInsn's loop check on unconditional branches in a row
	// (loopCheck's state: BulkWalk.StuckIP, StuckPrd, StuckCnt, MaxLoops).
	stuckIP                      uint64
	stuckPrd, stuckCnt, maxLoops int64
}

// Offsets in aggInner.fr (ptagg.Frames) and in the call-tree nodes, for
// the assembly (go_asm.h has only this package's types).
const (
	frStack     = unsafe.Offsetof(aggInner{}.fr) + unsafe.Offsetof(ptagg.Frames{}.Stack)
	frCtx       = unsafe.Offsetof(aggInner{}.fr) + unsafe.Offsetof(ptagg.Frames{}.Ctx)
	frNodes     = unsafe.Offsetof(aggInner{}.fr) + unsafe.Offsetof(ptagg.Frames{}.Nodes)
	frNC        = unsafe.Offsetof(aggInner{}.fr) + unsafe.Offsetof(ptagg.Frames{}.NC)
	frRoot      = unsafe.Offsetof(aggInner{}.fr) + unsafe.Offsetof(ptagg.Frames{}.Root)
	frCPU       = unsafe.Offsetof(aggInner{}.fr) + unsafe.Offsetof(ptagg.Frames{}.CPU)
	frMode      = unsafe.Offsetof(aggInner{}.fr) + unsafe.Offsetof(ptagg.Frames{}.Mode)
	frOverflow  = unsafe.Offsetof(aggInner{}.fr) + unsafe.Offsetof(ptagg.Frames{}.Overflow)
	frDepth     = unsafe.Offsetof(aggInner{}.fr) + unsafe.Offsetof(ptagg.Frames{}.Depth)
	nodeSize    = ptagg.NodeSize
	nodeRet     = ptagg.NodeRet
	framesNone  = ptagg.FramesNone
	framesStack = ptagg.FramesStack
	framesEdges = ptagg.FramesEdges
)

// tipTab is, per IP compression of a TIP packet, its size (0: none the
// loop takes: suppressed or reserved), the payload's bits in the 8 bytes
// after its first, the last IP's bits it keeps, and the bits set where
// bit 47 of the IP is (sext: packet.LastIP.UpdateIP's sign extension). The assembly reads
// it; TestAggInnerWalk compares it with ptperf.TIPTarget.
var tipTab = func() (t [8]struct{ size, mask, keep, sext uint64 }) {
	for ipc := range t {
		n := packet.IPC(ipc).PayloadSize()
		if n <= 0 || n > 8 {
			continue
		}
		t[ipc].size = uint64(1 + n)
		t[ipc].mask = ^uint64(0) >> (64 - 8*uint(n))
		switch {
		case packet.IPC(ipc) == packet.IPCSext48:
			t[ipc].sext = 0xffff << 48
		case n < 8:
			t[ipc].keep = ^t[ipc].mask
		}
	}
	return t
}()

// walkGo is the inner loop (aggInnerWalk's assembly is the same, step for
// step). It walks from s.ip as walkAgg does while the block there, whose
// record the links know and is valid (links lead only to records walked
// in the map), is one of:
//   - a conditional branch with a TNT bit for it, or a direct jump whose
//     loop check passes (walkInsn's, loopCheck's), counted when its
//     successor is walked (the taken target or the fall-through);
//   - a direct call whose loop check passes, a return with a TNT bit for it
//     (compressed), or, when the TNT bits ran out and a TIP packet
//     follows, a return or an indirect call or jump that takes the TIP's
//     target (mid's takeTIP), where the call tree moves without a lookup
//     (frameMove): counted as mid's passed counts them, with the decoder's
//     return stack moved as walkInsn moves it.
//
// When the TNT bits run out it reads the next packet from s.more if that
// is a TNT-8 (after PADs), as BulkWalk.Next would, or a TIP for the block
// there. It stops before any other block or packet, leaving them to mid
// and walkAgg, with nothing of them done.
func (s *aggInner) walkGo() {
	for s.next != 0 {
		r := &s.recs[s.next]
		if s.tnt == 1<<63 && s.tipMode != 0 {
			// TIP mode: direct jumps and calls walked below, the
			// target taken at a return or indirect branch.
			if r.epoch != s.ep {
				break
			}
			if r.kind == aggRet || r.kind == aggInd {
				if !s.tipMove(r, s.tipTo) {
					break
				}
				s.tipMode = 0
				s.tipTaken(r, s.tipTo)
				continue
			}
			if r.kind != aggJump && r.kind != aggCall {
				break
			}
		} else if s.tnt == 1<<63 {
			// The next packet: a TNT-8 or a TIP after PADs, or the
			// loop ends.
			k := s.used
			for k < uint64(len(s.more)) && s.more[k] == 0 {
				k++
			}
			if k >= uint64(len(s.more)) {
				break
			}
			c := s.more[k]
			if c&1 != 0 || c == 2 {
				if !s.takeTIP(r, k) {
					break
				}
				continue
			}
			s.prevC, s.lastTNT = s.lastTNT, uint32(c)
			s.used, s.refills = k+1, s.refills+1
			pl := uint64(c >> 1)
			n := uint(bits.Len64(pl) - 1)
			s.tnt = pl<<(64-n) | 1<<(63-n)
			s.sampled, s.sstate = 1, 0
		}
		if r.epoch != s.ep {
			break
		}
		ft := s.ip + uint64(r.ft)
		switch r.kind {
		case aggCond:
			// Walked: the block before it went here.
			s.walkedRec(r)
			to := ft + uint64(int64(r.rel))
			s.noProg = 0
			s.tookBit, s.sstate = 1, 1
			bit := int64(s.tnt) < 0
			s.tnt <<= 1
			nx := r.next[0]
			if !bit {
				s.notTaken, s.pending = 1, 1
				s.last, s.lastIP = s.next, s.ip
				s.ip, s.next = ft, nx
				continue
			}
			if to != ft {
				r.taken++
				nx = r.next[1]
			}
			r.insns += uint64(r.cnt)
			s.passedTo(to, nx)
		case aggJump:
			to := ft + uint64(int64(r.rel))
			if r.next[0] == 0 || s.loopFails(to) {
				return // (a jump's target may be in another map: not linked)
			}
			s.walkedRec(r)
			s.loopStep(to)
			r.taken++
			r.insns += uint64(r.cnt)
			s.passedTo(to, r.next[0])
		case aggCall:
			to := ft + uint64(int64(r.rel))
			if s.loopFails(to) || r.rel != 0 && len(s.dstack) == cap(s.dstack) || !s.frameMove(r, aggCall, 0) {
				return
			}
			if r.rel != 0 {
				s.dstack = append(s.dstack, ft)
			}
			s.walkedRec(r)
			s.loopStep(to)
			s.countRec(r)
			s.passedTo(to, r.call)
		case aggRet:
			n := len(s.dstack)
			if int64(s.tnt) >= 0 || s.retComp == 0 || n == 0 || s.dstack[n-1] == 0 {
				return
			}
			to := s.dstack[n-1]
			if !s.frameMove(r, aggRet, to) {
				return
			}
			s.retAddr, s.popped = to, 1
			s.dstack = s.dstack[:n-1]
			s.tnt <<= 1
			s.tookBit, s.sstate = 1, 1
			s.walkedRec(r)
			s.noProg = 0
			s.countRec(r)
			s.passedTo(to, s.target(to))
		default:
			return
		}
	}
}

// takeTIP takes the TIP packet at s.more[k:] for the return or indirect
// branch of record r at s.ip (mid's takeTIP, where the call tree moves
// without a lookup), or reads it before the direct jump or call of r
// (TIP mode), or reports false with nothing done.
func (s *aggInner) takeTIP(r *aggRec, k uint64) bool {
	if s.tipOK == 0 || r.epoch != s.ep || r.kind < aggJump {
		return false
	}
	to, pl, size, ok := ptperf.TIPTarget(s.more[k:], s.tipIP)
	if !ok {
		return false
	}
	if r.kind == aggJump || r.kind == aggCall {
		// Walked as in walkTIP, up to the return or indirect branch
		// that takes the target; the decoder's Next took the sample
		// time at the end of the bits.
		s.readTIP(k, size, pl, to)
		s.tipMode, s.tipTo = 1, to
		s.sampled, s.sstate = 1, 0
		return true
	}
	if !s.tipMove(r, to) {
		return false
	}
	s.readTIP(k, size, pl, to)
	s.tipTaken(r, to)
	return true
}

// readTIP notes the TIP packet at s.more[k:] (size bytes, payload pl,
// target to) read.
func (s *aggInner) readTIP(k uint64, size int, pl, to uint64) {
	c := s.more[k]
	s.prevC, s.lastTNT = s.lastTNT, uint32(c)
	s.used, s.refills = k+uint64(size), s.refills+1
	s.tipPl, s.tipIP, s.tips = pl, to, 1
}

// tipMove moves the call tree for the return or indirect branch of
// record r to to (frameMove), or reports false with nothing done: a jump
// to another map (Agg.Jump) and an indirect call without room on the
// decoder's stack are not taken either.
func (s *aggInner) tipMove(r *aggRec, to uint64) bool {
	call := r.kind == aggInd && r.isCall != 0
	switch {
	case r.kind == aggInd && !call && to-s.lo >= s.span:
		return false
	case call && len(s.dstack) == cap(s.dstack):
		return false
	}
	kind := r.kind
	if call {
		kind = aggCall
	}
	return s.frameMove(r, kind, to)
}

// tipTaken takes the target to at the return or indirect branch of
// record r, whose move was made (tipMove).
func (s *aggInner) tipTaken(r *aggRec, to uint64) {
	if r.kind == aggInd && r.isCall != 0 {
		s.dstack = append(s.dstack, s.ip+uint64(r.ft))
	} else if r.kind == aggRet {
		// walkInsn pops at every return.
		s.retAddr, s.popped = 0, 1
		if n := len(s.dstack); n > 0 {
			s.retAddr = s.dstack[n-1]
			s.dstack = s.dstack[:n-1]
		}
	}
	s.sstate = 1
	s.walkedRec(r)
	s.noProg = 0
	s.countRec(r)
	s.passedTo(to, s.target(to))
}

// frameMove moves the call tree (s.fr) for record r's block at s.next, a
// call, return (to to) or jump (kind), as mid's movedCall, movedRet and
// movedJmp do where CallTo and Return make no lookup, or reports false
// with nothing done.
func (s *aggInner) frameMove(r *aggRec, kind uint8, to uint64) bool {
	f := &s.fr
	switch f.Mode {
	case framesEdges:
		// After: the node of the record's block, made.
		ri := s.next
		if uint64(ri) >= uint64(len(f.Ctx)) || f.Ctx[ri] == 0 {
			return false
		}
		f.NC = uint64(uint32(f.Ctx[ri]))<<32 | 0xffffffff
		if kind == aggCall && r.callNC != f.NC {
			r.callNC, r.call = f.NC, 0
		}
	case framesStack:
		switch kind {
		case aggCall:
			// CallTo: the node the record's last call entered (the
			// current one for a recursion folded into its own node:
			// the callNC of a call beyond the stack's depth is 0).
			n := len(f.Stack)
			if r.callNC == 0 || n == cap(f.Stack) {
				return false
			}
			f.Stack = append(f.Stack, int32(r.callNC>>32)-1)
			f.NC = r.callNC
			f.Depth = max(f.Depth, int32(n+1))
		case aggRet:
			// Return: to the top frame, seen before.
			n := len(f.Stack)
			if f.Overflow != 0 || n == 0 || *(*uint64)(unsafe.Add(f.Nodes, uintptr(f.Stack[n-1])*nodeSize+nodeRet)) != to {
				return false
			}
			f.Stack = f.Stack[:n-1]
			cur := f.Root
			if n > 1 {
				cur = f.Stack[n-2]
			}
			f.NC = uint64(cur+1)<<32 | uint64(uint32(f.CPU))
		}
	default:
		return kind == aggInd // (a jump in the map moves nothing)
	}
	return true
}

// loopFails says whether walkInsn's loop check fails on an unconditional
// branch to to after s.noProg of them in a row (loopCheck's test).
func (s *aggInner) loopFails(to uint64) bool {
	return s.noProg > 1 && (int64(s.noProg) > s.maxLoops || to == s.stuckIP)
}

// loopStep is loopCheck's step on an unconditional branch to to that
// passed it (loopFails), and counts the branch.
func (s *aggInner) loopStep(to uint64) {
	switch {
	case s.noProg == 0:
	case s.noProg == 1:
		s.stuckIP, s.stuckPrd, s.stuckCnt = to, 1, 1
	default:
		if s.stuckCnt--; s.stuckCnt == 0 {
			s.stuckPrd++
			s.stuckCnt, s.stuckIP = s.stuckPrd, to
		}
	}
	s.noProg++
}

// walkedRec notes that record r's block at s.ip is walked: the pending
// block before it (a conditional branch not taken) went there.
func (s *aggInner) walkedRec(r *aggRec) {
	if s.pending != 0 {
		l := &s.recs[s.last]
		l.insns += uint64(l.cnt)
		s.pending = 0
	}
	s.insns += uint64(r.cnt)
}

// countRec counts record r's block, whose branch went somewhere.
func (s *aggInner) countRec(r *aggRec) {
	r.insns += uint64(r.cnt)
	r.taken += uint64(r.br)
}

// target returns the record that followed record s.next when it went to
// to under the current node (aggState.targetSlot's cache), or 0.
func (s *aggInner) target(to uint64) int32 {
	ri := s.next
	h := (to ^ uint64(ri)*0x9e3779b97f4a7c15 ^ s.fr.NC) * 0xbf58476d1ce4e5b9 >> (64 - aggTargetBits)
	if x := &s.tgt[h]; x.src == ri && x.to == to && x.nc == s.fr.NC {
		return x.ri
	}
	return 0
}

// passedTo counts a branch state passed at the block of record s.next at
// s.ip and moves on to to, whose record is next.
func (s *aggInner) passedTo(to uint64, next int32) {
	s.passed++
	s.sampled |= s.sstate
	s.last, s.lastIP = s.next, s.ip
	s.ip, s.next = to, next
}
