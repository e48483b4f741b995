package session

import (
	"fmt"
	"math"
	"os"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/ptagg"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session/ptperf"
	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/internal/mapfile"
)

// Parallel decoding of timeless queues.
//
// In an untimed recording each queue is decoded from start to end at once
// (at the thread's EXIT or at the end of the file), so its output is one
// run that can be produced ahead of time. The queues' traces are cut at
// PSBs into chunks of about chunkBytes; worker goroutines decode the chunks
// (of several queues, in output order) into buffered records, each chunk
// but a queue's first with a decoder started at its PSB as if the trace
// continued there (ptperf's MidStream). The Run goroutine takes the chunks
// in order. A chunk's records are kept when the decoder of the chunk
// before it, stopped right after the PSB event of that same PSB, is in the
// same state as the chunk's decoder after its first state (ptperf.Snap,
// the total instruction count relative to the last sample); otherwise they
// are dropped and the earlier decoder goes on through the chunk on the Run
// goroutine. Either way the samples are the sequential decode's, by
// construction.
//
// The equality of snapshots proves equal output only for what Snap covers:
// untimed decoding that samples every instruction and nothing else that
// keeps state across samples (no branch, power or PSB events, thread
// stacks, skips or Blocks). Everything else decodes sequentially, as do
// queues whose thread is not known before decoding.
//
// For Handler.Agg, a chunk of a per-thread queue counts its runs and walks
// into an Agg of its own (job.agg, ptagg's Agg.NewChunk), which is merged
// into the Handler's where the job is taken, after the runs before the
// chunk (ptagg.Agg.Merge); where Merge refuses (it cannot prove the
// chunk's call stacks the sequential decode's), the chunk is decoded on
// the Run goroutine as a chunk whose snapshot differs.
//
// Shared state while workers run: the DSOs' instruction caches (safe for
// concurrent use), the thread's maps and the machine (read only: no record
// is processed until the queues are done; workers resolve addresses
// without the maps' lookup caches).

// chunkBytes is the target size of a chunk of trace; aggChunkBytes that
// of a chunk counted into an Agg of its own (job.agg), which starts with
// cold tables (its records, links and call tree) and is merged at a cost:
// larger chunks pay that less often.
var chunkBytes, aggChunkBytes = 8 << 10, 64 << 10

var parDebug = os.Getenv("PERFPT_PARDEBUG") != ""

// parRedo lets tests drop chunks that would be taken; parAggRefuse
// lets them refuse the merge of a chunk's Agg (ptagg.Agg.Merge).
var (
	parRedo      = func(pos uint64) bool { return false }
	parAggRefuse = func(pos uint64) bool { return false }
)

// parWorkers returns the number of decode workers.
func (p *ptState) parWorkers() int { return p.s.decodeWorkers(p.h) }

// parallel says whether queues may be decoded in parallel with the
// options of this session, now.
func (p *ptState) parallel() bool {
	o := &p.opts
	if p.parWorkers() < 2 || p.h.Block != nil || p.h.Blocks != nil {
		return false
	}
	if p.h.Runs != nil {
		// Runs alone: the runs are logged by the chunks' decoders and
		// delivered in order.
		if p.instructionsEv != nil || !p.s.runsInChunks(p.h.LeanRuns) {
			return false
		}
	} else if p.instructionsEv == nil && p.synth {
		// Neither instructions nor runs: only the bare decode (errors,
		// --itrace=e) is decoded in chunks too.
		return false
	}
	if p.branchesEv != nil || p.psbEv != nil || p.cbrEv != nil || p.txEv != nil || p.ptwEv != nil ||
		p.useThreadStack || o.InitialSkip != 0 || o.Quick != 0 || p.s.opts.IPC && p.s.mayCountCycles() {
		return false
	}
	if typ, period := p.period(); p.instructionsEv != nil && (typ != ptperf.PeriodInstructions || period != 1) {
		return false
	}
	// Timed queues are decoded a little at a time between records: only
	// once no record can change the machine any more.
	return p.timeless || p.dataQueued && len(p.timeRanges) == 0 && p.s.mutSeen >= p.s.mutTotal
}

