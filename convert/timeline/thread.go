package timeline

import (
	"math/bits"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session"
)

// The stack model: a thread's decoded flow (runs of instructions, each
// ending in a branch) becomes slices.
//
//   - A call begins a slice named by its target's symbol; the frame keeps
//     the call's address, and a return to within an instruction's length
//     after it ends the frame (the frames above it end too, as "unwind").
//   - A return with no frame at all ends an inferred frame: a function
//     entered before the trace (or the last decode error) began; it is
//     written as a complete slice from the epoch's start, each enclosing
//     inferred frame starting 1 ns earlier than the one it encloses, so
//     that viewers nest them without relying on the order of equal
//     timestamps.
//   - An unconditional jump out of the current function is a tail call
//     (the frame is replaced; PLT stubs jump this way) unless it lands in
//     a function further down the stack (longjmp): then the frames above
//     that one end, as "unwind".
//   - A trace stop begins a slice for the gap (syscall, interrupt, or
//     untraced), which the next trace start ends. Resuming elsewhere than
//     where the trace stopped (a signal handler) begins a "signal" frame,
//     unless execution is back in a function of the stack (sigreturn,
//     longjmp out of a handler).
//   - A decode error is an instant; every open slice ends there, and the
//     stack is rebuilt from scratch (a new epoch). So is an exec.

// frame is a call the thread has not returned from.
type frame struct {
	site uint64 // the call instruction (0: unknown, e.g. a signal handler; txSite: a transaction)
	info *fnInfo
	// clean holds addresses (0: none) that neither this frame's function
	// nor any below it contains (transfer's scan found none; the frames
	// below one cannot change while it stays): transfer's next scan for
	// one stops here. Two, as sort's msort recursion alternates between
	// a tail call to itself and memcpy's (from its PLT stub), 0.6 M
	// times.
	clean [2]uint64
}

// txSite is the site of a transaction's frame (a flag in the site, not a
// field of its own, keeps a frame 4 words).
const txSite = ^uint64(0)

// tx says whether f is a transaction, not a function.
func (f *frame) tx() bool { return f.site == txSite }

// isClean says whether f.clean holds to.
func (f *frame) isClean(to uint64) bool {
	return to != 0 && (f.clean[0] == to || f.clean[1] == to)
}

// setClean adds to to f.clean, dropping the older one.
func (f *frame) setClean(to uint64) {
	if f.clean[0] != to {
		f.clean[1], f.clean[0] = f.clean[0], to
	}
}

// maxCallLen is the longest x86 instruction: a return to ret matches the
// frame whose call lies within this distance before ret.
const maxCallLen = 15

// (A transaction's txSite is above any ret.)
func (f *frame) returnsTo(ret uint64) bool {
	return f.site != 0 && ret > f.site && ret-f.site <= maxCallLen
}

// thread is the model and output state of one thread (the idle task:
// one per CPU).
type thread struct {
	c        *converter
	pid, tid int32
	cpu      int32
	key      int64
	track    Track
	comm     string

	clk clock
	out output
	// The machine's thread and the address space's function cache, as
	// fnAt last found them.
	mth *machine.Thread
	fc  *fnCache

	cum     uint64 // instructions executed so far
	curTime uint64 // the time of the last run
	started bool

	stack []frame
	base  *fnInfo // the function running below the stack
	k     int32   // inferred frames ended in this epoch

	inGap    bool // a trace-gap slice is open
	gapName  Str
	gapDepth int    // len(stack) when the gap began
	stopped  bool   // the trace stopped after the last run
	lastEnd  uint64 // the last instruction before the stop
	newEpoch bool   // the stack starts afresh at the next run (error, exec)
	// The trace stopped right after a branch, whose target is where it
	// resumes: a call's frame waits for its name, a return for the
	// function it went back to, a jump for where it went.
	pendCall *fnInfo
	pendRet  bool
	pendJump bool
}

func (t *thread) push(o op) {
	t.clk.push(&o, &t.out)
}

// begin and end queue their op in place (push's path for an untimed op
// that is not a point).
func (t *thread) begin(cat Str, fi *fnInfo) {
	c := &t.clk
	c.q = append(c.q, op{kind: opBegin, cat: cat, name: fi.name, info: fi, pos: t.cum, depth: int32(len(t.stack))})
	c.queued(&t.out)
}

