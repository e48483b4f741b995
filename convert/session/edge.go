package session

import (
	"math/bits"
	"unsafe"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/ptagg"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session/ptperf"
)

// Counting edges inside the decoder (Handler.Agg).
//
// With an aggregation to fill, the edge-graph walk (bulk.go) does not make
// a Run of every block it walks: it counts the block into the Agg's record
// of the block under the thread's call-tree node and CPU, moves the
// thread's call stack at calls and returns, and follows the graph from
// record to record. Each record it met keeps its block (the code cache's
// run) and links to the records that followed it: the fall-through and
// the taken successor of a conditional branch, the target of a direct
// jump, the callee of a call (under the node the call entered); the
// targets of returns and indirect branches are in a cache keyed by the
// record and the target. A step is one lookup, whatever the call stack.
//
// The walk does for the Agg exactly what Runs would do for the same runs:
// a block is counted where its Run would have been resolved in the batch
// (when its successor is walked, or at a branch state the walk passes),
// after the batch's runs before it were handed to Runs (the first block
// counted hands them over), and a block whose Run would still wait for its
// successor when the walk stops is made a Run, as the walk without an Agg
// does. Counted blocks have no mark and no trace stop, and their time is
// the queue's: the first one takes the time step a Run would
// (ptagg.Agg.Step); a successor in another mapping is a jump there
// (ptagg.Agg.Jump: a longjmp). The counts are added to the Agg's records
// when the session's Run ends.

// aggRec is what the walk knows of the Agg's record of the same number:
// 64 bytes.
type aggRec struct {
	e     *runEntry // the block
	epoch uint32    // the maps epoch e is valid in (aggState.epoch)
	// call is the record of the callee's first block after a call that
	// entered the node and CPU callNC (the last call from here:
	// ptagg.Agg.CallTo).
	call   int32
	callNC uint64
	// insns and taken are the counts to add to the record.
	insns, taken uint64
	// next are the records that followed in the same frame: the
	// fall-through [0] and the taken target [1] of a conditional branch,
	// the target of a direct jump [0].
	next [2]int32
	// The block, for walkAgg's inner loop: the offset of its
	// fall-through from its start, its instruction count, the
	// displacement of its branch, and its kind (aggCond, ...); br (1)
	// says the branch counts as taken when it goes somewhere
	// (sample.FlagBranch), isCall (1) that an indirect branch is a call.
	ft, cnt uint32
	rel     int32
	kind    uint8
	br      uint8
	isCall  uint8
	_       [1]byte
}

// midOK says whether walkAgg's loop of calls, returns and TIPs (mid) may
// start at record r (valid in epoch ep).
func (r *aggRec) midOK(ep uint32) bool {
	return r.epoch == ep && r.kind != aggOther
}

// Kinds of blocks for walkAgg's inner loop (aggCond, aggJump) and its
// loop of calls, returns and TIPs (aggWalk.mid: the others).
const (
	aggOther = iota // left to the general loop
	aggCond         // a conditional branch
	aggJump         // a direct jump
	aggRet          // a return
	aggCall         // a direct call
	aggInd          // an indirect call or jump
)

// setBlock sets r's block to e.
func (r *aggRec) setBlock(e *runEntry, epoch uint32) {
	r.e, r.epoch = e, epoch
	ft := e.bytes + uint64(e.in.Length)
	r.ft, r.cnt, r.rel, r.kind = uint32(ft), uint32(e.cnt), e.in.Rel, aggOther
	r.br, r.isCall = uint8(boolU32(uint32(e.flags)&sample.FlagBranch != 0)), uint8(boolU32(e.in.Op == ptperf.OpCall))
	if ft != uint64(r.ft) || e.cnt != uint64(r.cnt) {
		return // (not a block for the inner loop)
	}
	switch {
	case e.in.Branch == ptperf.BrConditional:
		r.kind = aggCond
	case e.in.Branch == ptperf.BrUnconditional && e.in.Op == ptperf.OpJmp:
		r.kind = aggJump
	case e.in.Branch == ptperf.BrUnconditional && e.in.Op == ptperf.OpCall:
		r.kind = aggCall
	case e.in.Branch == ptperf.BrIndirect && e.in.Op == ptperf.OpRet:
		r.kind = aggRet
	case e.in.Branch == ptperf.BrIndirect && (e.in.Op == ptperf.OpCall || e.in.Op == ptperf.OpJmp):
		r.kind = aggInd
	}
}

