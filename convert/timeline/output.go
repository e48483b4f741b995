package timeline

import "math/bits"

// The output stage of a thread: timed ops become records, the cuts the
// options ask for are applied, and the records go to the Writer in time
// order.
//
//   - --max-depth: slices deeper than the limit are left out (their
//     instants stay).
//   - --min-duration: a slice's Begin cannot be written until the slice is
//     known to last long enough (it ends late enough, or time passes its
//     start by the minimum), and nothing after it in time can be written
//     before it: the records after an undecided Begin wait in a queue (a
//     bounded one: at most what happens within the minimum duration).
//   - --time: records outside the window are dropped; slices open when it
//     starts begin at its start, those open when it ends end at its end.

// recKind is a record for the Writer.
type recKind uint8

const (
	recBegin recKind = iota
	recEnd
	recComplete
	recInstant
	recCounter
	recHole // a Begin that was dropped (--min-duration)
)

type rec struct {
	kind     recKind
	t, t2    uint64 // t2: a complete slice's end
	cat      Str
	name     Str
	info     *fnInfo
	a0, a1   int32 // args in output.args
	frame    int32 // recBegin/recHole: the frame's index in output.frames
	undecide bool  // recBegin not decided yet
}

// oframe is a slice open in the output.
type oframe struct {
	start   uint64
	hold    int32 // its Begin's index in held (undecided), or -1
	written bool  // its Begin went out (or waits in held, decided)
	skip    bool  // left out: too deep, or too short
}

// output is a thread's output stage.
type output struct {
	tl    *converter
	th    *thread
	last  uint64 // the last record's time (records never go back)
	frame []oframe
	open  int // slices open when the converter is direct (frame is not kept)
	// held records wait for an undecided Begin (--min-duration).
	held  []rec
	hargs []Arg
	// undecided counts the frames waiting for a decision.
	undecided int
	// The --time window: frames open in the written output, and whether
	// the window was entered or left.
	win                  []winFrame
	inWin, pastWin       bool
	epochStart, epochLow uint64
}

type winFrame struct {
	cat, name Str
	info      *fnInfo
	pre       bool // begun before the window: written at its start when it opens
}

// emit takes an op with its time from the clock.
func (o *output) emit(op *op) {
	t := op.t
	if t < o.last {
		t = o.last
	}
	o.last = t
	c := o.tl
	if op.info != nil && op.info.name != 0 {
		op.name = op.info.name // a call whose target was learnt late
	}
	if c.o.MinDuration > 0 && o.undecided > 0 {
		o.decide(t)
	}
	if c.direct {
		// No cut asked for: Begins and Ends go straight out.
		switch op.kind {
		case opBegin:
			o.open++
			if t < c.base {
				c.sum.BeforeBase++
			}
			if f := c.fxt; f != nil {
				f.Begin(o.th.track, t-min(t, c.base), op.cat, op.name, op.info.argList())
			} else {
				c.w.Begin(o.th.track, t-min(t, c.base), op.cat, op.name, op.info.argList())
			}
			c.sum.Slices++
			return
		case opEnd:
			if o.open > 0 {
				o.open--
				if f := c.fxt; f != nil {
					f.End(o.th.track, t-min(t, c.base), op.cat, op.name)
				} else {
					c.w.End(o.th.track, t-min(t, c.base), op.cat, op.name)
				}
			}
			return
		}
	}
	switch op.kind {
	case opEpoch:
		o.epochLow, o.epochStart = o.epochStart, t
		if o.epochLow != 0 || o.epochStart != t {
			o.epochLow = o.lastWritten()
		}
	case opBegin:
		f := oframe{start: t, hold: -1}
		if c.o.MaxDepth > 0 && int(op.depth) >= c.o.MaxDepth {
			f.skip = true
			c.sum.CutDepth++
		}
		o.frame = append(o.frame, f)
		if f.skip {
			break
		}
		if c.o.MinDuration > 0 {
			fr := &o.frame[len(o.frame)-1]
			fr.hold = int32(len(o.held))
			o.undecided++
			o.held = append(o.held, rec{kind: recBegin, t: t, cat: op.cat, name: op.name, info: op.info,
				frame: int32(len(o.frame) - 1), undecide: true})
			break
		}
		o.frame[len(o.frame)-1].written = true
		o.out(rec{kind: recBegin, t: t, cat: op.cat, name: op.name, info: op.info})
	case opEnd:
		if len(o.frame) == 0 {
			return
		}
		f := o.frame[len(o.frame)-1]
		o.frame = o.frame[:len(o.frame)-1]
		switch {
		case f.skip:
		case f.hold >= 0 && o.held[f.hold].undecide:
			o.undecided--
			if t-f.start >= c.o.MinDuration {
				o.held[f.hold].undecide = false
				o.out(rec{kind: recEnd, t: t, cat: op.cat, name: op.name})
			} else {
				o.held[f.hold].kind = recHole
				o.held[f.hold].undecide = false
				c.sum.CutShort++
			}
		default:
			o.out(rec{kind: recEnd, t: t, cat: op.cat, name: op.name})
		}
	case opInferred:
		start := o.epochLow
		if o.epochStart > uint64(op.k) && o.epochStart-uint64(op.k) > start {
			start = o.epochStart - uint64(op.k)
		}
		if start > t {
			start = t
		}
		if c.o.MinDuration > 0 && t-start < c.o.MinDuration {
			c.sum.CutShort++
			break
		}
		o.out(rec{kind: recComplete, t: start, t2: t, cat: op.cat, name: op.name, info: op.info})
	case opInstant, opCounter:
		r := rec{kind: recInstant, t: t, cat: op.cat, name: op.name}
		if op.kind == opCounter {
			r.kind = recCounter
		}
		args := o.th.clk.args[op.a0:op.a1]
		if len(o.held) > 0 {
			r.a0 = int32(len(o.hargs))
			o.hargs = append(o.hargs, args...)
			r.a1 = int32(len(o.hargs))
		}
		o.outArgs(r, args)
	}
	if len(o.held) > 0 {
		o.release()
	}
}