func (t *thread) end(cat, name Str) {
	c := &t.clk
	c.q = append(c.q, op{kind: opEnd, cat: cat, name: name, pos: t.cum})
	c.queued(&t.out)
}

// pop ends the top frame.
func (t *thread) pop(cat Str) {
	n := len(t.stack) - 1
	t.end(cat, t.stack[n].info.name)
	t.stack = t.stack[:n]
}

// inferred ends the base function: a complete slice from the epoch's
// start.
func (t *thread) inferred(cat Str, fi *fnInfo) {
	t.k++
	t.push(op{kind: opInferred, cat: cat, name: fi.name, info: fi, pos: t.cum, k: t.k})
}

// runs takes a batch of the thread's runs.
func (t *thread) runs(b *session.RunBatch) {
	c := t.c
	tm := b.Time
	// quiet: nothing waits for the next run (no stop, no new epoch, no
	// call whose target is pending): a run without a new time or a trace
	// start then changes nothing but the count and what its branch does
	// (most runs).
	quiet := t.started && !t.stopped && !t.newEpoch && t.pendCall == nil && tm == t.curTime
	// pk is the run of the batch where the next timing point is known to
	// be (directRuns writes up to it), -1 none; the batch was looked at
	// up to scan.
	pk, scan := -1, -1
	var sp span
	var pt op
	for i := 0; i < len(b.Runs); i++ {
		if quiet && !t.clk.timeless && !slowOnly {
			if i > scan && pk < i && t.clk.havePt && c.direct && (c.fxt != nil || c.json != nil) {
				// Up to the first run that begins or ends a
				// slice, counted as quietRuns does (most runs of
				// some code): only then the point is looked for.
				if i += t.quietRuns(b.Runs[i:], true); i == len(b.Runs) {
					break
				}
				if r := &b.Runs[i]; r.Mark == 0 && r.Flags&(sample.FlagCall|sample.FlagReturn) != 0 {
					scan, pk = t.nextPoint(b, i, &pt, &sp)
				}
			}
			if pk > i {
				// The point is ahead: what waits for it is timed and
				// written now, as it would be there.
				if len(t.clk.q) > 0 {
					t.clk.resolveOps(&pt, &t.out)
				}
				// (It stops where quietRuns would, before pk: at
				// a run for the code below.)
				i += t.directRuns(b.Runs[i:pk], &sp)
			} else if i += t.quietRuns(b.Runs[i:], false); i == len(b.Runs) {
				// Most runs: conditional branches, calls and
				// returns that only count, begin and end a frame.
				break
			}
		}
		r := &b.Runs[i]
		f := uint32(r.Flags &^ session.RunTaken)
		var restart bool
		if quiet && r.Mark == 0 && f&sample.FlagTraceBegin == 0 {
			// Only the branch matters (most runs): what follows
			// would change nothing but the count.
			t.cum += uint64(r.NInsn)
			if f == sample.FlagBranch|sample.FlagConditional {
				continue
			}
			if r.To != 0 && f&sample.FlagTraceEnd == 0 {
				// The switch's call and return, which leave the
				// thread quiet.
				if f&sample.FlagCall != 0 {
					t.call(r, f)
					continue
				}
				if f&sample.FlagReturn != 0 {
					t.retTo(r, r.To)
					continue
				}
			}
			goto branch
		}
		if r.Mark != 0 && int(r.Mark) <= len(b.Marks) {
			tm = b.Marks[r.Mark-1].Time
		}
		if f&sample.FlagTraceBegin != 0 && t.started && !t.stopped && !t.newEpoch {
			// The trace stopped where the branch that ended the last
			// run went, before any instruction there (an asynchronous
			// stop: no run carries it).
			t.push(op{kind: opBegin, cat: c.catInterrupt, name: c.catInterrupt, info: c.noArgs, pos: t.cum, depth: int32(len(t.stack))})
			t.inGap, t.gapName, t.gapDepth = true, c.catInterrupt, len(t.stack)
			t.stopped, t.lastEnd = true, r.Start-1
		}
		if t.stopped && !t.newEpoch && f&sample.FlagTraceBegin == 0 && r.Start == t.lastEnd && r.NInsn == 1 &&
			f&sample.FlagCall != 0 && r.To != 0 {
			// A branch from the instruction the trace stopped at, with
			// no trace start (a TIP after a TIP.PGD, in a damaged
			// trace): perf prints the call and no trace start, so it
			// is taken inside the gap, which stays open.
			t.cum++
			t.call(r, f)
			continue
		}
		f &^= sample.FlagTraceBegin
		restart = t.stopped || t.newEpoch
		if t.pendCall != nil {
			// Before the point below times the call's Begin.
			*t.pendCall = *c.fnAt(t, r.Start)
			t.pendCall = nil
		}
		if !t.started || tm != t.curTime {
			if !c.timeless {
				t.push(op{kind: opPoint, pos: t.cum, t: tm, gap: restart})
			}
			t.curTime = tm
		}
		if !t.started || t.newEpoch {
			t.started, t.newEpoch, t.stopped = true, false, false
			t.k = 0
			t.push(op{kind: opEpoch, pos: t.cum})
			t.base = c.fnAt(t, r.Start)
		} else if t.stopped {
			t.stopped = false
			if t.inGap {
				t.endGap(t.gapName, c.catUnwind)
			}
			switch {
			case t.pendRet:
				t.pendRet = false
				if len(t.stack) == 0 {
					t.base = c.fnAt(t, r.Start)
				}
			case t.pendJump:
				t.pendJump = false
				t.transfer(r.Start, false)
			case !(r.Start > t.lastEnd && r.Start-t.lastEnd <= maxCallLen):
				t.transfer(r.Start, true)
			}
		}
		t.cum += uint64(r.NInsn)
	branch:
		switch {
		case r.To == 0 && f&(sample.FlagTraceEnd|sample.FlagBranch) == sample.FlagBranch:
			// The branch did not complete as decoded: a decode error
			// follows (perf reports no branch there).
		case f&sample.FlagTraceEnd != 0:
			// A syscall, or an asynchronous stop (an interrupt, a
			// fault, a preemption), maybe right after a branch: the
			// branch's target is where the trace resumes.
			name := c.catInterrupt
			switch {
			case f&sample.FlagSyscallRet != 0:
				name = c.catSyscall
			case f&sample.FlagCall != 0:
				fi := &fnInfo{name: c.nameUnknown}
				t.begin(c.catCall, fi)
				t.stack = append(t.stack, frame{site: r.End, info: fi})
				t.pendCall = fi
			case f&sample.FlagReturn != 0:
				t.retTo(r, 0)
				t.pendRet = true
			case f&sample.FlagBranch != 0 && f&sample.FlagConditional == 0:
				t.pendJump = true
			}
			t.push(op{kind: opBegin, cat: name, name: name, info: c.noArgs, pos: t.cum, depth: int32(len(t.stack))})
			t.inGap, t.gapName, t.gapDepth = true, name, len(t.stack)
			t.stopped, t.lastEnd = true, r.End
		case f&sample.FlagCall != 0:
			t.call(r, f)
		case f&sample.FlagReturn != 0:
			t.ret(r)
		case f == sample.FlagBranch:
			if r.To != 0 {
				t.transfer(r.To, false)
			}
		case f == 0 && r.To != 0 && (r.To <= r.End || r.To-r.End > maxCallLen):
			// An asynchronous branch the trace followed: an interrupt
			// into the kernel in a kernel trace (the interrupted
			// instruction is where it returns), else a transaction
			// abort (to its handler, in the function that began it).
			if r.To >= c.m.KernelStart && r.End < c.m.KernelStart {
				fi := c.fnAt(t, r.To)
				t.begin(c.catInterrupt, fi)
				t.stack = append(t.stack, frame{site: r.End, info: fi})
			} else {
				t.transfer(r.To, false)
			}
		}
		quiet = !t.stopped && !t.newEpoch && t.pendCall == nil
	}
}

