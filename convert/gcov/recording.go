package gcov

import (
	"debug/elf"
	"math"
	"sort"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/ptagg"
	"github.com/perfpt/perfpt/convert/session"
)

// RecordingOptions configure FromRecording.
type RecordingOptions struct {
	Workers    int    // PT decode workers
	Symfs      string // perf's --symfs
	PIDs, TIDs map[int32]bool
}

// tracked is one executed object with debug information.
type tracked struct {
	prog   *Program
	counts *Counts
	segs   []elf.ProgHeader
}

// vaddr converts a file offset into the ELF virtual address space.
func (t *tracked) vaddr(off uint64) uint64 {
	for _, s := range t.segs {
		if off >= s.Off && off < s.Off+s.Filesz {
			return off - s.Off + s.Vaddr
		}
	}
	return off
}

// noThread returns Aggregator.last before the first block: no thread
// (perf's tids are at least -1) and an empty segment, so the fast path
// never takes it.
func noThread() *threadCache { return &threadCache{id: pidTID{math.MinInt32, math.MinInt32}} }

// pidTID names a thread of a process (one comparison in the fast path).
type pidTID struct{ pid, tid int32 }

// threadCache remembers, per thread, the map its last block was in.
type threadCache struct {
	mp *machine.Map
	tr *tracked
	ct *thread // the thread's state in tr.counts
	id pidTID  // the pid is -1 until the thread's first run in tr
	// Addresses in [vlo, vlo+vlen) of mp lie in one segment of tr: their
	// link-time address is ip + vdelta (wrapping). vlen is 0 when tr is
	// nil or the segment is not known yet.
	vlo, vlen, vdelta uint64
}

// linkAddr returns the link-time address of ip, which lies in tc.mp,
// remembering the segment it is in.
func (tc *threadCache) linkAddr(ip uint64) uint64 {
	if ip-tc.vlo < tc.vlen {
		return ip + tc.vdelta
	}
	off := tc.mp.MapIP(ip)
	mdelta := off - ip
	for _, s := range tc.tr.segs {
		if off >= s.Off && off < s.Off+s.Filesz {
			// The segment's addresses in this mapping, clipped to it.
			lo, hi := max(s.Off-mdelta, tc.mp.Start), min(s.Off+s.Filesz-mdelta, tc.mp.End)
			if lo < hi {
				tc.vlo, tc.vlen = lo, hi-lo
			}
			tc.vdelta = mdelta - s.Off + s.Vaddr
			return off - s.Off + s.Vaddr
		}
	}
	return tc.tr.vaddr(off)
}

// Aggregator feeds decoded PT blocks of a session into per-object Counts.
// Use Runs as the session's Runs handler (with LeanRuns), or Handler as
// its Block handler.
type Aggregator struct {
	// Symfs is where source files are also looked for (perf's --symfs).
	Symfs   string
	m       *machine.Machine
	objs    map[*machine.DSO]*tracked
	threads map[int32]*threadCache
	order   []*tracked
	last    *threadCache // the thread of the previous block, or noThread
	handle  func(*session.Block)
}

// NewAggregator returns an Aggregator resolving addresses with m.
func NewAggregator(m *machine.Machine) *Aggregator {
	a := &Aggregator{m: m, objs: map[*machine.DSO]*tracked{}, threads: map[int32]*threadCache{}, last: noThread()}
	a.handle = a.newHandle()
	return a
}

func (a *Aggregator) object(d *machine.DSO) *tracked {
	if t, ok := a.objs[d]; ok {
		return t
	}
	a.objs[d] = nil
	if d.Kernel {
		return nil
	}
	path := d.File()
	if path == "" {
		return nil
	}
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	var segs []elf.ProgHeader
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			segs = append(segs, p.ProgHeader)
		}
	}
	hasDebug := f.Section(".debug_info") != nil
	f.Close()
	if !hasDebug {
		return nil
	}
	p, err := LoadOptions{Symfs: a.Symfs}.Load(path)
	if err != nil || len(p.insns) == 0 {
		return nil
	}
	t := &tracked{prog: p, counts: NewCounts(p), segs: segs}
	a.objs[d] = t
	a.order = append(a.order, t)
	return t
}

// Block takes one decoded run of instructions.
func (a *Aggregator) Block(b *session.Block) { a.handle(b) }