// queueParallel says whether q can be decoded in chunks (from its start
// when fresh).
func (p *ptState) queueParallel(q *ptQueue, fresh bool) bool {
	if q.par != nil || q.dec == nil || fresh && q.started || p.mightOverlap || q.syncSwitch {
		// (sync_switch: the queue's thread changes where the decode
		// reaches __switch_to, not where sideband puts it.)
		// (Snapshots: a buffer's data depends on the one before.)
		return false
	}
	if q.qtid == -1 {
		// A per-CPU queue: only when the whole recording's sideband
		// puts the threads of one process on its CPU (and the idle
		// task, which leaves no trace), now current: its chunks walk
		// that process's code (its threads share one address space),
		// and their samples take the queue's thread of the moment as
		// they are replayed, as in a sequential decode.
		pid, ok := p.cpuPID[q.cpu]
		if !p.perCPU || !p.dataQueued || !ok || pid <= 0 || q.pid != pid {
			return false
		}
		// Chunks follow the CPU's thread changes by their
		// timestamps (pt_cpus.go).
		p.resolveChanges()
	}
	t := q.thread
	if t == nil || t.TID != q.tid || t.PID != q.pid || t.PID == -1 || t.Maps == nil {
		return false
	}
	for i := range q.bufs {
		b := &q.bufs[i]
		if len(b.mapped) != max(len(b.data), b.size) {
			return false
		}
	}
	return true
}

// parAhead is how many queues after the one decoding may start decoding.
const parAhead = 1

// processTimelessPar is processTimeless starting the parallel decode of
// the queues that qualify, a few queues ahead.
func (p *ptState) processTimelessPar(tid int32) {
	var sel []*ptQueue
	for _, q := range p.queues {
		if q.dec != nil && (tid == -1 || q.tid == tid) {
			sel = append(sel, q)
		}
	}
	for i, q := range sel {
		for _, a := range sel[i:min(len(sel), i+1+parAhead)] {
			if a.par == nil {
				p.setPidTidCPU(a)
				if p.queueParallel(a, true) {
					p.startPar(a, true)
				}
			}
		}
		p.setPidTidCPU(q)
		var ts uint64
		p.runDecoder(q, &ts)
	}
}

// parQueue is the parallel decode of one queue: worker jobs decode its
// chunks ahead; runDecoder replays them, or decodes on the Run goroutine
// (live) where a chunk is not proved equal.
type parQueue struct {
	order    chan *job // the queue's jobs in chunk order
	quit     chan struct{}
	cur      *job // the job being replayed
	idx      int  // its next record
	batchIdx int  // its next batch of runs
	emitted  int  // the bytes of its Segment emitted
	half     bool // the state record at idx has stopped the replay once
	live     *ptQueue
	liveOK   bool    // live stopped cleanly at a chunk start
	liveEnd  parSnap // its state there
	seqStop  uint64  // live decodes to the chunk start seqStop (0: choose)
	first    bool    // the first job starts the queue: taken as it is
	done     bool

	// live's CYC reference where liveEnd was taken (not in the Snap)
	liveRef ptperf.CYCRef
}

// parSnap is what must be equal where a chunk's decode takes over.
type parSnap struct {
	ptperf.Snap
	ts uint64 // the queue's timestamp (timed decoding)
}

func (p *ptState) psnap(q *ptQueue) parSnap {
	s := parSnap{Snap: q.dec.Snapshot()}
	s.TotInsn -= q.lastInsn
	if p.instructionsEv == nil {
		// No samples (Handler.Runs): the counts toward them do not
		// matter.
		s.TotInsn, s.PeriodInsn = 0, 0
	}
	if p.timeless {
		s.Timing = ptperf.Timing{}
	} else {
		s.ts = q.timestamp
	}
	return s
}

// chunk is a piece of a queue's trace: from the PSB at buffer buf, offset
// off (queue position pos) to the PSB at queue position end.
type chunk struct {
	buf, off int
	pos, end uint64
	first    bool // the queue's start (decoded as a fresh decoder does)
}

// rec is one logged event of a chunk's decode, in the order runDecoder
// would have produced them.
type rec struct {
	ip, addr, period uint64
	a                uint64 // the IP's map-relative address (the IP without a map)
	mp               *machine.Map
	sym              *symbol.Symbol
	flags            uint32
	kind             uint8
	insnLen          uint8
	insn             [16]byte
}

const (
	recInsn   = iota
	recBranch // a sample
	recError  // period indexes job.errs
	// a state was taken (timed queues): the queue's timestamp in addr
	// (runDecoder may stop here), the Segment's length in period
	recState
	// Handler.Runs: hand job.batches over up to index period
	recBatches
	// Handler.Runs: the queue's timestamp changed to addr where
	// runDecoder does not stop (an error)
	recTime
)

// leadLog is what a job's decoder saw, before its first run, that may
// resolve the run pending before its chunk (Handler.Runs).
type leadLog struct {
	// to is where execution went on (0: the trace stopped); for a
	// branch, from is its source: it resolves the pending run only if
	// that run ends there
	to, from uint64
	flags    uint32 // extra flags
	branch   bool
}