// liveFns returns the address space's function cache when fnAt would use
// it as it is, else nil.
func (t *thread) liveFns() *fnCache {
	fc := t.fc
	if th := t.mth; th == nil || fc == nil || th.Maps != fc.maps || fc.gen != th.Maps.Gen() || fc.dropped {
		return nil
	}
	return fc
}

// slowOnly turns quietRuns and fxtFast off (tests compare with them off).
var slowOnly bool

// nextPoint looks for the next timing point of a quiet thread in batch b
// from run i: the first run with a mark of another time, which runs makes
// a point of (a gap where it starts the trace again) before anything
// else in it, with no trace stop or start before it (after which the
// thread would not be quiet). It returns where it stopped, and that run
// when it is such a point (-1 when not), with the point pt and the
// interval sp from the clock's last point to it, as resolve would time
// the ops queued before it (a gap's: all at the last point's time).
//
// It is not such a point where the ops since the last point might reach
// maxPending (the queue would be timed at the thread's pace first): the
// ops queued, and for the n runs up to it an End for each frame of the
// stack and at most 16 ops a run besides (a run without a trace stop or
// start begins at most a few slices, an End for each, and at most two
// inferred ones).
//
// The place it returns is where runs looks again (once past it): the
// batch's end after its last mark.
func (t *thread) nextPoint(b *session.RunBatch, i int, pt *op, sp *span) (int, int) {
	rs := b.Runs
	if len(b.Marks) == 0 {
		return len(rs), -1
	}
	cum := t.cum
	for k := i; k < len(rs); k++ {
		r := &rs[k]
		if r.Mark != 0 && int(r.Mark) <= len(b.Marks) {
			// (After the batch's last mark there is no point: the
			// scan ends there.)
			end := k
			if int(r.Mark) == len(b.Marks) {
				end = len(rs)
			}
			if t1 := b.Marks[r.Mark-1].Time; t1 != t.curTime {
				if n := k - i + 1; len(t.clk.q)+len(t.stack)+16*(n+1) >= maxPending {
					return end, -1
				}
				c := &t.clk
				*pt = op{kind: opPoint, pos: cum, t: t1, gap: r.Flags&uint16(sample.FlagTraceBegin) != 0}
				if pt.gap {
					t1 = c.t0
				}
				*sp = newSpan(c.t0, t1, c.p0, cum)
				return end, k
			}
			if end == len(rs) {
				return end, -1
			}
		}
		if r.Flags&uint16(sample.FlagTraceBegin|sample.FlagTraceEnd) != 0 {
			return k, -1
		}
		cum += uint64(r.NInsn)
	}
	return len(rs), -1
}