// Handler returns the session Block handler of a: Block's work in a
// closure, so that the session's call per block reaches it directly (a
// method value a.Block would add a call through its wrapper). The session
// hands each Block over in place; in batches (Handler.Blocks) it would
// copy each one first, which costs more than the call.
func (a *Aggregator) Handler() func(*session.Block) { return a.handle }

// newHandle returns the function behind Block and Handler. It is not
// inlined: the copies of the closure made where newHandle is inlined do
// not inline count (Go 1.26).
//
//go:noinline
func (a *Aggregator) newHandle() func(*session.Block) {
	return func(b *session.Block) {
		id := pidTID{b.PID, b.TID}
		if tc := a.last; tc.id != id || !tc.count(b.Start, b.End) {
			a.block(id, b.Start, b.End)
		}
	}
}

// Runs takes a batch of runs of one thread (session.Handler.Runs, with
// LeanRuns: gcov reads only Start and End). It is the cheapest delivery:
// runs of 32 bytes written in place, and one call per batch.
func (a *Aggregator) Runs(b *session.RunBatch) {
	id := pidTID{b.PID, b.TID}
	rs := b.Runs
	for len(rs) > 0 {
		if tc := a.last; tc.id == id {
			if rs = rs[tc.countRuns(rs):]; len(rs) == 0 {
				return
			}
		}
		a.block(id, rs[0].Start, rs[0].End)
		rs = rs[1:]
	}
}

// countRuns is count over the leading runs of rs, with the thread's
// current run kept in a register: it returns how many runs it counted.
func (tc *threadCache) countRuns(rs []session.Run) int {
	if tc.vlen == 0 {
		return 0
	}
	t := tc.ct
	cur := t.cur
	vlo, vlen, vdelta := tc.vlo, tc.vlen, tc.vdelta
	i := 0
	for ; i < len(rs); i++ {
		r := &rs[i]
		if r.Start-vlo >= vlen {
			break
		}
		k := runKey{r.Start + vdelta, r.End + vdelta}
		s := &cur.s[0]
		if s.key != k {
			s = &cur.s[1]
		}
		if s.key != k {
			break
		}
		s.n++
		cur = s.to
	}
	t.cur = cur
	return i
}

// count is the fast path of a run from start to end (run-time addresses)
// of the thread of tc, where the previous run of the thread was: the run
// lies in the same segment of a tracked object and is one of the previous
// run's two inline successors again. It counts the run and reports
// whether it did. A successor is a run of the program, so the run needs no
// range check, and unused slots hold noRun, which matches no run. count
// is small enough to be inlined.
func (tc *threadCache) count(start, end uint64) bool {
	if start-tc.vlo >= tc.vlen {
		return false
	}
	k := runKey{start + tc.vdelta, end + tc.vdelta}
	t := tc.ct
	prev := t.cur
	s := &prev.s[0]
	if s.key != k {
		s = &prev.s[1]
	}
	if s.key != k {
		return false
	}
	s.n++
	t.cur = s.to
	return true
}

// block is the path of a run that the fast path does not count: a new
// successor, or a thread or map change.
func (a *Aggregator) block(id pidTID, bstart, bend uint64) {
	pid, tid := id.pid, id.tid
	tc := a.last
	if tc.id.tid != tid {
		tc = a.threads[tid]
		if tc == nil {
			tc = &threadCache{id: pidTID{-1, tid}}
			a.threads[tid] = tc
		}
		a.last = tc
	}
	mp := tc.mp
	if mp == nil || bstart < mp.Start || bstart >= mp.End {
		var nmp *machine.Map
		if t := a.m.FindThread(tid); t != nil {
			nmp = t.Maps.Find(bstart)
		}
		var tr *tracked
		if nmp != nil && nmp.DSO != nil {
			tr = a.object(nmp.DSO)
		}
		if tc.tr != nil && tc.tr != tr {
			tc.tr.counts.Leave(int64(tid))
		}
		tc.mp, tc.tr, tc.ct = nmp, tr, nil
		if tr != nil {
			tc.ct = tr.counts.thread(int64(tid))
		}
		tc.vlo, tc.vlen = 0, 0
	}
	tr := tc.tr
	if tr == nil {
		return
	}
	if tc.id.pid != pid {
		tc.id.pid = pid
		tr.counts.Process(int64(pid))
	}
	start := tc.linkAddr(bstart)
	tr.counts.step(tc.ct, start, start+(bend-bstart))
}