// job is the decode of one chunk.
type job struct {
	q, jq *ptQueue // the queue and the copy that decodes the chunk
	c     chunk
	recs  []rec
	// Handler.Runs: the batches the job's decoder made (recBatches),
	// their buffers, and what may resolve the run pending before it
	batches []RunBatch
	bufs    []*runBuf
	lead    []leadLog
	batchAt int // batches up to here are in a recBatches
	// Handler.Agg in an untimed recording: the chunk's runs and walks
	// are counted into agg (ptagg's NewChunk; aggs is its walk's part),
	// which is merged into the Handler's where the job is taken
	// (ptagg.Agg.Merge), instead of being kept as batches.
	agg     *ptagg.Agg
	aggs    *aggState
	errs    []sample.ErrorLine
	segErrs int // errors formatted into seg, counted where it is emitted
	ro      machine.ROCache
	startOK bool
	// tainted: the decode walked code that cannot be read, whose errors
	// depend on the walks before the chunk (codeCache.silent), or timed
	// a CYC packet of damaged data from a reference it did not know
	// (ptperf's CYCRef)
	tainted bool
	start   parSnap
	clean   bool // stopped after the PSB event of the next chunk's PSB
	done    bool // the data ended
	end     parSnap
	ready   chan struct{}
	// with Handler.Fork: the job's samples are formatted into seg
	seg    Segment
	rseg   RunSegment // seg, when it takes straight runs
	segLen int
	lastTS uint64 // the queue's timestamp at the last state logged
	smp    sample.Sample
	res    roResolver
}

// push appends r to the job's records, after the run batches made before
// it.
func (j *job) push(r rec) {
	j.markBatches()
	j.recs = append(j.recs, r)
}

// markBatches records that the batches made so far are handed over here.
func (j *job) markBatches() {
	if len(j.batches) > j.batchAt {
		j.batchAt = len(j.batches)
		j.recs = append(j.recs, rec{kind: recBatches, period: uint64(j.batchAt)})
	}
}

func (j *job) add(p *ptState, q *ptQueue, ev *sample.Event, ip, addr, period uint64, flags uint32) {
	if j.seg != nil {
		j.format(p, q, ev, ip, addr, period, flags)
		return
	}
	kind := uint8(recInsn)
	if ev == p.branchesEv {
		kind = recBranch
	}
	kernel := ip >= p.kernelStart
	if ip == 0 {
		kernel = addr >= p.kernelStart
	}
	var mp *machine.Map
	var sym *symbol.Symbol
	a := ip
	if !p.noIPLoc {
		mp, sym, a = p.s.m.ResolveRO(&j.ro, q.thread, kernel, ip)
	}
	j.push(rec{ip: ip, addr: addr, period: period, a: a, mp: mp, sym: sym,
		flags: flags, kind: kind, insnLen: uint8(q.insnLen), insn: q.insn})
}

// format is prepSample and deliver for a job with a Segment.
func (j *job) format(p *ptState, q *ptQueue, ev *sample.Event, ip, addr, period uint64, flags uint32) {
	if p.workH.Sample == nil {
		return
	}
	tm := p.perfTime(q.timestamp)
	if p.s.anyFilter && p.s.filtered(q.pid, q.tid, uint32(q.cpu), tm) {
		return
	}
	t := q.thread
	smp := &j.smp
	kernel := p.fillSample(smp, q, t, ev, ip, addr, period, flags, tm)
	if p.ipc {
		smp.InsnCnt, smp.CycCnt = q.smpInsn, q.smpCyc
	}
	m := p.s.m
	l := &smp.IPLoc
	if p.noIPLoc {
		*l = sample.Loc{Addr: ip}
	} else if mp, sym, a := m.ResolveRO(&j.ro, t, kernel, ip); mp != nil {
		l.HasMap, l.DSO, l.Kernel, l.MapStart, l.Addr, l.Ref = true, m.DSOName(mp.DSO), mp.DSO.Kernel, mp.Start, a, mp
		l.Sym = sym
	} else {
		*l = sample.Loc{Addr: a}
	}
	j.res.m, j.res.t, j.res.kernel = m, t, kernel
	smp.Res = &j.res
	smp.HasThreadStack, smp.Depth = false, 0
	j.seg.Sample(smp)
}

// roResolver is the Resolver of a sample formatted on a worker.
type roResolver struct {
	m      *machine.Machine
	t      *machine.Thread
	kernel bool
	c      machine.ROCache
}

func (r *roResolver) ResolveAddr(addr uint64) sample.Loc {
	mp, sym, a := r.m.ResolveRO(&r.c, r.t, r.kernel, addr)
	if mp == nil {
		return sample.Loc{Addr: a}
	}
	return sample.Loc{HasMap: true, DSO: r.m.DSOName(mp.DSO), Kernel: mp.DSO.Kernel, MapStart: mp.Start, Addr: a, Ref: mp, Sym: sym}
}

// Srcline is not available on a worker (see Handler.Fork).
func (r *roResolver) Srcline(l *sample.Loc) string { return "" }