// directRuns is quietRuns for the runs before a timing point nextPoint
// found, once nothing waits in the thread's queue: it writes the Begins
// and Ends at once, timed by sp as resolve would time them at the point,
// instead of queueing them. Nothing else is written before that point
// (the batch is the thread's, and runs takes it in one go), so the
// records go out in the same order. It stops as quietRuns does. A record
// FXT has in its recent cache is written inline (fxtFast's), any other
// through output.now.
func (t *thread) directRuns(rs []session.Run, sp *span) int {
	c := t.c
	cum := t.cum
	fc := t.liveFns()
	f := c.fxt
	var thr uint64
	if tr := t.track; f != nil && int(tr) < len(f.tidx) && f.tidx[tr] != 0 {
		thr = uint64(f.tidx[tr]) << 24
	}
	i := 0
	for ; i < len(rs); i++ {
		r := &rs[i]
		if r.Mark != 0 {
			break
		}
		var fi *fnInfo
		var rec *fxtRecord
		begin := false
		switch r.Flags &^ session.RunTaken {
		case sample.FlagBranch | sample.FlagConditional:
			cum += uint64(r.NInsn)
			continue
		case sample.FlagBranch | sample.FlagCall:
			if r.To == 0 || r.To == r.End+5 {
				goto stop
			}
			cum += uint64(r.NInsn)
			if fi = fc.recentFn(r.To); fi == nil {
				fi = c.fnAt(t, r.To)
			}
			t.stack = append(t.stack, frame{site: r.End, info: fi})
			rec, begin = &fi.fxt[0], true
		case sample.FlagBranch:
			// A jump within the current function.
			fi := t.base
			if n := len(t.stack) - 1; n >= 0 {
				if t.stack[n].tx() {
					goto stop
				}
				fi = t.stack[n].info
			}
			if r.To == 0 || fi == nil || fi.hi <= fi.lo {
				goto stop
			}
			if r.To >= fi.lo && r.To < fi.hi {
				cum += uint64(r.NInsn)
				continue
			}
			// A tail call (directTail, out of this loop).
			if !t.directTail(t.stack, r.To, cum+uint64(r.NInsn), sp, fc) {
				goto stop
			}
			cum += uint64(r.NInsn)
			continue
		case sample.FlagBranch | sample.FlagReturn:
			stack := t.stack
			n := len(stack) - 1
			if n < 0 || stack[n].tx() || !stack[n].returnsTo(r.To) || stack[n].info.elsewhere(r.End) {
				goto stop
			}
			cum += uint64(r.NInsn)
			fi = stack[n].info
			rec = &fi.fxt[1]
			t.stack = stack[:n]
			if n == 0 {
				// Back in the function below the stack.
				if t.base = fc.recentFn(r.To); t.base == nil {
					t.base = c.fnAt(t, r.To)
				}
			}
		default:
			goto stop
		}
		if thr == 0 || rec.cat == 0 || rec.epoch != f.epoch {
			// Not cached (or JSON): output.now writes it.
			slot := 1
			if begin {
				slot = 0
			}
			t.directSlow(sp, cum, slot, fi)
			continue
		}
		{
			// sp.at(cum), inline as in times, never before the
			// last.
			var tm uint64
			switch p := cum; {
			case !sp.ok || p <= sp.p0:
				tm = sp.t0
			case p >= sp.p1:
				tm = sp.t1
			default:
				hi, n := bits.Mul64(sp.dt, p-sp.p0)
				if hi != 0 || n>>63 != 0 {
					tm = sp.exact(p)
					break
				}
				q, _ := bits.Mul64(n, sp.inv)
				if n-q*sp.dp >= sp.dp {
					q++
				}
				tm = sp.t0 + q
			}
			typ := uint64(fxtEnd<<16) | thr
			if begin {
				typ = fxtBegin<<16 | thr
			}
			tm, ok := t.out.slice(begin, tm)
			if !ok {
				continue // an End with no slice open
			}
			// (The buffer has room: it is flushed once past
			// fxtFlushAt, well before its capacity.)
			if f.buf = rec.put(f.buf, typ, tm-min(tm, c.base)); len(f.buf) >= fxtFlushAt {
				f.flush()
			}
		}
	}
stop:
	t.cum = cum
	return i
}