// between is clock.resolve and emit for the ops q between the points
// (p0, t0) and (p1, t1), when the converter is direct and writes FXT or
// JSON: the Begins and Ends go straight to the writer (fxtFast's loop
// for most of them in FXT).
func (o *output) between(q []op, t0, t1, p0, p1 uint64) {
	f := o.tl.fxt
	sp := newSpan(t0, t1, p0, p1)
	timed := 0 // q[:timed] have their times (fxtFast)
	for i := 0; i < len(q); i++ {
		if f != nil && !slowOnly {
			if timed <= i {
				timed = i + times(q[i:], &sp, o.last)
			}
			if i = o.fxtFast(q, i, timed); i == len(q) {
				break
			}
		}
		op := &q[i]
		if op.timed || op.kind != opBegin && op.kind != opEnd {
			if !op.timed {
				op.t = sp.at(op.pos)
			}
			o.emit(op)
			continue
		}
		o.now(&sp, op.pos, op.kind, op.cat, op.name, op.info)
	}
}

// now is between for one Begin or End (kind) at instruction boundary pos
// of interval sp, of category cat and name (info's, if set: a call whose
// target was learnt late; info gives a Begin's arguments): it is timed
// (never before the last record) and written.
func (o *output) now(sp *span, pos uint64, kind opKind, cat, name Str, info *fnInfo) {
	c := o.tl
	f, tr := c.fxt, o.th.track
	t, ok := o.slice(kind == opBegin, sp.at(pos))
	if !ok {
		return // an End with no slice open
	}
	ts := t - min(t, c.base)
	if info != nil && info.name != 0 {
		name = info.name
	}
	if kind == opBegin {
		if args := info.argList(); f == nil {
			c.json.Begin(tr, ts, cat, name, args)
		} else if !f.cachedEvent(fxtBegin, tr, ts, cat, name, args) {
			f.event(fxtBegin, tr, ts, cat, name, args, 0, false)
		}
	} else if f == nil {
		c.json.End(tr, ts, cat, name)
	} else if !f.cachedEvent(fxtEnd, tr, ts, cat, name, nil) {
		f.event(fxtEnd, tr, ts, cat, name, nil, 0, false)
	}
}