func (j *job) addError(e sample.ErrorLine) {
	if j.seg != nil {
		j.seg.Error(&e)
		j.segErrs++
		return
	}
	if jq := j.jq; jq.pt.workFlow {
		// The runs before an error are handed over before it
		// (flushRuns), but a pending one.
		if n := jq.rq.n; n > 1 || n == 1 && !jq.hasPend {
			jq.newRunBatch()
		}
	}
	j.push(rec{kind: recError, period: uint64(len(j.errs))})
	j.errs = append(j.errs, e)
}

// owner returns the queue whose runs q delivers: q, or the queue a copy
// decodes for.
func (q *ptQueue) owner() *ptQueue {
	if q.own != nil {
		return q.own
	}
	return q
}

// syncOwner gives the timestamp of a queue copy that took over a parallel
// decode to its queue, whose run batches take their times from it.
func (q *ptQueue) syncOwner() {
	if o := q.own; o != nil && q.job == nil {
		o.setTimestamp(q.timestamp)
	}
}

// resolveFrom resolves the pending run with the address executed next
// (0: the trace stopped) and extra flags, on a queue copy: logged by a
// job's decoder, delivered to the owner's batch by a copy that took over.
func (q *ptQueue) resolveFrom(to uint64, flags uint32) {
	if j := q.job; j != nil {
		if q.hasPend {
			q.hasPend = false
			q.resolveRun(to, flags)
		} else if q.virt {
			j.lead = append(j.lead, leadLog{to: to, flags: flags})
		}
		q.virt = false
		return
	}
	q.owner().flushPend(to, flags)
}

// resolveBranch is runDecoder's resolution of the pending run by the
// branch of state st, for runSeq.
func (q *ptQueue) resolveBranch(st *ptperf.State) {
	if j := q.job; j != nil {
		if q.hasPend {
			if st.FromIP == q.pend.End {
				q.hasPend = false
				q.resolveRun(st.ToIP, 0)
			}
		} else if q.virt {
			j.lead = append(j.lead, leadLog{to: st.ToIP, from: st.FromIP, branch: true})
		}
		return
	}
	if o := q.owner(); o.hasPend && st.FromIP == o.pend.End {
		o.flushPend(st.ToIP, 0)
	}
}

// Results of runSeq.
const (
	seqTS      = iota + 1 // the queue's timestamp reached the limit
	seqClean              // stopped after the PSB event of the stop PSB
	seqUnclean            // went past it otherwise
	seqDone               // no more data
)

// runSeq is runDecoder (without time ranges or Blocks) that also stops
// where its decoder has returned the PSB event of the PSB at queue
// position stop (seqClean) or has gone past that PSB otherwise
// (seqUnclean). ts nil means no time limit. Calling it again goes on as
// runDecoder would have. A job's queue logs its states.
func (p *ptState) runSeq(q *ptQueue, stop uint64, ts *uint64) int {
	q.started = true
	if o := q.own; o != nil && q.job == nil {
		// A copy that took over decodes for its queue's thread of the
		// moment (per-CPU queues: setPidTidCPU follows the sideband).
		q.pid, q.tid, q.cpu, q.thread = o.pid, o.tid, o.cpu, o.thread
	}
	if q.stopArm != stop {
		q.dec.StopAt(stop)
		q.stopArm = stop
	}
	if q.job != nil && ts == nil {
		q.startBulkJob() // bulk.go
		defer q.endBulk()
	}
	for {
		if r := q.pendStop; r != 0 {
			q.pendStop, q.stopArm = 0, 0
			if r == seqClean {
				p.sample(q)
			}
			return r
		}
		p.sample(q)
		st := q.dec.Decode()
		if st.Type&ptperf.TypeTraceBegin != 0 && (q.job == nil || q.rq.stopSeen) {
			// (A chunk's decoder starts with a trace start at its PSB,
			// which the sequential decode need not see: in a chunk
			// only a start after a stop or an error of the chunk's own
			// counts.)
			q.traceBegan()
		}
		if q.job != nil {
			q.rq.stopSeen = st.Err != 0 || st.Type&ptperf.TypeTraceEnd != 0 ||
				q.rq.stopSeen && st.Type&ptperf.TypeTraceBegin == 0
		}
		if st.Err != 0 || st.Type&ptperf.TypeTraceEnd != 0 {
			var f uint32
			if st.Err == 0 {
				f = sample.FlagTraceEnd
			}
			q.resolveFrom(0, f)
		}
		if st.Err != 0 {
			if st.Err == ptperf.ErrNoData {
				return seqDone
			}
			q.setTimestamp(st.EstTimestamp)
			q.syncOwner()
			if j := q.job; j != nil {
				if p.workFlow && !p.timeless {
					// Not a stop: j.lastTS stays.
					j.push(rec{kind: recTime, addr: q.timestamp})
				}
				// The error set the time without the check of a
				// state: runDecoder stops at the next state if the
				// time reached its limit, and the CPU's thread may
				// change there (followSwitches). No bulk walk may
				// pass that state (bulk.go), as a chunk's walk
				// otherwise does while it finds the code's edges
				// cached, which depends on what the other chunks
				// walked first.
				q.bulkLimit = 0
			}
			if p.opts.Errors {
				p.synthError(q, st)
			}
			if q.dec.Reached() != ptperf.StopNone {
				q.pendStop = seqUnclean
			}
			continue
		}
		q.state = st
		q.haveSample = true
		q.sampleFlags()
		if st.Type&ptperf.TypeBranch != 0 && (q.job == nil || q.hasPend || q.virt) {
			q.resolveBranch(st)
		}
		p.updateTimestamp(q, st)
		if q.follow {
			q.followSwitches()
		}
		q.syncOwner()
		if q.job != nil {
			q.bulkLimit = math.MaxUint64 // (startBulkJob's)
		}
		if j := q.job; j != nil && !p.timeless && q.timestamp != j.lastTS {
			// Only states that change the timestamp can stop
			// runDecoder: it is entered with a limit above the
			// queue's timestamp (its heap ordinal), and a stop at a
			// state sets the next limit above that state's.
			j.lastTS = q.timestamp
			r := rec{kind: recState, addr: q.timestamp}
			if j.seg != nil {
				r.period = uint64(j.seg.Len())
			}
			j.push(r)
		}
		switch q.dec.Reached() {
		case ptperf.StopReached:
			if ptperf.IsPSBEvent(st) {
				q.pendStop = seqUnclean
				if st.PSBOffset == stop {
					q.pendStop = seqClean
				}
			}
		case ptperf.StopPassed:
			q.pendStop = seqUnclean
		}
		if !p.timeless && ts != nil && q.timestamp >= *ts {
			*ts = q.timestamp
			return seqTS
		}
	}
}