// directTail is directRuns' tail call to to, at boundary pos, when
// transfer's last scan found to in no frame below the top (clean) and
// the function below the stack does not contain it: transfer would
// replace the top frame; it writes the End and Begin and says whether
// it did.
func (t *thread) directTail(stack []frame, to, pos uint64, sp *span, fc *fnCache) bool {
	n := len(stack) - 1
	if n < 0 || (n > 0 && !stack[n-1].isClean(to)) || !t.tailClean(to) {
		return false
	}
	c := t.c
	fi := fc.recentFn(to)
	if fi == nil {
		fi = c.fnAt(t, to)
	}
	t.tailRecord(sp, pos, false, stack[n].info)
	t.tailRecord(sp, pos, true, fi)
	stack[n] = frame{site: stack[n].site, info: fi}
	return true
}

// tailRecord writes directTail's End of fi (begin false) or Begin of a
// tail call to fi at boundary pos, as output.now would, from fi.fxt when
// FXT's record is kept there, else through output.now (keeping the
// record in fi.fxt).
func (t *thread) tailRecord(sp *span, pos uint64, begin bool, fi *fnInfo) {
	c := t.c
	f := c.fxt
	k := 3
	if begin {
		k = 2
	}
	rec := &fi.fxt[k]
	if tr := t.track; f == nil || int(tr) >= len(f.tidx) || f.tidx[tr] == 0 || rec.cat == 0 || rec.epoch != f.epoch {
		t.directSlow(sp, pos, k, fi)
		return
	}
	typ := uint64(fxtEnd << 16)
	if begin {
		typ = fxtBegin << 16
	}
	tm, ok := t.out.slice(begin, sp.at(pos))
	if !ok {
		return // an End with no slice open
	}
	// (The buffer has room: it is flushed once past fxtFlushAt, well
	// before its capacity.)
	if f.buf = rec.put(f.buf, typ|uint64(f.tidx[t.track])<<24, tm-min(tm, c.base)); len(f.buf) >= fxtFlushAt {
		f.flush()
	}
}