// slice keeps the account of a Begin (begin) or End at time tm, never
// before the last record, for the writers that time one record at a time
// (now, and thread.directRuns' and tailRecord's cached records): it
// returns the time to write, and false for an End with no slice open
// (not written).
func (o *output) slice(begin bool, tm uint64) (uint64, bool) {
	c := o.tl
	tm = max(tm, o.last)
	o.last = tm
	if begin {
		o.open++
		if tm < c.base {
			c.sum.BeforeBase++
		}
		c.sum.Slices++
	} else if o.open > 0 {
		o.open--
	} else {
		return tm, false
	}
	return tm, true
}

// fxtFast is between's loop for the Begins and Ends q[i:end], which
// times has timed: it writes them as between would while FXT has their
// records in its recent cache (FXT.cachedEvent), in a loop without calls,
// and returns where it stopped (end, or an op whose record is not
// cached).
func (o *output) fxtFast(q []op, i, end int) int {
	c := o.tl
	f := c.fxt
	if tr := o.th.track; int(tr) >= len(f.tidx) || f.tidx[tr] == 0 {
		return i // the thread record first (FXT.event)
	}
	thr := uint64(f.tidx[o.th.track]) << 24
	open := o.open
	buf := f.buf
	for ; i < end; i++ {
		op := &q[i]
		if op.kind == opEnd && open == 0 {
			o.last = op.t // an End with no slice open
			continue
		}
		name := op.name
		if op.info != nil && op.info.name != 0 {
			name = op.info.name // a call whose target was learnt late
		}
		var args []Arg
		typ := uint64(fxtEnd)
		if op.kind == opBegin {
			args, typ = op.info.argList(), fxtBegin
		}
		e := &f.recent[recentIdx(op.cat, name)]
		if e.name != name || e.cat != op.cat || e.epoch != f.epoch || e.nargs != len(args) || len(args) > 0 && e.args != &args[0] {
			break
		}
		t := op.t
		o.last = t
		if typ == fxtBegin {
			open++
			if t < c.base {
				c.sum.BeforeBase++
			}
			c.sum.Slices++
		} else {
			open--
		}
		// (The buffer has room: it is flushed once past fxtFlushAt,
		// well before its capacity.)
		buf = e.put(buf, typ<<16|thr, t-min(t, c.base))
		if len(buf) >= fxtFlushAt {
			f.buf = buf
			f.flush()
			buf = f.buf
		}
	}
	f.buf = buf
	o.open = open
	return i
}

// times sets the time of the Begins and Ends at the start of q, as
// between would (sp.at(op.pos), never before the last), and returns how
// many there are.
func times(q []op, sp *span, last uint64) int {
	for i := range q {
		op := &q[i]
		if op.timed || op.kind != opBegin && op.kind != opEnd {
			return i
		}
		// sp.at(op.pos), inline.
		var t uint64
		switch p := op.pos; {
		case !sp.ok || p <= sp.p0:
			t = sp.t0
		case p >= sp.p1:
			t = sp.t1
		default:
			hi, n := bits.Mul64(sp.dt, p-sp.p0)
			if hi != 0 || n>>63 != 0 {
				t = sp.exact(p)
				break
			}
			q, _ := bits.Mul64(n, sp.inv)
			if n-q*sp.dp >= sp.dp {
				q++
			}
			t = sp.t0 + q
		}
		last = max(t, last)
		op.t = last
	}
	return len(q)
}

// lastWritten is the time of the last record that went out or waits.
func (o *output) lastWritten() uint64 { return o.last }

// decide marks the undecided frames that have lasted the minimum by t.
func (o *output) decide(t uint64) {
	for i := range o.frame {
		f := &o.frame[i]
		if f.hold < 0 || f.skip || !o.held[f.hold].undecide {
			continue
		}
		if t-f.start < o.tl.o.MinDuration {
			return // younger frames started later
		}
		o.held[f.hold].undecide = false
		f.written = true
		o.undecided--
	}
}

// out sends a record without arguments of its own.
func (o *output) out(r rec) { o.outArgs(r, nil) }

// outArgs queues r behind an undecided Begin, or writes it.
func (o *output) outArgs(r rec, args []Arg) {
	if o.undecided > 0 || len(o.held) > 0 {
		if args != nil && r.a1 == 0 {
			r.a0 = int32(len(o.hargs))
			o.hargs = append(o.hargs, args...)
			r.a1 = int32(len(o.hargs))
		}
		o.held = append(o.held, r)
		return
	}
	o.write(&r, args)
}

