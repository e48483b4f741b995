package session

import (
	"github.com/perfpt/perfpt/convert/ptagg"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session/ptperf"
)

// Run, RunTaken, RunMark and RunBatch are convert/ptagg's: the runs of
// Handler.Runs, which ptagg aggregates for pprof.
type (
	Run      = ptagg.Run
	RunMark  = ptagg.RunMark
	RunBatch = ptagg.RunBatch
)

// RunTaken is ptagg.RunTaken.
const RunTaken = ptagg.RunTaken

// runQueue is a queue's batch for Handler.Runs: runs and marks are
// written into fixed arrays (no slice growth, no bounds checks), the
// RunBatch's slices set when it is handed over.
type runQueue struct {
	b       RunBatch
	buf     *runBuf
	n, nm   int    // runs and marks in buf
	ts      uint64 // the queue timestamp of the last run's time
	pendIdx int    // the unresolved last run (q.hasPend)
	pendFT  uint64 // its fall-through address (taken or not)
	dirty   bool   // in ptState.runQs
	// lim is runBatch while the batch is for the queue's thread and
	// its last run has the queue's time, else 0 (where the thread may
	// change, setPidTidCPU, and where the time does, setTimestamp): runs
	// go straight in while n < lim, else through emitRun's checks.
	lim  int
	lean bool // Handler.LeanRuns
	fold bool // Handler.FoldRuns
	// noFold is n where the batch's last run may take no run in
	// (foldInto): a pending run carried into a new batch, or kept by
	// flushRuns (a callback came after it).
	noFold int
	// begun: the trace started since the last run, whose first run gets
	// FlagTraceBegin (Handler.RunStarts). stopSeen: a chunk decoded
	// ahead saw the trace stop (or an error), and no start since.
	begun, stopSeen bool
	// folded counts the instructions the edge-graph walk folded in its
	// loop of conditional branches (foldConds; for the tests).
	folded uint64
}

// runBatch is the most runs handed to Handler.Runs at once (a power of
// 2). Larger than blockBatch: the timeline's handler has a cost per batch
// (its look-ahead for the next timing point stops at the batch's end, and
// the runs after its last mark wait in its queue), and a batch's first run
// takes no fold (foldInto); 1024 took 0.8% off the instructions of a
// timeline of g18.4 (200 M instructions; callgrind) against 256.
const runBatch = 1024

type runBuf struct {
	runs  [runBatch]Run
	marks [runBatch]RunMark
}

// emitRun appends one run to q's batch (emitBlock for Handler.Runs): its
// first and last instruction, their count, the branch flags and length of
// the last one, and whether it waits for its successor (pend; else it
// continues in the next mapping). ts is the queue's timestamp and cyc the
// cycles counted up to the run (ignored with LeanRuns). A pending run
// stays in the batch and is resolved in place (resolveRun).
func (q *ptQueue) emitRun(ts, cyc, start, last, n uint64, flags uint16, length uint64, pend bool) {
	p := q.pt
	rq := &q.rq
	if rq.n >= rq.lim {
		b := &rq.b
		if rq.n == runBatch || rq.n == 0 || b.TID != q.tid || b.PID != q.pid || b.CPU != q.cpu {
			q.newRunBatch()
		}
		rq.lim = runBatch
	}
	if rq.lean {
		q.appendRun(start, last, n, flags, length, pend)
		return
	}
	mark := ts != rq.ts && !p.timeless || cyc != 0
	if pend && rq.fold && !mark && !rq.begun && q.foldInto(start, last, n, flags, length) {
		return
	}
	r := q.appendRun(start, last, n, flags, length, pend)
	if rq.begun {
		rq.begun = false
		r.Flags |= sample.FlagTraceBegin
	}
	if mark {
		rq.ts = ts
		k := rq.nm
		rq.nm = k + 1 // at most one per run
		rq.buf.marks[k&(runBatch-1)] = RunMark{Time: p.perfTime(ts), Cycles: cyc}
		r.Mark = uint16(k + 1)
	}
}