// replay delivers j's records from pq.idx; true means runDecoder returns
// here (the queue's timestamp reached *ts).
func (p *ptState) replay(q *ptQueue, pq *parQueue, j *job, ts *uint64) bool {
	if j.seg != nil {
		for ; pq.idx < len(j.recs); pq.idx++ {
			r := &j.recs[pq.idx]
			if !pq.half {
				q.setTimestamp(r.addr)
				if q.timestamp >= *ts {
					*ts = q.timestamp
					pq.half = true
					if to := int(r.period); to > pq.emitted {
						j.seg.Emit(pq.emitted, to)
						pq.emitted = to
					}
					return true
				}
			}
			pq.half = false
		}
		if j.segLen > pq.emitted {
			j.seg.Emit(pq.emitted, j.segLen)
		}
		p.s.stats.AuxErrors[1] += j.segErrs // addError's type
		pq.emitted = 0
		return false
	}
	for ; pq.idx < len(j.recs); pq.idx++ {
		r := &j.recs[pq.idx]
		switch r.kind {
		case recState:
			if !pq.half {
				q.setTimestamp(r.addr)
				if !p.timeless && q.timestamp >= *ts {
					*ts = q.timestamp
					pq.half = true
					return true
				}
			}
			pq.half = false
		case recError:
			if p.h.Error != nil {
				p.flushBlocks()
				p.s.deliverError(&p.h, &j.errs[r.period])
			}
		case recTime:
			q.setTimestamp(r.addr)
		case recBatches:
			for ; pq.batchIdx < int(r.period); pq.batchIdx++ {
				p.h.Runs(&j.batches[pq.batchIdx])
				p.freeRunBuf(j.bufs[pq.batchIdx])
				j.bufs[pq.batchIdx] = nil
			}
		default:
			ev := p.instructionsEv
			if r.kind == recBranch {
				ev = p.branchesEv
			}
			q.insnLen, q.insn = int(r.insnLen), r.insn
			q.smpInsn, q.smpCyc = 0, 0 // records keep no IPC
			smp, t, kernel := p.prepSample(q, ev, r.ip, r.addr, r.period, r.flags)
			if smp == nil {
				continue
			}
			l := &smp.IPLoc
			if mp := r.mp; mp != nil {
				l.HasMap, l.DSO, l.Kernel, l.MapStart, l.Addr, l.Ref = true, p.s.m.DSOName(mp.DSO), mp.DSO.Kernel, mp.Start, r.a, mp
				l.Sym = r.sym
			} else {
				*l = sample.Loc{Addr: r.a}
			}
			p.deliver(smp, t, kernel)
		}
	}
	return false
}

