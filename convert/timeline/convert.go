package timeline

import (
	"fmt"
	"slices"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/internal/perfopt"
)

// Options configures a timeline.
type Options struct {
	Symfs    string // perf's --symfs
	Kallsyms string // kallsyms file ("": /proc/kallsyms)
	// Workers decodes PT with that many goroutines (perf script -j; <1:
	// one per CPU) where the session can (see Summary.Parallel).
	Workers int
	// Itrace selects the PT events besides the flow: Errors, Ptwrites,
	// Transactions, PwrEvents (CBR and power events); nil: all of them.
	// Ptwrites, Transactions and PwrEvents make the session decode in
	// sequence, as perf script does.
	Itrace *sample.Itrace
	// PIDs, TIDs keep only these processes and threads (nil: all).
	PIDs, TIDs map[int32]bool
	// TimeFrom, TimeTo keep the window [TimeFrom, TimeTo] of perf's
	// times (0: open). Time, when set, gives the window as perf script's
	// --time (session.Options.Time), which may be a percentage of the
	// recording; it must be one range.
	TimeFrom, TimeTo uint64
	Time             string
	// MinDuration leaves out slices shorter than this (ns).
	MinDuration uint64
	// MaxDepth leaves out slices deeper than this many calls (0: all).
	MaxDepth int
	// Progress, when set, is told now and then how far the decode is.
	Progress func(done, total int64)
}

// timeRanges is the window as the session's time ranges.
func (o *Options) timeRanges() perfopt.TimeRanges {
	if o.TimeFrom == 0 && o.TimeTo == 0 {
		return nil
	}
	return perfopt.TimeRanges{{Start: o.TimeFrom, End: o.TimeTo}}
}

// Summary says what a timeline holds and what was left out.
type Summary struct {
	Threads  int   // thread tracks
	Slices   int64 // slices written
	Instants int64 // instant events written
	Samples  int64 // samples of sampled events
	Errors   int64 // decode errors
	// Cut: slices left out by --min-duration, by --max-depth, and
	// events outside --time.
	CutShort, CutDepth, CutTime int64
	// Filtered counts the runs of threads --pid/--tid left out.
	Filtered int64
	// Timeless: the recording has no timestamps; the timeline counts
	// instructions.
	Timeless bool
	// Parallel: the PT decode could run in parallel chunks.
	Parallel bool
	// BeforeBase counts events timed before the base time (placed at it).
	BeforeBase int64
	// Base is the time (perf's, ns) subtracted from every timestamp.
	Base uint64
}

func (s *Summary) String() string {
	b := fmt.Sprintf("%d threads, %d slices, %d instants", s.Threads, s.Slices, s.Instants)
	if s.Samples > 0 {
		b += fmt.Sprintf(", %d samples", s.Samples)
	}
	if s.Errors > 0 {
		b += fmt.Sprintf(", %d decode errors", s.Errors)
	}
	var cut []string
	if s.CutShort > 0 {
		cut = append(cut, fmt.Sprintf("%d slices shorter than --min-duration", s.CutShort))
	}
	if s.CutDepth > 0 {
		cut = append(cut, fmt.Sprintf("%d slices deeper than --max-depth", s.CutDepth))
	}
	if s.CutTime > 0 {
		cut = append(cut, fmt.Sprintf("%d events outside --time", s.CutTime))
	}
	if s.Filtered > 0 {
		cut = append(cut, fmt.Sprintf("%d runs of threads not selected by --pid/--tid", s.Filtered))
	}
	if len(cut) > 0 {
		b += "; left out: "
		for i, c := range cut {
			if i > 0 {
				b += ", "
			}
			b += c
		}
	}
	return b
}

// converter turns a session into timeline events.
type converter struct {
	o Options
	w Writer
	// fxt is w when it is the Fuchsia writer, json when it is the JSON
	// one: the output stage calls their Begin and End directly.
	fxt  *FXT
	json *JSON
	strs *Strings
	sum  Summary
	s    *session.Session
	m    *machine.Machine

	base      uint64 // subtracted from every time
	baseKnown bool
	// direct: no --min-duration, --max-depth or --time: the output stage
	// writes Begins and Ends at once.
	direct   bool
	timeless bool
	tlKnown  bool // timeless was decided (first run batch)

	threads map[int64]*thread
	last    *thread
	fns     map[int32]*fnCache
	procs   map[int32]Str // processes named, and their names
	execs   map[int32][]uint64
	ntracks int32
	side    *sideband
	scratch []byte
	txInfo  *fnInfo

	// Interned names.
	catCall, catReturn, catUnwind, catTail, catJump, catSignal       Str
	catSyscall, catInterrupt, catUntraced, catError, catEnd, catExec Str
	catInferred, catInferredTail, catInferredError, catInferredEnd   Str
	catInferredExec, catClipped, catTx, catSample, catTracepoint     Str
	catPower, catCommit, catAbort                                    Str
	argAddr, argDSO, argSrc, argCode, argIP, argMessage, argCPU      Str
	nameUnknown, nameError, nameAbort                                Str
	noArgs                                                           *fnInfo
}