// runFits says whether the next run of the walking queue q goes straight
// into its batch (appendRun, without emitRun's checks): the batch is for
// q's thread and has room, and the run needs no mark (the time has not
// changed since the batch's last run: setTimestamp clears lim; no cycles
// are pending). A queue copy that took over a parallel decode never has a
// batch of its own: its runs go to its queue's through emitBlock.
func (q *ptQueue) runFits() bool {
	rq := &q.rq
	return rq.n < rq.lim && (!q.dec.CyclesPending() || rq.lean)
}

// traceBegan notes a trace start for Handler.RunStarts: the next run of
// the queue (its owner's, for a copy that took over a parallel decode;
// the chunk's, for a chunk decoded ahead) goes through emitRun, which
// marks it.
func (q *ptQueue) traceBegan() {
	p := q.pt
	if q.job == nil && !p.h.RunStarts || q.job != nil && !p.workH.RunStarts {
		return
	}
	o := q // a chunk's decoder fills its own batches
	if q.job == nil {
		o = q.owner()
	}
	o.rq.begun, o.rq.lim = true, 0
}

// setTimestamp sets the queue's timestamp; for Handler.Runs its next run
// goes through emitRun, which marks a new time.
func (q *ptQueue) setTimestamp(ts uint64) {
	q.timestamp = ts
	q.rq.lim = 0
}

// appendRun writes a run without a mark at the end of q's batch, which
// has room, and returns it. A pending run (one that waits for its
// successor, resolveRun) is noted, but with LeanRuns; a run that
// continues in the next mapping gets that as its successor.
func (q *ptQueue) appendRun(start, last, n uint64, flags uint16, length uint64, pend bool) *Run {
	rq := &q.rq
	i := rq.n
	rq.n = i + 1
	r := &rq.buf.runs[i&(runBatch-1)]
	r.Start, r.End, r.NInsn, r.Mark = start, last, uint32(n), 0
	switch {
	case rq.lean:
		r.Flags, r.To = 0, 0
		if pend {
			r.Flags = flags
		}
	case !pend:
		r.Flags, r.To = 0, last+length // contiguous: continues in the next map
	default:
		r.Flags, r.To = flags, 0
		rq.pendIdx, rq.pendFT = i, last+length
		q.pend.End = last
		q.hasPend = true
	}
	return r
}

// foldInto is Handler.FoldRuns: it folds the run that waits for its
// successor (start to last, n instructions, flags and length of its
// branch) into the batch's last run, and reports whether it did. The
// fold rule, the same whichever walk (edge-graph or step by step) made
// the runs, so that the folds do not depend on which code the shared
// code cache had when (-j > 1): a run folds into the batch's last one
// where that one ended in a conditional branch that went to start (it
// was resolved there, and no callback came since: noFold) and the run
// needs no mark. A fold never crosses a time mark: where the time moved
// (a new timestamp, MTC or per-CPU estimate) or cycles were counted
// (CYC), the run gets its mark and starts a new Run; so does the first
// run of a batch, and a trace start's. The caller checks the mark
// (runFits, or emitRun's).
func (q *ptQueue) foldInto(start, last, n uint64, flags uint16, length uint64) bool {
	rq := &q.rq
	i := rq.n - 1
	if i < 0 || rq.noFold == rq.n || n >= 1<<31 {
		return false
	}
	r := &rq.buf.runs[i&(runBatch-1)]
	if r.Flags&^RunTaken != sample.FlagBranch|sample.FlagConditional || r.To != start || r.NInsn >= 1<<31 {
		return false
	}
	r.End, r.NInsn, r.Flags, r.To = last, r.NInsn+uint32(n), flags, 0
	rq.pendIdx, rq.pendFT = i, last+length
	q.pend.End = last
	q.hasPend = true
	return true
}

// appendPend is appendRun for a run that waits for its successor, small
// enough to inline in the bulk walk's loop; it returns the run.
func (q *ptQueue) appendPend(start, last, n uint64, flags uint16, length uint64) *Run {
	rq := &q.rq
	i := rq.n
	rq.n = i + 1
	r := &rq.buf.runs[i&(runBatch-1)]
	r.Start, r.End, r.NInsn, r.Mark, r.Flags, r.To = start, last, uint32(n), 0, flags, 0
	if !rq.lean {
		rq.pendIdx, rq.pendFT = i, last+length
		q.pend.End = last
		q.hasPend = true
	}
	return r
}

