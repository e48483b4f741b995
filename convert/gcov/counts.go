package gcov

// runKey names a straight-line run of instructions: from start up to and
// including the instruction at last.
type runKey struct{ start, last uint64 }

// succ is one run-to-run edge: the key of the run that followed, inline so
// that matching it reads no other memory.
type succ struct {
	key runKey
	to  *run
	n   uint64
}

// run is one distinct straight-line run with the runs that followed it. A
// run ending in a conditional jump has at most two successors: they sit in
// s, further ones (returns, indirect jumps) in more. Its execution count is
// the sum of its incoming edges (Counts.runCounts).
type run struct {
	key runKey
	ns  int32 // used entries of s
	// spill keeps every edge in more: the unknown sentinel's, so that no
	// fast path follows it without newEdge noting a thread's first run.
	spill bool
	s     [2]succ
	more  []succ
}

// noRun is the start and last of an unused inline successor slot: no
// run's address, so a lookup that compares only the keys never matches it.
const noRun = ^uint64(0)

// newRun returns the run of key k, without successors.
func newRun(k runKey) *run {
	r := &run{key: k}
	r.s[0].key = runKey{noRun, noRun}
	r.s[1].key = runKey{noRun, noRun}
	return r
}

// succs returns the edges of r (for the report and Merge, not the hot path).
func (r *run) succs() []succ {
	if len(r.more) == 0 {
		return r.s[:r.ns]
	}
	return append(append([]succ{}, r.s[:r.ns]...), r.more...)
}

// addEdge adds n to the edge r -> to, creating it.
func (r *run) addEdge(to *run, n uint64) {
	for i := range r.ns {
		if r.s[i].to == to {
			r.s[i].n += n
			return
		}
	}
	for i := range r.more {
		if r.more[i].to == to {
			r.more[i].n += n
			return
		}
	}
	e := succ{key: to.key, to: to, n: n}
	if int(r.ns) < len(r.s) && !r.spill {
		r.s[r.ns] = e
		r.ns++
		return
	}
	r.more = append(r.more, e)
}

type thread struct {
	cur   *run // the run executed last, or one of the sentinels
	first *run // the first run seen after the unknown sentinel, for Merge
	seen  bool
}

// Counts aggregates the executed control flow of one program: how often
// each straight-line run of its code ran and which run followed which. It
// never stores one record per instruction or per run executed, so the cost
// per run is a short scan of the previous run's successors.
//
// A decoder feeds it, per thread in execution order, with Run for every
// straight-line run inside the program (file-relative addresses) and Leave
// when control goes elsewhere (shared libraries, the kernel, a trace gap).
// Counts is not safe for concurrent use: use one per decoding goroutine and
// Merge them in trace order.
type Counts struct {
	prog    *Program
	lo, hi  uint64
	runs    map[runKey]*run
	threads map[int64]*thread
	// outside stands for code of other objects, unknown for a predecessor
	// that is not known (the start of a trace or of a parallel chunk).
	outside, unknown *run
	procs            map[int64]bool
	// last is the thread of tid lastTID (threads entries never change).
	last    *thread
	lastTID int64
}

// NewCounts returns an empty aggregation for p.
func NewCounts(p *Program) *Counts {
	c := &Counts{prog: p, runs: map[runKey]*run{}, threads: map[int64]*thread{},
		outside: newRun(runKey{}), unknown: newRun(runKey{}), procs: map[int64]bool{}}
	c.unknown.spill = true
	if len(p.insns) > 0 {
		c.lo, c.hi = p.insns[0].addr, p.insns[len(p.insns)-1].addr+1
	}
	return c
}

// InRange reports whether addr lies in the span of the program's functions:
// a cheap filter before Run.
func (c *Counts) InRange(addr uint64) bool { return addr >= c.lo && addr < c.hi }

func (c *Counts) thread(tid int64) *thread {
	// Runs come in long stretches of one thread: remember the last.
	if t := c.last; t != nil && c.lastTID == tid {
		return t
	}
	t := c.threads[tid]
	if t == nil {
		t = &thread{cur: c.unknown}
		c.threads[tid] = t
	}
	c.last, c.lastTID = t, tid
	return t
}

// Process counts pid as one run of the program (gcov's Runs).
func (c *Counts) Process(pid int64) { c.procs[pid] = true }

// Run records that thread tid executed the instructions from start up to and
// including the one at last, without a taken branch between them. Addresses
// outside the program count as Leave.
func (c *Counts) Run(tid int64, start, last uint64) { c.step(c.thread(tid), start, last) }