// aggTarget is an entry of the cache of the targets of returns and
// indirect branches: the record ri followed record src when it went to
// to under node and CPU nc.
type aggTarget struct {
	src, ri int32
	to, nc  uint64
}

const aggTargetBits = 12

// aggState is the walk's part of Handler.Agg.
type aggState struct {
	a    *ptagg.Agg
	recs []aggRec // by Agg record number
	tgt  []aggTarget
	// epoch numbers the (maps, generation) pairs the walk has walked in:
	// a record's block is valid while its thread's maps are unchanged.
	epoch  uint32
	epMaps *machine.Maps
	epGen  uint64
	// walked counts the instructions walkAgg walked (for the tests).
	walked uint64
}

// setEpoch sets the epoch of the maps ms at generation gen.
func (s *aggState) setEpoch(ms *machine.Maps, gen uint64) {
	if ms != s.epMaps || gen != s.epGen {
		// (A thread whose walk alternates with another's, in another
		// address space, gets a new epoch each time: its records'
		// blocks are found again. Records are per thread, so that
		// stays correct.)
		s.epoch++
		s.epMaps, s.epGen = ms, gen
	}
}

// grow makes the table hold record ri.
func (s *aggState) grow(ri int32) {
	if int(ri) >= len(s.recs) {
		n := max(2*len(s.recs), int(ri)+1, 1024)
		s.recs = append(s.recs, make([]aggRec, n-len(s.recs))...)
	}
}

// flush adds the walk's counts to the Agg's records.
func (s *aggState) flush() {
	for i := range s.recs {
		r := &s.recs[i]
		if r.insns|r.taken != 0 {
			s.a.Add(int32(i), r.insns, r.taken)
			r.insns, r.taken = 0, 0
		}
	}
}

// targetSlot returns the cache slot of the target to of record src under
// the node and CPU nc (a return record's target may follow under several:
// they get slots of their own).
func (s *aggState) targetSlot(src int32, to, nc uint64) *aggTarget {
	h := (to ^ uint64(src)*0x9e3779b97f4a7c15 ^ nc) * 0xbf58476d1ce4e5b9 >> (64 - aggTargetBits)
	return &s.targets()[h]
}

// targets returns the cache of the targets of returns and indirect
// branches (aggTarget), made if need be.
func (s *aggState) targets() []aggTarget {
	if s.tgt == nil {
		s.tgt = make([]aggTarget, 1<<aggTargetBits)
	}
	return s.tgt
}

// aggOK says whether walkAgg may walk q now: a sequential decode
// delivering runs to an Agg that takes this thread's runs as they come.
func (q *ptQueue) aggOK() bool {
	p := q.pt
	s := q.aggs()
	return s != nil && q.bulkFlow && (q.job == nil && !p.h.RunStarts && !p.h.LeanRuns || q.job != nil) &&
		!q.dec.CyclesPending() && s.a.Takes(q.pid, q.tid)
}

// aggs returns the aggregation q's walk counts into: the Handler's, or
// for a chunk decoded ahead the chunk's (nil: none, the chunk makes runs).
func (q *ptQueue) aggs() *aggState {
	if j := q.job; j != nil {
		return j.aggs
	}
	return q.pt.agg
}

// aggWalk is the state of one walkAgg that its slow paths share.
type aggWalk struct {
	s  *aggState
	q  *ptQueue
	t  *ptagg.Thread // nil until the first block is counted
	tm uint64        // the queue's perf time, until the first block takes it
	// lo and span are the walk's map: a jump out of it is a jump to
	// another mapping (Agg.Jump).
	lo, span uint64
}