// Report returns the coverage of every object seen, merged by source file.
func (a *Aggregator) Report() *Report {
	var reps []*Report
	for _, t := range a.order {
		reps = append(reps, t.prog.Report(t.counts))
	}
	return Merge(reps...)
}

// Programs returns the objects with debug information that ran.
func (a *Aggregator) Programs() []*Program {
	var ps []*Program
	for _, t := range a.order {
		ps = append(ps, t.prog)
	}
	return ps
}

// FromRecording decodes the Intel PT recording at path and returns the
// coverage of every executed ELF object that has DWARF line information
// (the traced program, and libraries built with -g), with the programs
// (for their source text).
func FromRecording(path string, o RecordingOptions) (*Report, []*Program, error) {
	// The session delivers decoded blocks; synthesise no samples but the
	// errors (a bare decode).
	s, err := session.Open(path, session.Options{Symfs: o.Symfs, Workers: o.Workers, PIDs: o.PIDs, TIDs: o.TIDs,
		Itrace: BareItrace()})
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	a := NewAggregator(s.Machine())
	a.Symfs = o.Symfs
	// The decoder counts how often each block followed each other per
	// thread (ptagg.Options.Edges, which takes only the runs of PIDs and
	// TIDs): Counts are made of those counts at the end.
	agg := ptagg.New(s.Machine(), ptagg.Options{PIDs: o.PIDs, TIDs: o.TIDs, Edges: true})
	if err := s.Run(session.Handler{Agg: agg}); err != nil {
		return nil, nil, err
	}
	a.AddEdges(agg.EdgeCounts())
	return a.Report(), a.Programs(), nil
}

// AddEdges adds edge counts of the decoded flow (ptagg.Agg.EdgeCounts) to
// the Counts of the objects they are in, as Runs would have counted the
// runs in execution order: a run after one in the same object (and in its
// code's span) is an edge from it, after anything else from outside, and
// a thread's first from the unknown predecessor (the report counts both
// alike). Addresses are resolved with the maps of the threads at the end
// of the session.
func (a *Aggregator) AddEdges(es []ptagg.Edge) {
	for i := range es {
		e := &es[i]
		th := a.m.FindThread(e.TID)
		if th == nil {
			continue
		}
		mp := th.Maps.Find(e.Start)
		if mp == nil || mp.DSO == nil {
			continue
		}
		tr := a.object(mp.DSO)
		if tr == nil {
			continue
		}
		c := tr.counts
		c.Process(int64(e.PID))
		start := tr.vaddr(mp.MapIP(e.Start))
		if !c.InRange(start) {
			continue // (Counts.step: not counted)
		}
		from := c.unknown
		if e.From != 0 || e.FromEnd != 0 {
			from = c.outside
			if fm := th.Maps.Find(e.From); fm != nil && fm.DSO != nil && a.object(fm.DSO) == tr {
				if fs := tr.vaddr(fm.MapIP(e.From)); c.InRange(fs) {
					from = c.run(runKey{fs, fs + (e.FromEnd - e.From)})
				}
			}
		}
		from.addEdge(c.run(runKey{start, start + (e.End - e.Start)}), e.N)
	}
}

// Merge combines reports of several objects: files of the same name are
// merged line by line, counts added.
func Merge(reps ...*Report) *Report {
	if len(reps) == 1 {
		return reps[0]
	}
	out := &Report{}
	byName := map[string]*File{}
	for _, r := range reps {
		out.Runs = max(out.Runs, r.Runs)
		for _, f := range r.Files {
			have := byName[f.Name]
			if have == nil {
				byName[f.Name] = f
				out.Files = append(out.Files, f)
				continue
			}
			lines := map[int]*Line{}
			for _, l := range have.Lines {
				lines[l.Number] = l
			}
			for _, l := range f.Lines {
				if h := lines[l.Number]; h != nil {
					h.Count += l.Count
					h.Unexecuted = h.Unexecuted && l.Unexecuted
				} else {
					have.Lines = append(have.Lines, l)
				}
			}
			sort.Slice(have.Lines, func(i, j int) bool { return have.Lines[i].Number < have.Lines[j].Number })
			have.Functions = append(have.Functions, f.Functions...)
		}
	}
	if out.Runs == 0 {
		out.Runs = 1
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Name < out.Files[j].Name })
	return out
}
