package gcov

// runKey names a straight-line run of instructions: from start up to and
// including the instruction at last.
type runKey struct{ start, last uint64 }

type succ struct {
	to *run
	n  uint64
}

// run is one distinct straight-line run with its execution count and the
// runs that followed it.
type run struct {
	key  runKey
	n    uint64
	succ []succ
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
		outside: &run{}, unknown: &run{}, procs: map[int64]bool{}}
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
func (c *Counts) Run(tid int64, start, last uint64) {
	t := c.thread(tid)
	if start < c.lo || start >= c.hi {
		t.cur = c.outside
		return
	}
	prev := t.cur
	for i := range prev.succ {
		s := &prev.succ[i]
		if s.to.key.start == start && s.to.key.last == last {
			s.n++
			s.to.n++
			t.cur = s.to
			return
		}
	}
	k := runKey{start, last}
	r := c.runs[k]
	if r == nil {
		r = &run{key: k}
		c.runs[k] = r
	}
	r.n++
	prev.succ = append(prev.succ, succ{to: r, n: 1})
	if prev == c.unknown && !t.seen {
		t.first = r
	}
	t.seen = true
	t.cur = r
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
			m = &run{key: r.key}
			c.runs[r.key] = m
		}
		local[r] = m
		return m
	}
	addEdge := func(from, to *run, n uint64) {
		for i := range from.succ {
			if from.succ[i].to == to {
				from.succ[i].n += n
				return
			}
		}
		from.succ = append(from.succ, succ{to: to, n: n})
	}
	all := make([]*run, 0, len(o.runs)+2)
	all = append(all, o.outside, o.unknown)
	for _, r := range o.runs {
		all = append(all, r)
	}
	for _, r := range all {
		m := get(r)
		m.n += r.n
		for _, s := range r.succ {
			addEdge(m, get(s.to), s.n)
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
			for i := range c.unknown.succ {
				if s := &c.unknown.succ[i]; s.to == f && s.n > 0 {
					s.n--
					addEdge(ct.cur, f, 1)
					break
				}
			}
		}
		ct.seen = ct.seen || ot.seen
		ct.cur = get(ot.cur)
	}
	for pid := range o.procs {
		c.procs[pid] = true
	}
}