// startRuns begins the replay of job j's runs on q: q's pending run is
// resolved by what j's decoder saw first, and q's batch is handed over,
// so that j's batches follow it (Handler.Runs).
func (p *ptState) startRuns(q *ptQueue, j *job) {
	// A job's first run follows a walk, which resolves any run pending
	// before it: if j has runs, q's batch has none pending now.
	for _, l := range j.lead {
		if q.hasPend && (!l.branch || q.pend.End == l.from) {
			q.flushPend(l.to, l.flags)
		}
	}
	if (len(j.batches) > 0 || j.jq.rq.n > 0 || j.agg != nil) && q.rq.n > 0 {
		q.newRunBatch()
	}
}

// endRuns makes the batch that job copy jq was filling, which holds its
// pending run, q's.
func (p *ptState) endRuns(q, jq *ptQueue) {
	if jq.rq.buf == nil {
		return // jq made no run
	}
	p.freeRunBuf(q.rq.buf)
	dirty := q.rq.dirty
	q.rq = jq.rq
	q.rq.dirty = dirty
	q.rq.lim = 0 // the next run checks the batch's thread and time (emitRun)
	if q.rq.n > 0 && !dirty {
		q.rq.dirty = true
		p.runQs = append(p.runQs, q)
	}
	q.hasPend, q.pend.End = jq.hasPend, jq.pend.End
	jq.rq, jq.hasPend = runQueue{}, false
}

// runBuf returns a buffer for a batch of runs.
func (p *ptState) runBuf() *runBuf {
	select {
	case b := <-p.freeRunBufs:
		return b
	default:
		return new(runBuf)
	}
}

// freeRunBuf keeps b for reuse.
func (p *ptState) freeRunBuf(b *runBuf) {
	if b == nil || p.freeRunBufs == nil {
		return
	}
	select {
	case p.freeRunBufs <- b:
	default:
	}
}

// parRun is runDecoder for a queue decoded in parallel.
func (p *ptState) parRun(q *ptQueue, ts *uint64) bool {
	pq := q.par
	for !pq.done {
		if j := pq.cur; j != nil {
			if p.replay(q, pq, j, ts) {
				return false
			}
			pq.cur = nil
			pq.live = j.jq
			j.jq.job = nil
			j.jq.virt = false
			j.jq.follow = false // its owner's thread from now on
			if p.flow {
				// Its last batch and pending run are now q's.
				p.endRuns(q, j.jq)
			}
			q.doneAt = j.c.pos
			if p.h.Progress != nil {
				p.progress()
			}
			if j.done {
				break
			}
			pq.liveOK, pq.liveEnd, pq.liveRef = j.clean, j.end, j.jq.dec.CYCRef()
			p.release(j)
			p.dropBehind(q, j.c.buf)
			continue
		}
		if pq.seqStop == 0 {
			j, ok := <-pq.order
			if ok {
				<-j.ready
			}
			if ok && !j.tainted && (pq.first || pq.liveOK && j.startOK && pq.liveEnd == j.start && !parRedo(j.c.pos)) {
				// Samples replayed before the job's first state
				// with a new timestamp have the live decoder's
				// (equal to the job's start: it is in the Snap).
				q.setTimestamp(pq.live.timestamp)
				if p.flow {
					p.startRuns(q, j)
				}
				// The chunk's counts follow the runs before it.
				// Where they cannot be merged, the live decoder
				// decodes the chunk (it resolves no run that
				// startRuns resolved: the job's decoder saw the
				// same).
				if j.agg == nil || !parAggRefuse(j.c.pos) && p.h.Agg.Merge(j.agg) {
					if j.agg != nil {
						p.aggMerged++
					}
					pq.first = false
					// (The job's decoder goes on as live.)
					j.jq.dec.InheritCYCRef(pq.liveRef)
					pq.cur, pq.idx, pq.batchIdx, pq.half, pq.emitted = j, 0, 0, false, 0
					p.parStats[0]++
					continue
				}
				p.aggRefused++
			}
			if ok {
				// A first chunk redone is decoded by q itself, from
				// the start.
				pq.first = false
				pq.seqStop = j.c.end
				p.parStats[1]++
				if parDebug {
					fmt.Fprintf(os.Stderr, "redo chunk at %d: clean %v startOK %v\n live %+v\n job  %+v\n", j.c.pos, pq.liveOK, j.startOK, pq.liveEnd, j.start)
				}
				p.release(j)
			} else {
				pq.seqStop = math.MaxUint64
			}
		}
		switch r := p.runSeq(pq.live, pq.seqStop, ts); r {
		case seqTS:
			return false
		case seqDone:
			pq.done = true
		default:
			pq.liveOK, pq.liveEnd, pq.seqStop = r == seqClean, p.psnap(pq.live), 0
			pq.liveRef = pq.live.dec.CYCRef()
		}
	}
	p.parFinish(q)
	return true
}