// timeMoved notes, after the decoder's Next, whether the MTCs it read
// moved its time (b.Time): the walk takes no more of them until a state
// skipped takes the new time (newTime), and none of its inner loops
// skips such a state.
func (w *aggWalk) timeMoved(b *ptperf.BulkWalk) {
	if b.Time > w.q.timestamp {
		b.Timing = false
	}
}

// timeOK says whether the state of the branch at from, which takes the
// decoder's new time, may be skipped: runDecoder's updateTimestamp takes
// that time (not the estimate it takes from the kernel to user space)
// and does not make the queue yield with it.
func (w *aggWalk) timeOK(b *ptperf.BulkWalk, from uint64) bool {
	p := w.q.pt
	return w.t != nil && w.tm == 0 && from != 0 && from < p.kernelStart && (p.timeless || b.Time < w.q.bulkLimit)
}

// newTime is runDecoder's updateTimestamp at the state skipped that took
// the decoder's new time (timeOK), counted: the next block walked takes
// the queue's perf time, as the first of a walk does (moved).
func (w *aggWalk) newTime(b *ptperf.BulkWalk) {
	q := w.q
	q.setTimestamp(b.Time)
	w.tm = q.pt.perfTime(q.timestamp)
	b.Timing = true
}

// start hands the queue's batch over to the Agg and takes the thread, as
// the first block of the walk is counted (ptagg.Agg.Walking).
func (w *aggWalk) start() {
	q := w.q
	if q.rq.n > 0 {
		q.newRunBatch() // to Agg.Runs: no run is pending
	}
	w.t = w.s.a.Walking(q.pid, q.tid, q.cpu)
}

// moved counts the block of record ri that started at ip and went to to,
// where its branch moves the call stack (a call, a return, an indirect
// branch, a jump out of the map), or where its record is the walk's
// first: what Agg.Runs does for its resolved Run. It returns the record
// that follows when the links know it (else 0).
func (w *aggWalk) moved(ri int32, ip, to uint64) int32 {
	s := w.s
	a := s.a
	r := &s.recs[ri]
	e := r.e
	end := ip + e.bytes
	f := uint32(e.flags)
	var taken uint64
	if f&sample.FlagBranch != 0 && (to != end+uint64(e.in.Length) || f&sample.FlagConditional == 0) {
		taken = 1
	}
	r.insns += e.cnt
	r.taken += taken
	a.After(w.t, ri) // (counting edges: the next block follows ri)
	if w.tm != 0 {
		a.Step(w.t, ri, w.tm)
		w.tm = 0
	}
	switch {
	case f&sample.FlagCall != 0:
		a.CallTo(w.t, end, r.callNC)
		if nc := callNC(w.t); r.callNC != nc {
			r.callNC, r.call = nc, 0
		}
		if e.in.Branch == ptperf.BrIndirect {
			break // (the callee depends on the target: the cache below)
		}
		return r.call
	case f&sample.FlagReturn != 0:
		a.Return(w.t, end, to)
	default:
		if f&sample.FlagConditional == 0 && to-w.lo >= w.span {
			a.Jump(w.t, end, to)
		}
		if e.in.Branch != ptperf.BrIndirect {
			slot := 0
			if to != end+uint64(e.in.Length) && e.in.Branch == ptperf.BrConditional {
				slot = 1
			}
			return r.next[slot]
		}
	}
	return w.cachedTarget(ri, to)
}

// cachedTarget returns the record that followed record ri's branch to to
// under the thread's current node, from the cache (targetSlot), or 0.
func (w *aggWalk) cachedTarget(ri int32, to uint64) int32 {
	nc := w.t.NC()
	if x := w.s.targetSlot(ri, to, nc); x.src == ri && x.to == to && x.nc == nc {
		return x.ri
	}
	return 0
}