func newConverter(w Writer, strs *Strings, o Options) *converter {
	if f, ok := w.(*File); ok {
		w = f.Writer // (not through File's methods: one call per event)
	}
	c := &converter{o: o, w: w, strs: strs, threads: map[int64]*thread{}, fns: map[int32]*fnCache{},
		procs: map[int32]Str{}, execs: map[int32][]uint64{}}
	c.fxt, _ = w.(*FXT)
	c.json, _ = w.(*JSON)
	s := strs.Intern
	c.catCall, c.catReturn, c.catUnwind, c.catTail = s("call"), s("return"), s("unwind"), s("tail")
	c.catJump, c.catSignal = s("jump"), s("signal")
	c.catSyscall, c.catInterrupt, c.catUntraced = s("syscall"), s("interrupt"), s("untraced")
	c.catError, c.catEnd, c.catExec = s("error"), s("end"), s("exec")
	c.catInferred, c.catInferredTail = s("inferred"), s("inferred,tail")
	c.catInferredError, c.catInferredEnd = s("inferred,error"), s("inferred,end")
	c.catInferredExec, c.catClipped, c.catTx = s("inferred,exec"), s("clipped"), s("transaction")
	c.catSample, c.catTracepoint, c.catPower = s("sample"), s("tracepoint"), s("power")
	c.argAddr, c.argDSO, c.argSrc = s("addr"), s("dso"), s("src")
	c.argCode, c.argIP, c.argMessage, c.argCPU = s("code"), s("ip"), s("message"), s("cpu")
	c.nameUnknown, c.nameError, c.nameAbort = s("[unknown]"), s("instruction trace error"), s("transaction abort")
	c.catCommit, c.catAbort = s("commit"), s("abort")
	c.direct = o.MinDuration == 0 && o.MaxDepth == 0 && o.TimeFrom == 0 && o.TimeTo == 0
	c.noArgs = &fnInfo{}
	c.txInfo = &fnInfo{name: s("transaction")}
	return c
}

// DefaultItrace is what a timeline shows of PT by default: decode
// errors, PTWRITE, transactions, CBR and power events (perf's
// --itrace=ewxp).
func DefaultItrace() *sample.Itrace {
	return &sample.Itrace{Set: true, Errors: true, Ptwrites: true, Transactions: true, PwrEvents: true}
}

// Convert writes the timeline of the recording at input to w, whose
// strings strs interns. It does not close w.
func Convert(input string, w Writer, strs *Strings, o Options) (*Summary, error) {
	it := o.Itrace
	if it == nil {
		it = DefaultItrace()
	}
	it.Set = true
	so := session.Options{Symfs: o.Symfs, Kallsyms: o.Kallsyms, Workers: o.Workers, Itrace: it,
		Callchains: true, PIDs: o.PIDs, TIDs: o.TIDs, Time: o.Time, TimeRanges: o.timeRanges()}
	s, err := session.Open(input, so)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if o.Time != "" {
		switch r := s.TimeRanges(); len(r) {
		case 0:
		case 1:
			o.TimeFrom, o.TimeTo = r[0].Start, r[0].End
		default:
			return nil, fmt.Errorf("--time %q: %d ranges, but a timeline shows one window", o.Time, len(r))
		}
	}
	c := newConverter(w, strs, o)
	c.s, c.m = s, s.Machine()
	if input != "-" {
		if err := c.sidebandPass(); err != nil {
			return nil, err
		}
	}
	h := session.Handler{Runs: c.runs, RunStarts: true, FoldRuns: true, Error: c.decodeError, Sample: c.sample, Progress: o.Progress}
	c.sum.Parallel = s.ParallelDecode(h)
	if err := s.Run(h); err != nil {
		return nil, err
	}
	c.finish()
	return &c.sum, nil
}

