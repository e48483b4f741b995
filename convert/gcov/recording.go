package gcov

import (
	"debug/elf"
	"sort"

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

// threadCache remembers, per thread, the map its last block was in.
type threadCache struct {
	mp  *session.Map
	tr  *tracked
	ct  *thread // the thread's state in tr.counts
	pid int32
	tid int32
	// Addresses in [vlo, vlo+vlen) of mp lie in one segment of tr: their
	// link-time address is ip + vdelta (wrapping). vlen is 0 when tr is
	// nil or the segment is not known yet.
	vlo, vlen, vdelta uint64
	// lo, lo+span is the program's span (Counts.lo, Counts.hi).
	lo, span uint64
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
// Use Blocks as the session's Blocks handler (or Handler or Block as its
// Block handler).
type Aggregator struct {
	// Symfs is where source files are also looked for (perf's --symfs).
	Symfs   string
	m       *session.Machine
	objs    map[*session.DSO]*tracked
	threads map[int32]*threadCache
	order   []*tracked
	last    *threadCache // the thread of the previous block
	handle  func(*session.Block)
}

// NewAggregator returns an Aggregator resolving addresses with m.
func NewAggregator(m *session.Machine) *Aggregator {
	a := &Aggregator{m: m, objs: map[*session.DSO]*tracked{}, threads: map[int32]*threadCache{}}
	a.handle = a.newHandle()
	return a
}

func (a *Aggregator) object(d *session.DSO) *tracked {
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
// method value a.Block would add a call through its wrapper).
func (a *Aggregator) Handler() func(*session.Block) { return a.handle }

// newHandle returns the function behind Block and Handler.
func (a *Aggregator) newHandle() func(*session.Block) {
	return func(b *session.Block) {
		// The fast path: the same thread as the previous block, in the
		// same segment of a tracked object.
		if tc := a.last; tc != nil && tc.tid == b.TID && tc.pid == b.PID && b.Start-tc.vlo < tc.vlen {
			start, last := b.Start+tc.vdelta, b.End+tc.vdelta
			// Counts.step's first case inline: the previous run's
			// first successor again.
			t := tc.ct
			if prev := t.cur; prev.ns > 0 && prev.s[0].start == start && prev.s[0].last == last && start-tc.lo < tc.span {
				prev.s[0].n++
				t.cur = prev.s[0].to
				return
			}
			tc.tr.counts.step(t, start, last)
			return
		}
		a.block(b)
	}
}

// Blocks takes a batch of decoded runs (session.Handler.Blocks): the
// fast path of Block in a loop here, so that it is inlined and the session
// makes one call per batch instead of one per run.
func (a *Aggregator) Blocks(bs []session.Block) {
	for i := range bs {
		b := &bs[i]
		if tc := a.last; tc != nil && tc.tid == b.TID && tc.pid == b.PID && b.Start-tc.vlo < tc.vlen {
			start, last := b.Start+tc.vdelta, b.End+tc.vdelta
			t := tc.ct
			if prev := t.cur; prev.ns > 0 && prev.s[0].start == start && prev.s[0].last == last && start-tc.lo < tc.span {
				prev.s[0].n++
				t.cur = prev.s[0].to
				continue
			}
			tc.tr.counts.step(t, start, last)
			continue
		}
		a.block(b)
	}
}

// block is Block's path for a thread or map change.
func (a *Aggregator) block(b *session.Block) {
	tc := a.last
	if tc == nil || tc.tid != b.TID {
		tc = a.threads[b.TID]
		if tc == nil {
			tc = &threadCache{pid: -1, tid: b.TID}
			a.threads[b.TID] = tc
		}
		a.last = tc
	}
	mp := tc.mp
	if mp == nil || b.Start < mp.Start || b.Start >= mp.End {
		var nmp *session.Map
		if t := a.m.FindThread(b.TID); t != nil {
			nmp = t.Maps.Find(b.Start)
		}
		var tr *tracked
		if nmp != nil && nmp.DSO != nil {
			tr = a.object(nmp.DSO)
		}
		if tc.tr != nil && tc.tr != tr {
			tc.tr.counts.Leave(int64(b.TID))
		}
		tc.mp, tc.tr, tc.ct = nmp, tr, nil
		if tr != nil {
			tc.ct = tr.counts.thread(int64(b.TID))
			tc.lo, tc.span = tr.counts.lo, tr.counts.hi-tr.counts.lo
		}
		tc.vlo, tc.vlen = 0, 0
	}
	tr := tc.tr
	if tr == nil {
		return
	}
	if tc.pid != b.PID {
		tc.pid = b.PID
		tr.counts.Process(int64(b.PID))
	}
	start := tc.linkAddr(b.Start)
	tr.counts.step(tc.ct, start, start+(b.End-b.Start))
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
	if err := s.Run(session.Handler{Blocks: a.Blocks}); err != nil {
		return nil, nil, err
	}
	return a.Report(), a.Programs(), nil
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