// lookup returns the record of the block e at ip under the thread's
// current node and CPU, and learns it as the successor of record from
// (0: none), whose block started at fromIP and went there.
func (w *aggWalk) lookup(from int32, fromIP, ip uint64, e *runEntry) int32 {
	s := w.s
	ri := s.a.RecordAfter(w.t, from, ip, ip+e.bytes, uint32(e.cnt))
	s.grow(ri)
	r := &s.recs[ri]
	r.setBlock(e, s.epoch)
	if from == 0 {
		return ri
	}
	fr := &s.recs[from]
	fe := fr.e
	end := fromIP + fe.bytes
	f := uint32(fe.flags)
	switch {
	case f&sample.FlagCall != 0 && fe.in.Branch != ptperf.BrIndirect:
		fr.call = ri // (callNC was set by moved)
	case f&sample.FlagReturn != 0 || fe.in.Branch == ptperf.BrIndirect:
		nc := w.t.NC()
		*s.targetSlot(from, ip, nc) = aggTarget{src: from, ri: ri, to: ip, nc: nc}
	default:
		slot := 0
		if ip != end+uint64(fe.in.Length) && fe.in.Branch == ptperf.BrConditional {
			slot = 1
		}
		fr.next[slot] = ri
	}
	return ri
}

// callNC is the NC thread t entered with a call (a record's callNC), or
// 0 where the call pushed nothing (beyond the stack's depth): a callNC
// equal to the caller's is a recursion folded into its own node, which
// the inner loop pushes again (frameMove).
func callNC(t *ptagg.Thread) uint64 {
	if t.Overflowed() {
		return 0
	}
	return t.NC()
}