// step is Run for the thread state t: the per-block path of the Aggregator.
func (c *Counts) step(t *thread, start, last uint64) {
	if start-c.lo >= c.hi-c.lo {
		t.cur = c.outside
		return
	}
	prev := t.cur
	if prev == c.unknown {
		c.newEdge(t, prev, start, last)
		return
	}
	// The two inline successors first: most runs end in a conditional
	// jump or a call.
	k := runKey{start, last}
	if s := &prev.s[0]; s.key == k {
		s.n++
		t.cur = s.to
		return
	}
	if s := &prev.s[1]; s.key == k {
		s.n++
		t.cur = s.to
		return
	}
	for i := range prev.more {
		if s := &prev.more[i]; s.key == k {
			s.n++
			t.cur = s.to
			return
		}
	}
	c.newEdge(t, prev, start, last)
}

// newEdge adds a prev -> (start, last) edge of t's flow: its first, or one
// from the unknown sentinel, which notes the thread's first run for Merge.
func (c *Counts) newEdge(t *thread, prev *run, start, last uint64) {
	k := runKey{start, last}
	r := c.runs[k]
	if r == nil {
		r = newRun(k)
		c.runs[k] = r
	}
	prev.addEdge(r, 1)
	if prev == c.unknown && !t.seen {
		t.first = r
	}
	t.seen = true
	t.cur = r
}

// run returns the run of key k, made if need be.
func (c *Counts) run(k runKey) *run {
	r := c.runs[k]
	if r == nil {
		r = newRun(k)
		c.runs[k] = r
	}
	return r
}

// runCounts returns how often each run executed: the sum of its incoming
// edges (every execution of a run follows some run or a sentinel).
func (c *Counts) runCounts() map[*run]uint64 {
	n := make(map[*run]uint64, len(c.runs))
	add := func(r *run) {
		for i := range r.ns {
			n[r.s[i].to] += r.s[i].n
		}
		for _, s := range r.more {
			n[s.to] += s.n
		}
	}
	add(c.outside)
	add(c.unknown)
	for _, r := range c.runs {
		add(r)
	}
	return n
}

// Leave records that thread tid left the program's code.
func (c *Counts) Leave(tid int64) { c.thread(tid).cur = c.outside }

// Gap records that the predecessor of the next run of tid is unknown (lost
// trace data, a trace restarting).
func (c *Counts) Gap(tid int64) { c.thread(tid).cur = c.unknown }

// Merge adds o, which must have been fed the part of the trace that follows
// c's, into c. A thread's first run in o is joined to its last run in c.
func (c *Counts) Merge(o *Counts) {
	local := map[*run]*run{o.outside: c.outside, o.unknown: c.unknown}
	get := func(r *run) *run {
		if m, ok := local[r]; ok {
			return m
		}
		m := c.runs[r.key]
		if m == nil {
			m = newRun(r.key)
			c.runs[r.key] = m
		}
		local[r] = m
		return m
	}
	all := make([]*run, 0, len(o.runs)+2)
	all = append(all, o.outside, o.unknown)
	for _, r := range o.runs {
		all = append(all, r)
	}
	for _, r := range all {
		m := get(r)
		for _, s := range r.succs() {
			m.addEdge(get(s.to), s.n)
		}
	}
	for tid, ot := range o.threads {
		ct := c.threads[tid]
		if ct == nil {
			ct = &thread{cur: c.unknown}
			c.threads[tid] = ct
			if ot.first != nil {
				ct.first = get(ot.first)
			}
		} else if ot.first != nil && ct.cur != c.unknown {
			// Replace one unknown -> first edge by cur -> first.
			f := get(ot.first)
			if c.unknown.takeEdge(f) {
				ct.cur.addEdge(f, 1)
			}
		}
		ct.seen = ct.seen || ot.seen
		ct.cur = get(ot.cur)
	}
	for pid := range o.procs {
		c.procs[pid] = true
	}
}

// takeEdge removes one traversal of the edge r -> to, if it has one.
func (r *run) takeEdge(to *run) bool {
	for i := range r.ns {
		if s := &r.s[i]; s.to == to && s.n > 0 {
			s.n--
			return true
		}
	}
	for i := range r.more {
		if s := &r.more[i]; s.to == to && s.n > 0 {
			s.n--
			return true
		}
	}
	return false
}