// tailClean says whether a jump to to lands outside the function below
// the stack, as transfer's contains(t.base, to) would say, for a base
// with a range (or none).
func (t *thread) tailClean(to uint64) bool {
	b := t.base
	return b == nil || (b.hi > b.lo && (to < b.lo || to >= b.hi))
}

// directSlow is directRuns' and tailRecord's write, at boundary pos, of
// the record fi.fxt[slot] keeps (a call's Begin, a return's End, a tail
// call's Begin or End: fnInfo.fxt) when FXT's recent records have it not,
// or to JSON, through output.now; it keeps the FXT record in fi.
func (t *thread) directSlow(sp *span, pos uint64, slot int, fi *fnInfo) {
	c := t.c
	cat, kind, info := c.catTail, opEnd, (*fnInfo)(nil)
	switch slot {
	case 0:
		cat, kind, info = c.catCall, opBegin, fi
	case 1:
		cat = c.catReturn
	case 2:
		kind, info = opBegin, fi
	}
	t.out.now(sp, pos, kind, cat, fi.name, info)
	if f := c.fxt; f != nil {
		var args []Arg
		if info != nil {
			args = fi.argList()
		}
		fi.fxt[slot] = f.cached(cat, fi.name, args)
	}
}

// quietRuns is runs' loop for a quiet thread whose clock counts time
// (the ops wait for the next point), over the runs it takes in one go: a
// conditional branch (counted), a call to a function (call: a Begin and
// a frame), a return to the call of the top frame (retTo: its End;
// from the last frame, back to the function below) and a jump within
// the current function (transfer: nothing). It stops before any other
// run, a run with a mark, and where the queue is about full (with noOps,
// also before a call or return), and returns how many runs it took.
func (t *thread) quietRuns(rs []session.Run, noOps bool) int {
	c := t.c
	cum, q, stack := t.cum, t.clk.q, t.stack
	// A target found in the function cache's recent entries needs no
	// call (nothing changes the maps during the batch).
	fc := t.liveFns()
	i := 0
	for ; i < len(rs) && len(q) < maxPending-1; i++ {
		r := &rs[i]
		if r.Mark != 0 {
			break
		}
		switch r.Flags &^ session.RunTaken {
		case sample.FlagBranch | sample.FlagConditional:
			cum += uint64(r.NInsn)
			continue
		case sample.FlagBranch | sample.FlagCall:
			if r.To == 0 || r.To == r.End+5 || noOps {
				break
			}
			cum += uint64(r.NInsn)
			fi := fc.recentFn(r.To)
			if fi == nil {
				fi = c.fnAt(t, r.To)
			}
			q = append(q, op{kind: opBegin, cat: c.catCall, name: fi.name, info: fi, pos: cum, depth: int32(len(stack))})
			stack = append(stack, frame{site: r.End, info: fi})
			continue
		case sample.FlagBranch:
			// A jump within the current function (transfer does
			// nothing).
			fi := t.base
			if n := len(stack) - 1; n >= 0 {
				if stack[n].tx() {
					break
				}
				fi = stack[n].info
			}
			if r.To == 0 || fi == nil || fi.hi <= fi.lo || r.To < fi.lo || r.To >= fi.hi {
				break
			}
			cum += uint64(r.NInsn)
			continue
		case sample.FlagBranch | sample.FlagReturn:
			n := len(stack) - 1
			if n < 0 || stack[n].tx() || !stack[n].returnsTo(r.To) || noOps || stack[n].info.elsewhere(r.End) {
				break
			}
			cum += uint64(r.NInsn)
			q = append(q, op{kind: opEnd, cat: c.catReturn, name: stack[n].info.name, pos: cum})
			stack = stack[:n]
			if n == 0 {
				// Back in the function below the stack.
				if t.base = fc.recentFn(r.To); t.base == nil {
					t.base = c.fnAt(t, r.To)
				}
			}
			continue
		}
		break
	}
	t.cum, t.clk.q, t.stack = cum, q, stack
	return i
}