// walkAgg is WalkBulk for Handler.Agg: the same walk, the same decoder
// states and the same stops, with the blocks counted into the Agg rather
// than made Runs of (the file comment says how).
func (w *bulkWalker) walkAgg(b *ptperf.BulkWalk) {
	q := w.q
	p := q.pt
	s := q.aggs()
	s.setEpoch(w.bms, w.bgen)
	aw := aggWalk{s: s, q: q, tm: p.perfTime(q.timestamp), lo: w.lo, span: w.span}
	ip := b.IP
	cc, lo, span, delta := w.bcc, w.lo, w.span, w.delta
	// The branch states skipped must leave the queue's time as it is
	// (updateTimestamp) and not make it yield (runDecoder).
	pass := b.Pass && q.timestamp >= b.Timestamp && (p.timeless || q.timestamp < q.bulkLimit)
	b.Pass = pass
	// The decoder may read MTCs on the way (b.Timing): in sequence, where
	// the walk takes the new time as runDecoder would (aggWalk.newTime).
	b.Timing = pass && q.job == nil
	tip := b.TIP
	payload, count, stack, noProg := b.Payload, b.Count, b.Stack, b.NoProgress
	insns := b.Insns
	b0 := insns
	ep := s.epoch
	recs := s.recs
	// pend is the record of the walked block whose successor is not
	// resolved yet (0: none), pendIP its start; next the record of the
	// block at ip, when the links knew it (0: look it up), and prev the
	// record whose block went to ip (0: none known).
	var pend, next, prev int32
	var pendIP, prevIP, from uint64
	var in aggInner
	for {
		if pass && !tip && aw.tm == 0 && b.Time <= q.timestamp && aw.t != nil && next != 0 && recs[next].midOK(ep) {
			// The inner loop (edge_inner.go): conditional branches and
			// direct jumps whose successors the links know, and the
			// TNT-8 packets that follow; and around it mid's calls,
			// returns and TIPs (edge_mid.go). (in is set field by
			// field: a composite literal is built aside and copied.)
			in.recs, in.ep, in.ip, in.next = recs, ep, ip, next
			in.tnt, in.insns, in.noProg = payload|1<<(63-uint(count)), insns, uint32(noProg)
			in.last, in.lastIP, in.pending = prev, prevIP, 0
			if pend != 0 {
				in.last, in.lastIP, in.pending = pend, pendIP, 1
			}
			in.more = b.More()
			in.sstate = 0
			if b.SampleState() {
				in.sstate = 1
			}
			in.used, in.refills, in.passed = 0, 0, 0
			in.lastTNT, in.sampled, in.tookBit, in.notTaken = 0, 0, 0, 0
			tipIP, tipOK := b.LastIP()
			in.tipIP, in.tipOK, in.tips, in.tipMode = tipIP, boolU32(tipOK), 0, 0
			in.tgt, in.lo, in.span, in.retComp, in.popped = s.targets(), lo, span, boolU32(b.RetComp), 0
			in.maxLoops = int64(b.MaxLoops)
			b.Stack = stack
			var stop bool
			tip, stop = aw.mid(&in, b, false)
			aw.sync(&in, b)
			stack = b.Stack
			ip, next, insns, noProg = in.ip, in.next, in.insns, int(in.noProg)
			count = 63 - bits.TrailingZeros64(in.tnt)
			payload = in.tnt &^ (1 << (63 - uint(count)))
			if in.pending != 0 {
				pend, pendIP = in.last, in.lastIP
			} else {
				pend, prev, prevIP = 0, in.last, in.lastIP
			}
			if stop {
				goto stop
			}
		}
		if count == 0 && !tip {
			// The bits ran out: the next packet, from the decoder.
			b.IP, b.Payload, b.Count, b.Stack, b.NoProgress, b.Insns = ip, payload, count, stack, noProg, insns
			if !b.Next() {
				break
			}
			aw.timeMoved(b)
			payload, count, tip = b.Payload, b.Count, b.TIP
		}
		if ip-lo >= span {
			break // another map: the step-by-step walk finds it
		}
		// The block at ip: from the link that led here, else from the
		// code cache (its record is found once it is walked).
		var e *runEntry
		ri := next
		if ri != 0 {
			if r := &recs[ri]; r.epoch == ep {
				e = r.e
			} else {
				ri = 0
			}
		}
		if ri == 0 {
			if e = cc.run(ip + delta); e == nil {
				break
			}
		}
		in := &e.in
		var to uint64
		taken := true
		from = ip + e.bytes
		switch in.Branch {
		case ptperf.BrConditional:
			if tip {
				goto stop // walkTIP's error
			}
			to = from + uint64(in.Length)
			if payload>>63 != 0 {
				to += uint64(int64(in.Rel))
			} else {
				taken = false
			}
		case ptperf.BrUnconditional:
			to = from + uint64(in.Length) + uint64(int64(in.Rel))
			// walkInsn's loop check on unconditional branches in a
			// row; where it fails, the step-by-step walk fails.
			if noProg != 0 && !loopCheck(b, noProg, to) {
				goto stop
			}
		case ptperf.BrIndirect:
			switch {
			case tip:
				if in.Op != ptperf.OpRet && in.Op != ptperf.OpJmp && in.Op != ptperf.OpCall {
					goto stop
				}
			case in.Op != ptperf.OpRet || !b.RetComp || payload>>63 == 0 || len(stack) == 0 || stack[len(stack)-1] == 0:
				goto stop
			default:
				to = stack[len(stack)-1]
			}
		default:
			goto stop
		}
		// The block is walked: the pending one (a conditional branch
		// not taken) went to ip, then this one waits for its own.
		if pend != 0 {
			if aw.tm != 0 {
				aw.moved(pend, pendIP, ip) // (next is known)
			} else {
				pr := &recs[pend]
				pr.insns += pr.e.cnt
			}
			prev, prevIP, pend = pend, pendIP, 0
		} else if aw.t == nil {
			if q.hasPend {
				q.hasPend = false
				q.resolveRun(ip, 0)
			}
			aw.start()
			if aw.t == nil {
				goto stop // (not reached: aggOK checked the filters)
			}
		}
		if ri == 0 {
			ri = aw.lookup(prev, prevIP, ip, e)
			recs = s.recs
		}
		pend, pendIP = ri, ip
		insns += e.cnt
		switch in.Branch {
		case ptperf.BrConditional:
			noProg = 0
			ip = to
			payload <<= 1
			count--
			b.TookBit()
			if !taken {
				b.NotTaken = true
				next = recs[ri].next[0]
				continue
			}
		case ptperf.BrUnconditional:
			noProg++
			ip = to
			if in.Op == ptperf.OpCall && in.Rel != 0 {
				stack = append(stack, from+uint64(in.Length))
			}
		default:
			noProg = 0
			if in.Op == ptperf.OpCall {
				stack = append(stack, from+uint64(in.Length))
			} else if in.Op == ptperf.OpRet {
				// walkInsn pops at every return.
				b.RetAddr, b.Popped = 0, true
				if n := len(stack); n > 0 {
					b.RetAddr = stack[n-1]
					stack = stack[:n-1]
				}
			}
			if tip {
				// The TIP's target, from the decoder: a state that
				// takes the sample time.
				newTime := b.Time > q.timestamp
				if newTime && !aw.timeOK(b, from) {
					b.Pass = false
				}
				b.Indirect, b.From, b.In = true, from, in
				b.IP, b.Payload, b.Count, b.Stack, b.NoProgress, b.Insns = from, payload, count, stack, noProg, insns
				more := b.Next()
				if b.PendTo != 0 {
					// runDecoder's resolution at the state skipped.
					next = aw.moved(pend, pendIP, b.PendTo)
					prev, prevIP, pend = pend, pendIP, 0
					if newTime {
						aw.newTime(b)
					}
				}
				b.PendTo = 0
				if more {
					aw.timeMoved(b)
				}
				ip, payload, count, tip = b.IP, b.Payload, b.Count, b.TIP
				if !more {
					goto stop
				}
				continue
			}
			// A compressed return.
			ip = to
			payload <<= 1
			count--
			b.TookBit()
		}
		// A branch that went somewhere: Decode's state, with the
		// decoder's new time if it takes the sample time.
		newTime := b.Time > q.timestamp && (b.SampleState() || b.Sampled())
		if !pass || newTime && !aw.timeOK(b, from) {
			b.Branch, b.From, b.To, b.In = true, from, to, in
			break
		}
		// runDecoder's resolution at the state skipped: the block is
		// counted (moved for calls, returns and jumps out of the map).
		if f := uint32(e.flags); f&(sample.FlagCall|sample.FlagReturn) == 0 && to-lo < span && in.Branch != ptperf.BrIndirect && aw.tm == 0 {
			r := &recs[pend]
			r.insns += e.cnt
			switch {
			case in.Branch != ptperf.BrConditional:
				if f&sample.FlagBranch != 0 {
					r.taken++
				}
				next = r.next[0]
			case to != from+uint64(in.Length):
				r.taken++
				next = r.next[1]
			default:
				next = r.next[0]
			}
		} else {
			next = aw.moved(pend, pendIP, to)
		}
		prev, prevIP, pend = pend, pendIP, 0
		b.Insns = insns
		b.Passing()
		if newTime {
			aw.newTime(b)
		}
	}
stop:
	if pend != 0 {
		// The block still waits for its successor: a Run, as the walk
		// without an Agg makes.
		e := recs[pend].e
		if q.runFits() {
			if !q.rq.fold || !q.foldInto(pendIP, pendIP+e.bytes, e.cnt, e.flags, uint64(e.in.Length)) {
				q.appendRun(pendIP, pendIP+e.bytes, e.cnt, e.flags, uint64(e.in.Length), true)
			}
		} else {
			q.emitBlock(pendIP, pendIP+e.bytes, e.cnt, &e.in, true)
		}
	}
	if aw.t != nil {
		s.a.WalkedAt(aw.t, prev, pend)
	}
	b.IP, b.Payload, b.Count, b.Stack, b.NoProgress, b.Insns = ip, payload, count, stack, noProg, insns
	p.bulkInsns.Add(insns - b0)
	s.walked += insns - b0
}

var _ [64 - unsafe.Sizeof(aggRec{})]byte // 64 bytes: indexed by a shift
