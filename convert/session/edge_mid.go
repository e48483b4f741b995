package session

import (
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session/ptperf"
)

// walkAgg's loop of calls, returns and TIPs (aggWalk.mid).
//
// The inner loop (aggInnerWalk) walks conditional branches and direct
// jumps, and the commonest calls, returns and TIPs: a direct call or a
// compressed return, and the TIP of a return or an indirect call or jump
// read from the trace bytes, where the thread's call tree moves without a
// lookup (ptagg.Frames: a call to the node the record's last call
// entered, a return to the top frame's known address, a record whose
// predecessor node is made). It stops at every other block and packet.
// In code that calls and returns often, that was every few blocks, and
// walkAgg's general loop, which handles any block (looked up in the code
// cache or linked, in any packet state), took most of the time. mid takes
// the commonest of those stops itself, with its state in the aggInner
// the inner loop shares: a direct call, a compressed return, and the TIP
// of an indirect call, jump or return (the decoder reads the packets:
// BulkWalk.Next), for blocks whose records the links know. It does for
// each what the general loop does, step for step, and leaves everything
// else to it.

// innerSkip, when set (in tests: TestAggMidRare), says whether mid skips
// its inner loop this time, leaving the blocks it would have walked to
// mid's own code. (Not a replacement of aggInnerWalk: through a func
// value, the walk's aggInner would escape to the heap.)
var innerSkip func() bool

// mid walks from in's state (tip: in TIP mode, the decoder's packet a TIP)
// while the inner loop or the blocks above take the walk, and returns
// with in's state, the decoder's (b) synchronised with it, whether it is
// in TIP mode, and whether the walk stops (the decoder's Next said so).
// The thread was taken (w.t) and its first block counted (w.tm 0).
func (w *aggWalk) mid(in *aggInner, b *ptperf.BulkWalk, tip bool) (bool, bool) {
	// fr: in.fr is the thread's call tree (Agg.Frames), which nothing
	// but the inner loop moved since (mid's own moves go through the Agg).
	fr := false
	for {
		if !tip {
			a := w.s.a
			if !fr {
				a.Frames(w.t, &in.fr)
				fr = true
			}
			in.dstack = b.Stack
			in.stuckIP, in.stuckPrd, in.stuckCnt = b.StuckIP, int64(b.StuckPrd), int64(b.StuckCnt)
			if innerSkip == nil || !innerSkip() {
				aggInnerWalk(in)
			}
			a.SetFrames(w.t, &in.fr)
			b.Stack = in.dstack
			b.StuckIP, b.StuckPrd, b.StuckCnt = in.stuckIP, int(in.stuckPrd), int(in.stuckCnt)
			if in.popped != 0 {
				b.RetAddr, b.Popped = in.retAddr, true
				in.popped = 0
			}
			if in.tipMode != 0 {
				// The loop read a TIP and stopped before the branch
				// that takes its target: the decoder is in TIP mode
				// (Next's), its packet noted at the next sync.
				in.tipMode = 0
				b.TIP, tip = true, true
			}
		}
		ri := in.next
		if ri == 0 {
			break
		}
		r := &in.recs[ri]
		if r.epoch != in.ep {
			break
		}
		if !tip && in.tnt == 1<<63 {
			// The bits ran out and no TNT-8 follows: a TIP for an
			// indirect branch here is read and taken here, as the
			// decoder's Next would (twice: the TIP, then its target)
			// and the general loop between; any other packet comes
			// from the decoder.
			if (r.kind == aggRet || r.kind == aggInd) && in.tipOK != 0 && w.takeTIP(in, b, r, ri) {
				fr = false
				continue
			}
			w.sync(in, b)
			b.IP, b.Payload, b.Count, b.NoProgress, b.Insns = in.ip, 0, 0, int(in.noProg), in.insns
			if !b.Next() {
				in.sstate = boolU32(b.SampleState())
				return false, true
			}
			w.afterNext(in, b)
			if b.Time > w.q.timestamp {
				// MTCs moved the time: walkAgg's loop takes it.
				b.Timing = false
				return b.TIP, false
			}
			if !b.TIP {
				continue
			}
			tip = true
		}
		switch {
		case r.kind == aggCall || r.kind == aggJump:
			// A direct call or jump, in either mode.
			ft := in.ip + uint64(r.ft)
			to := ft + uint64(int64(r.rel))
			if in.noProg != 0 && !loopCheck(b, int(in.noProg), to) {
				return tip, false // (where the general loop stops)
			}
			in.walkedRec(r)
			in.noProg++
			if r.kind == aggJump && to-w.lo < w.span {
				// Counted as the general loop does (no move).
				r.count()
				in.passed++
				in.sampled |= in.sstate
				in.last, in.lastIP, in.pending = ri, in.ip, 0
				in.ip, in.next = to, r.next[0]
				break
			}
			if r.kind == aggCall && r.rel != 0 {
				b.Stack = append(b.Stack, ft)
			}
			w.passed(in, r, ri, to)
			fr = false
		case tip:
			// An indirect branch takes the TIP's target.
			if r.kind != aggRet && r.kind != aggInd {
				return true, false
			}
			e := r.e
			in.walkedRec(r)
			in.noProg = 0
			from := in.ip + e.bytes
			if e.in.Op == ptperf.OpCall {
				b.Stack = append(b.Stack, from+uint64(e.in.Length))
			} else if e.in.Op == ptperf.OpRet {
				// walkInsn pops at every return.
				b.RetAddr, b.Popped = 0, true
				if n := len(b.Stack); n > 0 {
					b.RetAddr = b.Stack[n-1]
					b.Stack = b.Stack[:n-1]
				}
			}
			w.sync(in, b)
			b.Indirect, b.From, b.In = true, from, &e.in
			b.IP, b.Payload, b.Count, b.NoProgress, b.Insns = from, 0, 0, 0, in.insns
			more := b.Next()
			in.last, in.lastIP = ri, in.ip
			if b.PendTo != 0 {
				// runDecoder's resolution at the state skipped.
				in.next = w.moved(ri, in.ip, b.PendTo)
				fr = false
				in.pending = 0
			} else {
				in.next, in.pending = 0, 1
			}
			b.PendTo = 0
			in.ip, tip = b.IP, b.TIP
			if !more {
				in.tnt = b.Payload | 1<<(63-uint(b.Count))
				in.sstate = boolU32(b.SampleState())
				return tip, true
			}
			w.afterNext(in, b)
			if b.Time > w.q.timestamp {
				b.Timing = false
				return tip, false
			}
		case r.kind == aggRet:
			// A compressed return: the bit taken, the return address
			// popped.
			n := len(b.Stack)
			if int64(in.tnt) >= 0 || !b.RetComp || n == 0 || b.Stack[n-1] == 0 {
				return false, false
			}
			to := b.Stack[n-1]
			in.walkedRec(r)
			in.noProg = 0
			b.RetAddr, b.Popped = to, true
			b.Stack = b.Stack[:n-1]
			in.tnt <<= 1
			in.tookBit, in.sstate = 1, 1
			w.passed(in, r, ri, to)
			fr = false
		default:
			return false, false
		}
	}
	return tip, false
}