// parFinish stops q's jobs once its data has ended.
func (p *ptState) parFinish(q *ptQueue) {
	pq := q.par
	pq.done = true
	if pq.quit != nil {
		close(pq.quit)
		pq.quit = nil
		for j := range pq.order {
			<-j.ready
			p.release(j)
		}
	}
	if pq.live != nil {
		q.setTimestamp(pq.live.timestamp)
	}
	q.doneAt = 0
	for i := range q.bufs {
		q.doneAt += uint64(len(q.bufs[i].mapped))
	}
	p.dropBehind(q, len(q.bufs))
}

func (p *ptState) release(j *job) {
	select {
	case p.freeRecs <- j.recs[:0]:
	default:
	}
	for _, b := range j.bufs {
		p.freeRunBuf(b)
	}
	if jq := j.jq; jq != nil && jq.job == j {
		p.freeRunBuf(jq.rq.buf)
		jq.rq.buf = nil
	}
	j.recs, j.errs, j.batches, j.bufs, j.lead = nil, nil, nil, nil, nil
	j.segErrs = 0
	j.agg, j.aggs = nil, nil
	if j.seg != nil {
		j.seg.Reset()
		select {
		case p.freeSegs <- j.seg:
		default:
		}
		j.seg, j.rseg = nil, nil
	}
}

// startPar starts the parallel decode of q: from its start when fresh
// (the first chunk is a job), else from where its decoder is (decoded on
// the Run goroutine up to the first chunk start).
func (p *ptState) startPar(q *ptQueue, fresh bool) {
	p.startWorkers()
	size := chunkBytes
	if p.aggChunks(q) {
		size = aggChunkBytes
	}
	pq := &parQueue{order: make(chan *job, p.parWorkers()+1), quit: make(chan struct{}), live: q, first: fresh}
	q.par = pq
	from := uint64(0)
	if !fresh {
		pq.seqStop = math.MaxUint64
		q.chunks(q.dec.Pos(), false, size, func(c chunk) bool {
			pq.seqStop = c.end
			return false
		})
		from = pq.seqStop
		if from == math.MaxUint64 {
			close(pq.order)
			pq.quit = nil
			return
		}
	}
	// The queue's identity as jobs copy it (setPidTidCPU rewrites the
	// same values on the Run goroutine).
	id := ptQueue{nr: q.nr, set: q.set, qtid: q.qtid, qcpu: q.qcpu, bufs: q.bufs,
		pid: q.pid, tid: q.tid, cpu: q.cpu, thread: q.thread, cbrSeen: q.cbrSeen}
	p.producers.Add(1)
	go func() {
		defer p.producers.Done()
		defer close(pq.order)
		q.chunks(from, fresh, size, func(c chunk) bool {
			var recs []rec
			select {
			case recs = <-p.freeRecs:
			default:
			}
			j := p.newJob(q, &id, c, recs)
			select {
			case pq.order <- j:
			case <-pq.quit:
				return false
			}
			p.todo <- j
			return true
		})
	}()
}

func (p *ptState) startWorkers() {
	if p.todo != nil {
		return
	}
	n := p.parWorkers()
	// Workers and producers read the handler here: p.h is rewritten
	// for each record.
	p.workH = p.h
	p.workFlow = p.flow
	p.todo = make(chan *job, 4*n)
	p.freeRecs = make(chan []rec, 4*n)
	// Enough for the batches of the jobs in flight (chunkBytes of trace
	// makes some 70 batches).
	p.freeRunBufs = make(chan *runBuf, 512)
	p.freeSegs = make(chan Segment, 4*n)
	for i := 0; i < n; i++ {
		p.workers.Add(1)
		go func() {
			defer p.workers.Done()
			for j := range p.todo {
				p.runJob(j)
				close(j.ready)
			}
		}()
	}
}

// stopWorkers ends the workers once every queue is done.
func (p *ptState) stopWorkers() {
	if p.todo == nil {
		return
	}
	for _, q := range p.queues {
		if q.par != nil && !q.par.done {
			p.parFinish(q)
		}
	}
	p.producers.Wait()
	close(p.todo)
	p.workers.Wait()
	p.todo = nil
	if parDebug {
		fmt.Fprintf(os.Stderr, "session: %d chunks taken, %d redone (%d merges refused)\n", p.parStats[0], p.parStats[1], p.aggRefused)
	}
}

