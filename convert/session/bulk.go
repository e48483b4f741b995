package session

import (
	"math"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/session/ptperf"
)

// The edge-graph path of the PT walk (ptperf/bulk.go): a DSO's code cache
// is a graph of basic blocks, built lazily for the code the trace reaches
// and shared by every process that maps the DSO. Each block is a cached
// run (runEntry: from an offset to the first branch, its instruction
// count, the branch and its perf flags); its successors are found from
// the branch (the taken and fall-through offsets of a conditional branch,
// the target of a direct jump or call, the popped return address of a
// compressed return) in one lookup each. WalkBulk follows that graph
// over a whole TNT packet, handing each run to the Runs batch as WalkInsn
// would, and leaves everything else (indirect branches, TIPs, code not
// yet in the graph, map changes, errors) to the step-by-step walk.
//
// It runs only where skipping the decoder's intermediate states is not
// seen: the sequential decode or a parallel chunk's (not a copy that took
// over a parallel decode), no samples that need every branch state and no
// thread stacks (Handler.Runs alone, or errors, ptwrite, transactions,
// psb, cbr and power events, --itrace=ewxp as the timeline asks: those
// come from states the decoder returns anyway; ptperf's walkBulk passes
// no state with a CBR change), no time filter, and a queue whose time the skipped states
// would not change and that would not yield to other records there
// (bulkOK). TestBulkSameRuns checks the runs against the step-by-step
// walk on every recording of testdata; FuzzBulkSameRuns on damaged ones.

// bulkOff turns the edge-graph path off (tests compare with it off);
// aggOff only its counting into Handler.Agg (edge.go).
var bulkOff, aggOff bool

// bulkOK reports whether the decoders may walk in bulk at all (they get a
// BulkWalker only then; the conditions that can change during a decode
// are WalkBulk's).
func (p *ptState) bulkOK() bool { return !bulkOff && !p.everyState }

// bulkWalker is the queueWalker of a decoder that may walk in bulk. It
// keeps the map of its last bulk walk: the next one, nearly always in the
// same map, checks only that the address is in it and that the thread's
// maps have not changed.
type bulkWalker struct {
	queueWalker
	bms      *machine.Maps
	bgen     uint64
	lo, span uint64 // the map's range
	delta    uint64 // DSO offset - address
	bcc      *codeCache
}