// passed counts the block of record ri (r) at in.ip, whose branch went to
// to (a state skipped), and moves on there.
func (w *aggWalk) passed(in *aggInner, r *aggRec, ri int32, to uint64) {
	var next int32
	switch op := r.e.in.Op; {
	case op == ptperf.OpRet:
		next = w.movedRet(r, ri, in.ip, to)
	case op == ptperf.OpCall:
		next = w.movedCall(r, ri, in.ip, to)
	case r.kind == aggInd && to-w.lo < w.span:
		next = w.movedJmp(r, ri, to)
	default:
		next = w.moved(ri, in.ip, to)
	}
	in.passed++
	in.sampled |= in.sstate
	in.last, in.lastIP, in.pending = ri, in.ip, 0
	in.ip, in.next = to, next
}

// takeTIP reads the TIP packet after the bits that ran out, if more holds
// one (after PADs), and takes its target at the indirect branch of record
// ri (r) at in.ip: the general loop's walk in TIP mode and the decoder's
// two Nexts, which read the TIP and take its target (which passes:
// in.tipOK). It reports false, having changed nothing, where more holds
// no such TIP.
func (w *aggWalk) takeTIP(in *aggInner, b *ptperf.BulkWalk, r *aggRec, ri int32) bool {
	k := in.used
	for k < uint64(len(in.more)) && in.more[k] == 0 {
		k++ // PADs
	}
	if k >= uint64(len(in.more)) {
		return false
	}
	to, pl, size, ok := ptperf.TIPTarget(in.more[k:], in.tipIP)
	if !ok {
		return false
	}
	c := in.more[k]
	if in.refills != 0 {
		in.prevC = in.lastTNT
	}
	in.used, in.refills, in.lastTNT = k+uint64(size), in.refills+1, uint32(c)
	in.tipPl, in.tipIP, in.tips = pl, to, 1
	e := r.e
	in.walkedRec(r)
	in.noProg = 0
	if e.in.Op == ptperf.OpCall {
		b.Stack = append(b.Stack, in.ip+uint64(r.ft))
	} else if e.in.Op == ptperf.OpRet {
		// walkInsn pops at every return.
		b.RetAddr, b.Popped = 0, true
		if n := len(b.Stack); n > 0 {
			b.RetAddr = b.Stack[n-1]
			b.Stack = b.Stack[:n-1]
		}
	}
	// The packet read (the sample time taken: Next at the end of the
	// bits), the target taken (stInSync, a state passed).
	in.sstate = 1
	w.passed(in, r, ri, to)
	return true
}