// runJob decodes a chunk (on a worker).
func (p *ptState) runJob(j *job) {
	jq := j.jq
	if !j.c.first {
		b := &jq.bufs[j.c.buf]
		jq.dec.MidStream(b.mapped[j.c.off:], j.c.pos, jq.traceNr(), b.reference)
		st := jq.dec.Decode()
		if !ptperf.IsPSBEvent(st) || st.PSBOffset != j.c.pos {
			return
		}
		// The PSB event's own sample belongs to the chunk before.
		jq.state = st
		jq.sampleFlags()
		p.updateTimestamp(jq, st)
		p.startSwitches(jq)
		j.start, j.startOK = p.psnap(jq), true
		j.lastTS = jq.timestamp
		jq.started = true
	}
	switch r := p.runSeq(jq, j.c.end, nil); r {
	case seqDone:
		j.done = true
	default:
		j.clean = r == seqClean
		j.end = p.psnap(jq)
	}
	if jq.dec.StrayCYC() {
		j.tainted = true
	}
	if j.seg != nil {
		j.segLen = j.seg.Len()
	}
	if j.aggs != nil {
		j.aggs.flush()
	}
	j.markBatches()
}

// traceNr is the trace number the queue's decoder gets from its first
// buffer (getTrace).
func (q *ptQueue) traceNr() uint64 {
	for i := range q.bufs {
		if len(q.bufs[i].mapped) > 0 {
			return q.bufs[i].nr + 1
		}
	}
	return 0
}

// aggChunks says whether the chunks of q decoded ahead count into Aggs of
// their own (job.agg): for Handler.Agg, on a per-thread queue whose runs
// it takes (edge counts too, ptagg.Options.Edges: a chunk's first block
// follows the last one merged). (The workers' handler: after startWorkers.)
func (p *ptState) aggChunks(q *ptQueue) bool {
	a := p.workH.Agg
	return a != nil && !aggOff && q.qtid != -1 && q.thread != nil && a.Takes(q.pid, q.tid)
}

// newJob prepares the decode of chunk c of q (whose identity is id).
func (p *ptState) newJob(q, id *ptQueue, c chunk, recs []rec) *job {
	j := &job{q: q, c: c, recs: recs[:0], ready: make(chan struct{})}
	jq := &ptQueue{pt: p, nr: id.nr, set: id.set, qtid: id.qtid, qcpu: id.qcpu, bufs: id.bufs,
		pid: id.pid, tid: id.tid, cpu: id.cpu, thread: id.thread, cbrSeen: id.cbrSeen, mapped: true, job: j}
	if !c.first {
		jq.next, jq.oldBuffer = c.buf+1, true
		// The run before the chunk may wait for its successor.
		jq.virt = p.workH.Runs != nil && !p.workH.LeanRuns
	}
	jq.own = q
	if p.aggChunks(id) {
		a := p.workH.Agg
		j.agg = a.NewChunk(id.thread)
		j.aggs = &aggState{a: j.agg}
	}
	jq.dec = p.newDecoder(jq)
	j.jq = jq
	if p.workH.Fork != nil {
		select {
		case j.seg = <-p.freeSegs:
		default:
			j.seg = p.workH.Fork()
		}
		j.rseg, _ = j.seg.(RunSegment)
	}
	return j
}

// chunks calls f with q's chunks of about size bytes in order from queue
// position from (from the start when first), until f returns false.
func (q *ptQueue) chunks(from uint64, first bool, size int, f func(chunk) bool) {
	starts := make([]uint64, len(q.bufs))
	var pos uint64
	bi, off := 0, 0
	for i := range q.bufs {
		starts[i] = pos
		n := uint64(len(q.bufs[i].mapped))
		if from >= pos && from < pos+n {
			bi, off = i, int(from-pos)
		}
		pos += n
	}
	if from >= pos {
		bi, off = len(q.bufs), 0
	}
	next := func(bi, off int) (int, int, bool) {
		if bi < len(q.bufs) {
			if i := ptperf.NextPSB(q.bufs[bi].mapped, off+size); i >= 0 {
				return bi, i, true
			}
		}
		for k := bi + 1; k < len(q.bufs); k++ {
			if i := ptperf.NextPSB(q.bufs[k].mapped, 0); i >= 0 {
				return k, i, true
			}
		}
		return 0, 0, false
	}
	c := chunk{buf: bi, off: off, pos: from, first: first}
	for {
		nb, no, ok := next(c.buf, c.off)
		c.end = math.MaxUint64
		if ok {
			c.end = starts[nb] + uint64(no)
		}
		if !f(c) || !ok {
			return
		}
		c = chunk{buf: nb, off: no, pos: c.end}
	}
}

// dropBehind drops the mapped pages of q's buffers before buffer upto.
func (p *ptState) dropBehind(q *ptQueue, upto int) {
	if p.s.aux == nil {
		return
	}
	for ; q.dropped < upto && q.dropped < len(q.bufs); q.dropped++ {
		// The parallel decode reads AUX data through the mapping:
		// the pages of finished chunks would otherwise stay in the
		// resident set, growing it with the trace. (The sequential
		// decode reads with pread; the record readers drop what
		// they pass.)
		mapfile.Drop(q.bufs[q.dropped].mapped)
	}
}