// runFlags returns the Run.Flags of a run whose last instruction is in.
func runFlags(in *ptperf.Insn) uint16 {
	if in.Branch != ptperf.BrNone && in.Length != 0 {
		return uint16(in.Op.Flags())
	}
	return 0
}

// newRunBatch hands q's batch over (all but an unresolved last run, which
// starts the new batch) and starts a batch for q's current thread.
func (q *ptQueue) newRunBatch() {
	p := q.pt
	rq := &q.rq
	b := &rq.b
	if rq.buf == nil {
		rq.buf = p.runBuf()
	}
	j := q.job
	if j != nil {
		rq.lean, rq.fold = p.workH.LeanRuns, p.workH.FoldRuns && !p.workH.LeanRuns // p.h is the Run goroutine's
	} else {
		rq.lean, rq.fold = p.h.LeanRuns, p.h.FoldRuns && !p.h.LeanRuns
	}
	bf := rq.buf
	if rq.n > 0 && (b.TID != q.tid || b.PID != q.pid || b.CPU != q.cpu) && q.hasPend {
		// The thread changed: the pending run's successor is unknown.
		q.hasPend = false
	}
	var carry Run
	var carryMark RunMark
	hasCarry := q.hasPend && rq.n > 0
	if hasCarry {
		rq.n--
		carry = bf.runs[rq.n]
		if carry.Mark != 0 {
			carryMark = bf.marks[carry.Mark-1]
		}
	}
	if rq.n > 0 {
		b.Runs, b.Marks = bf.runs[:rq.n], bf.marks[:rq.nm]
		if j != nil && j.agg != nil {
			j.agg.Runs(b) // counted into the chunk's (pt_par.go)
		} else if j != nil {
			// A chunk decoded ahead keeps its batches for the
			// replay (pt_par.go).
			j.batches, j.bufs = append(j.batches, *b), append(j.bufs, bf)
			bf = p.runBuf()
			rq.buf = bf
		} else {
			p.h.Runs(b)
		}
	}
	rq.n, rq.nm = 0, 0
	if hasCarry {
		b.Time = carryMark.Time
		if carry.Mark == 0 {
			b.Time = p.perfTime(rq.ts)
		}
		carry.Mark = 0
		if carryMark.Cycles != 0 {
			bf.marks[0] = carryMark
			rq.nm = 1
			carry.Mark = 1
		}
		bf.runs[0] = carry
		rq.n = 1
		rq.pendIdx = 0
	} else {
		b.Time = p.perfTime(q.timestamp)
		rq.ts = q.timestamp
	}
	b.PID, b.TID, b.CPU = q.pid, q.tid, q.cpu
	rq.lim, rq.noFold = runBatch, rq.n // a carried run takes none in
	if q.timestamp != rq.ts && !rq.lean && !p.timeless {
		rq.lim = 0 // a carried run's time is not the queue's: emitRun marks it
	}
	if !rq.dirty && j == nil {
		rq.dirty = true
		p.runQs = append(p.runQs, q)
	}
}

// resolveRun is flushPend for Handler.Runs: the pending run learns where
// execution went.
func (q *ptQueue) resolveRun(to uint64, flags uint32) {
	rq := &q.rq
	r := &rq.buf.runs[rq.pendIdx&(runBatch-1)]
	r.To = to
	f := r.Flags | uint16(flags)
	if f&sample.FlagBranch != 0 && to != 0 && (to != rq.pendFT || f&sample.FlagConditional == 0) {
		f |= RunTaken
	}
	r.Flags = f
}

// flushRuns hands every queue's batch over (before another callback and
// at the end), keeping unresolved runs for later: their queues stay in
// runQs.
func (p *ptState) flushRuns() {
	qs := p.runQs
	p.runQs = p.runQsSpare[:0]
	for _, q := range qs {
		q.rq.dirty = false
		switch n := q.rq.n; {
		case n > 1 || n == 1 && !q.hasPend:
			q.newRunBatch() // back in runQs when it keeps a run
		case n == 1:
			q.rq.dirty, q.rq.noFold = true, 1 // (a callback comes after it)
			p.runQs = append(p.runQs, q)
		default:
			q.rq.lim = 0 // the next run registers the queue again
		}
	}
	p.runQsSpare = qs[:0]
}