// thread returns the thread pid/tid (the idle task: one per CPU),
// creating its track.
func (c *converter) thread(pid, tid, cpu int32) *thread {
	key := int64(tid)
	if tid == 0 && pid == 0 {
		key = -1 - int64(cpu)
	}
	if t := c.last; t != nil && t.key == key {
		return t
	}
	t := c.threads[key]
	if t == nil {
		t = &thread{c: c, pid: pid, tid: tid, cpu: cpu, key: key, track: Track(c.ntracks)}
		c.ntracks++
		t.out = output{tl: c, th: t}
		t.clk.timeless = c.timeless
		c.threads[key] = t
		c.sum.Threads++
		c.define(t)
	}
	c.last = t
	return t
}

// define names t's track and its process (again when a name changed).
func (c *converter) define(t *thread) {
	comm := ""
	if th := c.m.FindThread(t.tid); th != nil && th.PID == t.pid {
		comm = th.Comm
	}
	if comm == "" {
		comm = fmt.Sprintf(":%d", t.tid)
	}
	t.comm = comm
	pname := comm
	if lead := c.m.FindThread(t.pid); lead != nil && lead.Comm != "" {
		pname = lead.Comm
	}
	ps := c.strs.Intern(pname)
	if old, ok := c.procs[t.pid]; !ok || old != ps {
		c.procs[t.pid] = ps
		c.w.Process(t.pid, ps)
	}
	name := comm
	if t.tid == 0 && t.pid == 0 {
		name = fmt.Sprintf("%s/%d", comm, t.cpu)
	}
	c.w.Thread(t.track, t.pid, t.tid, c.strs.Intern(name))
}

// runs takes a batch of runs of one thread.
func (c *converter) runs(b *session.RunBatch) {
	if c.o.PIDs != nil && !c.o.PIDs[b.PID] || c.o.TIDs != nil && !c.o.TIDs[b.TID] {
		c.sum.Filtered += int64(len(b.Runs))
		return
	}
	if !c.baseKnown && b.Time != 0 {
		c.setBase(b.Time)
	}
	if !c.tlKnown {
		c.tlKnown = true
		c.timeless = b.Time == 0
		c.sum.Timeless = c.timeless
		if c.timeless {
			c.base = 0
			c.sum.Base = 0
			for _, t := range c.threads {
				t.clk.timeless = true
			}
		}
	}
	t := c.thread(b.PID, b.TID, b.CPU)
	t.cpu = b.CPU
	c.checkExec(t, b.Time)
	t.runs(b)
}

// checkExec ends t's stack at an exec (the thread's name changes, or
// the sideband recorded an exec before now).
func (c *converter) checkExec(t *thread, now uint64) {
	exec := false
	if ex := c.execs[t.tid]; len(ex) > 0 && (ex[0] <= now || c.timeless) {
		c.execs[t.tid] = ex[1:]
		exec = true
	}
	th := c.m.FindThread(t.tid)
	if th != nil && th.Comm != "" && th.Comm != t.comm {
		if c.side == nil {
			exec = true // no sideband pass: a new name is taken for an exec
		}
		c.define(t)
	}
	if exec && t.started {
		if t.stopped && !c.timeless && now != t.curTime {
			// The trace resumes in the new program at now: the gap
			// (the execve) ends then, as at a trace start, not at
			// the last time before the execve.
			t.push(op{kind: opPoint, pos: t.cum, t: now, gap: true})
			t.curTime = now
		}
		t.closeAll(c.catExec, c.catInferredExec)
		if fc := c.fns[t.pid]; fc != nil {
			fc.dropped = true
		}
		c.fns[t.pid] = nil
	}
}

// decodeError takes a decode error (or a recorded AUXTRACE_ERROR).
func (c *converter) decodeError(e *sample.ErrorLine) {
	if e.TID < 0 {
		c.sum.Errors++
		return
	}
	if c.o.PIDs != nil && !c.o.PIDs[e.PID] || c.o.TIDs != nil && !c.o.TIDs[e.TID] {
		return
	}
	t := c.thread(e.PID, e.TID, e.CPU)
	t.decodeError(e)
}

// sortedThreads returns the threads in the order of their tracks.
func (c *converter) sortedThreads() []*thread {
	ts := make([]*thread, 0, len(c.threads))
	for _, t := range c.threads {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b *thread) int { return int(a.track - b.track) })
	return ts
}

// finish ends every thread.
func (c *converter) finish() {
	for _, t := range c.sortedThreads() {
		t.finish()
	}
	if c.side != nil {
		for _, t := range c.threads {
			c.side.last = max(c.side.last, t.out.last)
		}
		c.side.finish()
	}
}