func (t *thread) call(r *session.Run, f uint32) {
	c := t.c
	fi := c.fnAt(t, r.To)
	cat := c.catCall
	switch {
	case f&sample.FlagSyscallRet != 0:
		cat = c.catSyscall
	case f&(sample.FlagInterrupt|sample.FlagAsync) != 0:
		cat = c.catInterrupt
	}
	if r.To == r.End+5 {
		// A call to the next instruction (to read the IP): it never
		// returns.
		t.begin(cat, fi)
		t.end(c.catJump, fi.name)
		return
	}
	t.begin(cat, fi)
	t.stack = append(t.stack, frame{site: r.End, info: fi})
}

func (t *thread) ret(r *session.Run) { t.retTo(r, r.To) }

// retTo takes the return that ends run r, to address to (0: not known,
// the top frame returns).
func (t *thread) retTo(r *session.Run, to uint64) {
	c := t.c
	for len(t.stack) > 0 && t.stack[len(t.stack)-1].tx() {
		// Returning inside a transaction from the function that began it.
		t.pop(c.catUnwind)
	}
	if len(t.stack) == 0 {
		t.inferred(c.catInferred, c.fnAt(t, r.End))
		t.base = nil
		if to != 0 {
			t.base = c.fnAt(t, to)
		}
		return
	}
	i := len(t.stack) - 1
	for to != 0 && i >= 0 && !t.stack[i].returnsTo(to) {
		i--
	}
	if to == 0 {
		i = -1
	}
	if top := &t.stack[len(t.stack)-1]; top.info.elsewhere(r.End) {
		// The return is from another function's code than the frame's:
		// a part of it gcc split off (fn.cold), entered by a jump the
		// runs do not break at. perf names a return by the symbol of
		// the ret, so the frame moves there first, as a tail call at
		// the return.
		site := top.site
		t.pop(c.catTail)
		fi := c.fnAt(t, r.End)
		t.begin(c.catTail, fi)
		t.stack = append(t.stack, frame{site: site, info: fi})
	}
	t.pop(c.catReturn)
	for i >= 0 && len(t.stack) > i {
		t.pop(c.catUnwind)
	}
	if len(t.stack) == 0 && to != 0 {
		t.base = c.fnAt(t, to)
		return
	}
	if i < 0 && to != 0 && !t.contains(t.current(), to) {
		// A return to no call: the kernel's return to a signal
		// handler (or a return address rewritten): as a trace
		// resuming elsewhere.
		t.transfer(to, true)
	}
}

// current is the function the thread is in, as the stack says.
func (t *thread) current() *fnInfo {
	for i := len(t.stack) - 1; i >= 0; i-- {
		if !t.stack[i].tx() {
			return t.stack[i].info
		}
	}
	return t.base
}

// transfer follows a jump to, or the trace resuming at, to (restart).
func (t *thread) transfer(to uint64, restart bool) {
	c := t.c
	if t.contains(t.current(), to) {
		return
	}
	// The frames scanned, [low, len-2], contain no to; ranged: from low
	// up to len-2, each is a transaction's or has a range (what contains
	// says of code without one depends on the maps then).
	low, ranged := 0, len(t.stack)-1
	for i := len(t.stack) - 2; i >= 0; i-- {
		// (contains, inline for a function with a range: a tail call
		// checks the whole stack, deep in recursive code.)
		f := &t.stack[i]
		if f.isClean(to) {
			low = i + 1
			break
		}
		if f.tx() {
			continue
		}
		if fi := f.info; fi != nil && fi.hi > fi.lo {
			if to < fi.lo || to >= fi.hi {
				continue
			}
		} else if ranged = i; !t.contains(fi, to) {
			continue
		}
		// A transaction stays for its abort or commit.
		for len(t.stack) > i+1 && !t.stack[len(t.stack)-1].tx() {
			t.pop(c.catUnwind)
		}
		return
	}
	if to != 0 {
		// Each frame scanned below any without a range: none at or
		// below it contains to.
		for i := low; i < ranged && i < len(t.stack)-1; i++ {
			t.stack[i].setClean(to)
		}
	}
	if len(t.stack) > 0 && t.contains(t.base, to) {
		for len(t.stack) > 0 {
			t.pop(c.catUnwind)
		}
		return
	}
	fi := c.fnAt(t, to)
	switch {
	case restart:
		t.begin(c.catSignal, fi)
		t.stack = append(t.stack, frame{info: fi})
	case len(t.stack) > 0 && !t.stack[len(t.stack)-1].tx():
		top := t.stack[len(t.stack)-1]
		t.pop(c.catTail)
		t.begin(c.catTail, fi)
		t.stack = append(t.stack, frame{site: top.site, info: fi})
	default:
		if t.base != nil {
			t.inferred(c.catInferredTail, t.base)
		}
		t.begin(c.catTail, fi)
		t.stack = append(t.stack, frame{info: fi})
	}
}