// WalkBulk implements ptperf.BulkWalker.
func (w *bulkWalker) WalkBulk(b *ptperf.BulkWalk) {
	q := w.q
	if !q.bulkSeq || q.virt {
		return
	}
	p := q.pt
	flow := q.bulkFlow
	// fr is the batch's last run while it ended in a conditional branch
	// the walk took and the walk has not left it (Handler.FoldRuns);
	// cond says the last run walked ended in a conditional branch (or
	// none was walked yet): only then may the next fold into the batch's
	// last run (foldInto).
	// While fr folds conditional branches in, the queue's pending run is
	// only partly written: q.pend.End is set where the fold ends, and the
	// resolution at a taken branch the walk passes is left to the next
	// block, which folds in and undoes it (held: one was left; at stop,
	// the walk resolves it as it would have).
	var fr *Run
	cond, held := true, false
	t := q.thread
	ip := b.IP
	if t == nil {
		return
	}
	if ip-w.lo >= w.span || w.bms != t.Maps || w.bgen != t.Maps.Gen() {
		if !w.bulkMap(t.Maps, ip) {
			return
		}
	}
	if flow && q.aggOK() {
		w.walkAgg(b) // edge.go: counted into Handler.Agg
		return
	}
	cc, lo, span, delta := w.bcc, w.lo, w.span, w.delta
	// The branch states skipped must leave the queue's time as it is
	// (updateTimestamp) and not make it yield (runDecoder).
	pass := b.Pass && q.timestamp >= b.Timestamp && (p.timeless || q.timestamp < q.bulkLimit)
	b.Pass = pass
	tip := b.TIP
	payload, count, stack, noProg := b.Payload, b.Count, b.Stack, b.NoProgress
	insns := b.Insns
	b0 := insns
	var from uint64
	for {
		if fr != nil && count != 0 && pass && !tip {
			// The conditional branches that follow, folded into fr
			// (fold.go).
			var n uint64
			if ip, payload, count, n, held = w.foldConds(b, fr, ip, payload, count, held); n != 0 {
				insns += n
				noProg = 0
			}
		}
		if count == 0 && !tip {
			// The bits ran out: the next packet, from the decoder.
			b.IP, b.Payload, b.Count, b.Stack, b.NoProgress, b.Insns = ip, payload, count, stack, noProg, insns
			if !b.Next() {
				break
			}
			payload, count, tip = b.Payload, b.Count, b.TIP
		}
		if ip-lo >= span {
			break // another map: the step-by-step walk finds it
		}
		e := cc.run(ip + delta)
		if e == nil {
			break
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
		// The run is walked: the pending one learns where it went, this
		// one goes to the batch (WalkInsn's cache hit).
		if flow {
			if fr != nil && fr.NInsn < 1<<31 {
				// Handler.FoldRuns, foldInto's rule: the last run,
				// which ended in a conditional branch to here,
				// takes this one in and waits for its successor
				// again (nothing else came since in the walk, and
				// this run fits as that one did: the walk moves no
				// time and counts no cycles; fr is dropped where
				// the batch filled up). Its To is 0 and q.hasPend
				// set: no resolution was made since it was.
				fr.End, fr.NInsn, fr.Flags = from, fr.NInsn+uint32(e.cnt), e.flags
				q.rq.pendFT, held = from+uint64(in.Length), false
				if in.Branch != ptperf.BrConditional {
					q.pend.End = from
					fr, cond = nil, false
				}
			} else {
				if fr != nil {
					q.pend.End, held = fr.End, false
				}
				if q.hasPend {
					q.hasPend = false
					q.resolveRun(ip, 0)
				}
				switch {
				case !q.runFits():
					q.emitBlock(ip, from, e.cnt, in, true)
					fr = nil
				case cond && q.rq.fold && q.foldInto(ip, from, e.cnt, e.flags, uint64(in.Length)):
					fr = &q.rq.buf.runs[q.rq.pendIdx&(runBatch-1)]
				default:
					fr = q.appendPend(ip, from, e.cnt, e.flags, uint64(in.Length))
					if q.rq.n >= q.rq.lim {
						fr = nil // the next run starts a batch (runFits)
					}
				}
				// (q.rq.fold is set with the queue's first batch,
				// which may start in the walk.)
				if cond = in.Branch == ptperf.BrConditional; !cond || !q.rq.fold {
					fr = nil
				}
			}
		}
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
				// The TIP's target, from the decoder.
				b.Indirect, b.From, b.In = true, from, in
				b.IP, b.Payload, b.Count, b.Stack, b.NoProgress, b.Insns = from, payload, count, stack, noProg, insns
				more := b.Next()
				if b.PendTo != 0 && flow && q.hasPend {
					// runDecoder's resolution at the state skipped.
					q.hasPend = false
					q.resolveRun(b.PendTo, 0)
				}
				b.PendTo = 0
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
		// A branch that went somewhere: Decode's state.
		if !pass {
			b.Branch, b.From, b.To, b.In = true, from, to, in
			break
		}
		if fr != nil {
			held = true // (to: ip)
		} else if flow && q.hasPend {
			// runDecoder's resolution at the state skipped.
			q.hasPend = false
			q.resolveRun(to, 0)
		}
		b.Insns = insns
		b.Passing()
	}
stop:
	if fr != nil {
		q.pend.End = fr.End
		if held {
			q.hasPend = false
			q.resolveRun(ip, 0)
		}
	}
	b.IP, b.Payload, b.Count, b.Stack, b.NoProgress, b.Insns = ip, payload, count, stack, noProg, insns
	p.bulkInsns.Add(insns - b0)
}

// bulkMap finds the map of ip in ms for WalkBulk, when it is one the bulk
// walk may use: user space, a DSO whose code can be read.
func (w *bulkWalker) bulkMap(ms *machine.Maps, ip uint64) bool {
	w.bms, w.span = nil, 0
	if ip >= w.q.pt.kernelStart {
		return false
	}
	mp := w.findMap(ms, ip)
	if mp == nil || mp.DSO == nil || w.cc == nil || w.cc.failed || mp != w.last || mp.End <= mp.Start {
		return false
	}
	w.bms, w.bgen, w.bcc = ms, ms.Gen(), w.cc
	w.lo, w.span, w.delta = mp.Start, mp.End-mp.Start, mp.MapIP(0)
	return true
}

// walkerFor returns the Walker of q's decoder.
func (p *ptState) walkerFor(q *ptQueue) interface {
	ptperf.Walker
	ptperf.StraightWalker
} {
	if p.bulkOK() {
		return &bulkWalker{queueWalker: queueWalker{q: q}}
	}
	return &queueWalker{q: q}
}

// startBulk notes that runDecoder decodes q in sequence up to limit, and
// whether the edge-graph path applies (WalkBulk's checks that hold for
// the whole call); endBulk that the call ended.
func (q *ptQueue) startBulk(limit uint64) {
	p := q.pt
	q.bulkLimit, q.bulkFlow = limit, p.flow
	q.bulkSeq = !p.everyState && !q.syncSwitch && q.par == nil && q.job == nil && q.own == nil && !q.virt && q.selTimestamp == 0 &&
		(p.h.Runs != nil) == p.flow
	q.straightSeq = q.par == nil && q.job == nil && q.own == nil && !q.virt && q.selTimestamp == 0 && p.straightStatic()
}

// startBulkJob is startBulk for the decoder of a parallel chunk (runJob's
// runSeq, on a worker), which never yields: it works for the handler
// parallel decoding started with, and its pending run is resolved as in
// sequence once it is its own (not q.virt: resolveFrom and resolveBranch
// are resolveRun then).
func (q *ptQueue) startBulkJob() {
	p := q.pt
	q.bulkLimit, q.bulkFlow = math.MaxUint64, p.workFlow
	q.bulkSeq = !bulkOff && !p.everyState && q.job != nil && q.selTimestamp == 0 && (p.workH.Runs != nil) == p.workFlow
	q.straightSeq = q.job != nil && q.selTimestamp == 0 && p.straightJob(q.job)
}

func (q *ptQueue) endBulk() { q.bulkSeq, q.straightSeq = false, false }