// afterNext takes the decoder's state after its Next read a packet (not
// a TIP's target at the end of the walk).
func (w *aggWalk) afterNext(in *aggInner, b *ptperf.BulkWalk) {
	in.tnt = b.Payload | 1<<(63-uint(b.Count))
	in.sstate = boolU32(b.SampleState())
	in.more, in.used = b.More(), 0
	in.tipIP, _ = b.LastIP()
}

// sync hands what the inner loop did since the last sync to the decoder:
// the TNT-8 and TIP packets it read, the branch states it passed, the
// sample time.
func (w *aggWalk) sync(in *aggInner, b *ptperf.BulkWalk) {
	if in.refills != 0 {
		b.Packets(int(in.used), int(in.refills), byte(in.lastTNT), byte(in.prevC), in.tipPl, in.tips != 0, in.tipIP)
		in.tips = 0
	}
	if in.notTaken != 0 {
		b.NotTaken = true
	}
	b.Walked(int(in.passed), in.sampled != 0, in.sstate != 0)
	in.used, in.refills, in.passed, in.sampled, in.notTaken = 0, 0, 0, 0, 0
	in.more = nil // (the decoder reads on from there: afterNext)
}

func boolU32(x bool) uint32 {
	if x {
		return 1
	}
	return 0
}

// count counts record r's block, whose branch (not a conditional one)
// went somewhere: its instructions and, as a branch, a taken one.
func (r *aggRec) count() {
	r.insns += uint64(r.cnt)
	if uint32(r.e.flags)&sample.FlagBranch != 0 {
		r.taken++
	}
}

// loopCheck is walkInsn's loop check on an unconditional branch to to
// after noProg (> 0) of them in a row, with its state in b: false where
// the step-by-step walk fails (the check changes nothing then).
func loopCheck(b *ptperf.BulkWalk, noProg int, to uint64) bool {
	switch {
	case noProg == 1:
		b.StuckIP, b.StuckPrd, b.StuckCnt = to, 1, 1
	case noProg > b.MaxLoops || to == b.StuckIP:
		return false
	default:
		if b.StuckCnt--; b.StuckCnt == 0 {
			b.StuckPrd++
			b.StuckCnt, b.StuckIP = b.StuckPrd, to
		}
	}
	return true
}

// movedCall is moved for a call (mid's: the thread taken, its first
// block counted) of record ri (r) at ip to to.
func (w *aggWalk) movedCall(r *aggRec, ri int32, ip, to uint64) int32 {
	s := w.s
	e := r.e
	r.count()
	a := s.a
	a.After(w.t, ri)
	a.CallTo(w.t, ip+e.bytes, r.callNC)
	nc := callNC(w.t)
	if r.callNC != nc {
		r.callNC, r.call = nc, 0
	}
	if e.in.Branch != ptperf.BrIndirect {
		return r.call
	}
	return w.cachedTarget(ri, to)
}

// movedRet is moved for a return (mid's) of record ri (r) at ip to to.
func (w *aggWalk) movedRet(r *aggRec, ri int32, ip, to uint64) int32 {
	s := w.s
	e := r.e
	r.count()
	a := s.a
	a.After(w.t, ri)
	a.Return(w.t, ip+e.bytes, to)
	return w.cachedTarget(ri, to)
}

// movedJmp is moved for an indirect jump (mid's) of record ri (r) to to
// in the walk's map.
func (w *aggWalk) movedJmp(r *aggRec, ri int32, to uint64) int32 {
	s := w.s
	r.count()
	s.a.After(w.t, ri)
	return w.cachedTarget(ri, to)
}