// contains says whether to is in fi's function; code without symbols is
// one function.
func (t *thread) contains(fi *fnInfo, to uint64) bool {
	if fi == nil {
		return false
	}
	if fi.hi > fi.lo {
		return to >= fi.lo && to < fi.hi
	}
	return t.c.fnAt(t, to).hi == 0
}

// endGap ends the open gap slice with cat, after the frames begun inside
// it (popped with fcat).
func (t *thread) endGap(cat, fcat Str) {
	for len(t.stack) > t.gapDepth {
		t.pop(fcat)
	}
	t.inGap = false
	t.end(cat, t.gapName)
}

// closeAll ends the gap, every frame and the base function with cat
// (the inferred frame with icat), and starts a new epoch at the next run.
func (t *thread) closeAll(cat, icat Str) {
	if !t.started {
		return
	}
	if t.inGap {
		// At an exec the trace resumes in the new program: the gap
		// ends as a trace start does.
		gcat := cat
		if cat == t.c.catExec {
			gcat = t.gapName
		}
		t.endGap(gcat, cat)
	}
	for len(t.stack) > 0 {
		t.pop(cat)
	}
	if t.base != nil {
		t.inferred(icat, t.base)
		t.base = nil
	}
	t.newEpoch = true
}

// decodeError records a decode error at the thread's current place and
// rebuilds the stack from scratch.
func (t *thread) decodeError(e *sample.ErrorLine) {
	c := t.c
	c.sum.Errors++
	a0 := int32(len(t.clk.args))
	t.clk.args = append(t.clk.args,
		Arg{Name: c.argCode, Kind: ArgUint, U: uint64(e.Code)},
		Arg{Name: c.argIP, Kind: ArgPointer, U: e.IP},
		Arg{Name: c.argMessage, Kind: ArgString, S: c.strs.Intern(e.Msg)})
	o := op{kind: opInstant, cat: c.catError, name: c.nameError, pos: t.cum, a0: a0, a1: int32(len(t.clk.args))}
	if e.HasTime && !c.timeless && e.Time != 0 {
		o.timed, o.t = true, e.Time // perf's time of the error
	}
	t.push(o)
	t.closeAll(c.catError, c.catInferredError)
	t.stopped = false
}

// transaction takes a transaction sample: x (begin) pushes a
// transaction slice; a commit ends it, an abort too after an instant
// marking it (the slices begun inside it end as "abort").
func (t *thread) transaction(s *sample.Sample) {
	c := t.c
	if s.Flags&sample.FlagInTx != 0 && s.Flags&sample.FlagTxAbort == 0 {
		t.push(op{kind: opBegin, cat: c.catTx, name: c.txInfo.name, info: c.txInfo, pos: t.cum, depth: int32(len(t.stack))})
		t.stack = append(t.stack, frame{site: txSite, info: c.txInfo})
		return
	}
	i := len(t.stack) - 1
	for i >= 0 && !t.stack[i].tx() {
		i--
	}
	cat := c.catCommit
	if s.Flags&sample.FlagTxAbort != 0 {
		cat = c.catAbort
		a0 := int32(len(t.clk.args))
		t.clk.args = append(t.clk.args, Arg{Name: c.argIP, Kind: ArgPointer, U: s.IP})
		t.push(op{kind: opInstant, cat: c.catTx, name: c.nameAbort, pos: t.cum, a0: a0, a1: int32(len(t.clk.args))})
	}
	if i < 0 {
		return
	}
	for len(t.stack) > i+1 {
		t.pop(c.catAbort)
	}
	t.pop(cat)
}

// finish ends what is open at the end of the recording.
func (t *thread) finish() {
	c := t.c
	if t.stopped {
		// The data ends with a stop (exit): its time is not known.
		t.clk.rate = 0
	}
	t.closeAll(c.catEnd, c.catInferredEnd)
	t.clk.resolve(nil, &t.out)
	t.out.finish()
}