// release writes the held records up to the first undecided Begin.
func (o *output) release() {
	n := 0
	for n < len(o.held) && !o.held[n].undecide {
		r := &o.held[n]
		if r.kind != recHole {
			o.write(r, o.hargs[r.a0:r.a1])
		}
		n++
	}
	if n == 0 {
		return
	}
	// Renumber the undecided Begins' places.
	rest := copy(o.held, o.held[n:])
	o.held = o.held[:rest]
	for i := range o.frame {
		if o.frame[i].hold >= 0 {
			o.frame[i].hold -= int32(n)
			if o.frame[i].hold < 0 {
				o.frame[i].hold = -1
			}
		}
	}
	if rest == 0 {
		o.hargs = o.hargs[:0]
	}
}

// write applies the --time window and writes r.
func (o *output) write(r *rec, args []Arg) {
	c := o.tl
	from, to := c.o.TimeFrom, c.o.TimeTo
	if from == 0 && to == 0 {
		o.put(r, args)
		return
	}
	if o.pastWin {
		c.sum.CutTime++
		return
	}
	if from != 0 && r.t < from && r.kind != recComplete {
		switch r.kind {
		case recBegin:
			o.win = append(o.win, winFrame{r.cat, r.name, r.info, true})
		case recEnd:
			if len(o.win) > 0 {
				o.win = o.win[:len(o.win)-1]
			}
		}
		c.sum.CutTime++
		return
	}
	if to != 0 && (r.t > to || r.kind == recComplete && r.t2 > to && r.t > to) {
		// Leave the window: the open slices end at its end.
		for i := len(o.win) - 1; i >= 0; i-- {
			w := o.win[i]
			if !w.pre {
				c.w.End(o.th.track, to-c.base, c.catClipped, w.name)
			}
		}
		o.win = o.win[:0]
		o.pastWin = true
		c.sum.CutTime++
		return
	}
	if !o.inWin {
		o.inWin = true
		if from != 0 {
			for i := range o.win {
				w := &o.win[i]
				c.w.Begin(o.th.track, max(from, c.base)-c.base, c.catClipped, w.name, w.info.argList())
				w.pre = false
			}
		}
	}
	switch r.kind {
	case recBegin:
		o.win = append(o.win, winFrame{r.cat, r.name, r.info, false})
	case recEnd:
		if len(o.win) > 0 {
			o.win = o.win[:len(o.win)-1]
		}
	case recComplete:
		if from != 0 && r.t2 < from {
			c.sum.CutTime++
			return
		}
		rr := *r
		rr.t = max(rr.t, from)
		if to != 0 {
			rr.t2 = min(rr.t2, to)
		}
		o.put(&rr, args)
		return
	}
	o.put(r, args)
}

// put hands r to the Writer, the base time subtracted.
func (o *output) put(r *rec, args []Arg) {
	c := o.tl
	tr := o.th.track
	if r.t < c.base && r.kind != recComplete {
		c.sum.BeforeBase++
	}
	t := r.t - min(r.t, c.base)
	switch r.kind {
	case recBegin:
		c.w.Begin(tr, t, r.cat, r.name, r.info.argList())
		c.sum.Slices++
	case recEnd:
		c.w.End(tr, t, r.cat, r.name)
	case recComplete:
		c.w.Complete(tr, t, r.t2-min(r.t2, c.base), r.cat, r.name, r.info.argList())
		c.sum.Slices++
	case recInstant:
		c.w.Instant(tr, t, r.cat, r.name, args)
		c.sum.Instants++
	case recCounter:
		c.w.Counter(tr, t, r.cat, r.name, args)
	}
}

// finish writes what is held: the undecided Begins are decided at the
// end time.
func (o *output) finish() {
	if o.undecided > 0 {
		for i := range o.held {
			if o.held[i].undecide {
				o.held[i].undecide = false
				o.held[i].kind = recHole
				o.tl.sum.CutShort++
			}
		}
		o.undecided = 0
	}
	o.release()
	if o.tl.o.TimeTo != 0 && !o.pastWin {
		for i := len(o.win) - 1; i >= 0; i-- {
			if !o.win[i].pre {
				o.tl.w.End(o.th.track, o.last-min(o.last, o.tl.base), o.tl.catEnd, o.win[i].name)
			}
		}
		o.win = o.win[:0]
	}
}
