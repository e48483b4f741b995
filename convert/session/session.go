package session

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/ptagg"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/convert/traceevent"
	"github.com/perfpt/perfpt/internal/cachedir"
	"github.com/perfpt/perfpt/internal/perfopt"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/tracing"
)

// Options configures a session.
type Options struct {
	Symfs      string // perf's --symfs
	BuildIDDir string // build-id cache; "" for ~/.debug, "-" for none
	Kallsyms   string // kallsyms file; "" for /proc/kallsyms
	Vmlinux    string // -k/--vmlinux: the kernel's symbols and code from this ELF
	// NoDemangle keeps symbol names mangled (perf's --no-demangle);
	// DemangleParams adds C++ parameters (perf's -v).
	NoDemangle, DemangleParams bool
	// DemangleKernel demangles the symbols of a -k/--vmlinux ELF
	// (perf's --demangle-kernel); kallsyms' are never demangled.
	DemangleKernel bool
	// Warn, when set, gets perf's warnings for stderr (one line each,
	// without its newline), such as a kernel whose symbols are missing.
	Warn func(string)
	// Workers is the number of PT decode workers (perf script -j); <1
	// means one per CPU.
	Workers int
	// Itrace selects the events synthesised from PT; nil is perf
	// script's default.
	Itrace *sample.Itrace
	// Callchains says callchains are wanted (perf script without -G).
	Callchains bool
	// MaxStack bounds call chains (perf script --max-stack; 0 for perf's
	// 127), NoInline leaves out inlined frames (--no-inline).
	MaxStack int
	NoInline bool
	// CallindentStack keeps per-thread call stacks for callindent (perf
	// sets itrace thread_stack for -F callindent).
	ThreadStack bool
	// Filters (perf script -C, --pid, --tid); nil means all.
	CPUs, PIDs, TIDs map[int32]bool
	// Time is perf script's and perf report's --time: ranges of seconds,
	// or percentages of the recording, parsed when the file is open
	// (perfopt.ParseTimeRanges: percentages need its first and last
	// sample times). Without it, TimeRanges are the ranges already
	// parsed; none selects everything.
	Time       string
	TimeRanges perfopt.TimeRanges
	// IPC asks for the IPC counts (InsnCnt, CycCnt) of PT branch and
	// instruction samples (perf script -F ipc); without it they are 0.
	// Recordings that can count cycles (cyc or mtc in the config) are
	// then decoded sequentially, where the counts are exact.
	IPC bool
	// Show selects the side-band records handed to Handler.Sideband.
	Show Show
	// FileOrder delivers the records in file order, as perf does
	// without its ordered_events queue (perf script
	// --dump-unsorted-raw-trace; --show-round-events does it too).
	FileOrder bool
	// NoIPLoc says the PT samples' IPLoc is not used (nothing printed
	// needs the IP's symbol or DSO: no sym, symoff, dso, srcline,
	// callindent or callchain): their IPLoc then holds only Addr = IP,
	// and the IPs are not resolved. Res still resolves on demand.
	NoIPLoc bool
}

// Handler receives a session's events; nil callbacks are skipped.
type Handler struct {
	Sample func(*sample.Sample)
	Error  func(*sample.ErrorLine)
	Block  func(*Block)
	// Blocks, when set, gets the Blocks in batches instead of Block:
	// up to blockBatch at once, in the order Block would have had them,
	// the slice valid during the call only. A batch is handed over when
	// full, before any other callback and when Run ends.
	Blocks func([]Block)
	// Runs, when set instead of Block and Blocks, gets the runs (what
	// a Block says, 32 bytes each, written in place) in batches of one
	// thread on one CPU, with the time and cycles as marks where they
	// change. Runs of different threads may come in another order than
	// Block's; a thread's come in order. Batches are handed over when
	// full, before any other callback (a run whose successor is not
	// known yet waits for the next batch) and when Run ends, and with
	// parallel decoding (Options.Workers) where a piece decoded ahead
	// begins; the RunBatch is valid during the call only.
	Runs func(*RunBatch)
	// Agg, when set instead of Runs, aggregates the runs for pprof
	// (convert/ptagg): Run hands it the runs (Agg.Runs), and where the
	// decode walks the edge graph in sequence it counts the blocks it
	// walks into Agg itself instead of making runs of them (edge.go):
	// the same counts, records and call stacks, at a fraction of the
	// cost. The counts are complete when Run returns. Parallel chunks
	// (explicit Options.Workers > 1 only: decodeWorkers) of per-thread
	// queues count into Aggs of their own, merged in order (pt_par.go,
	// ptagg.Agg.Merge); the others' hand their runs to Agg.Runs.
	Agg *ptagg.Agg
	// LeanRuns makes Runs carry only Start, End, NInsn and the branch
	// kind of the last instruction in Flags: no To, RunTaken,
	// FlagTraceEnd, times or cycles (Marks stays empty, Time is the
	// batch's first run's). It costs about a third as much.
	LeanRuns bool
	// Feature gets each HEADER_FEATURE record of a pipe, once perfdata
	// has read it (File.Features has it).
	Feature func(perfdata.Feature)
	// Sideband gets the side-band records Options.Show selects, in
	// perf script's order among the samples.
	Sideband func(*Sideband)
	// RunStarts makes Runs mark the first run after each trace start
	// (the thread's first, after a stop, an error or a switch-in) with
	// FlagTraceBegin, so that a stop no run carries (the trace stopped
	// right at the target of the branch that ended the previous run,
	// before any instruction there) shows too. Not with LeanRuns.
	RunStarts bool
	// FoldRuns lets Runs fold a run that ends in a conditional branch
	// into the run after it, in the same batch, where no mark falls
	// between them (the time has not moved, no cycles were counted, no
	// trace start; foldInto): one Run from the first's Start to the
	// last's End, their NInsn summed, the last's Flags and To (RunTaken
	// then says nothing of the conditional branches folded). The same
	// runs fold whichever walk made them, so the folds are the same at
	// any number of workers (for the same chunks). The calls, returns,
	// jumps, trace starts and stops and the times are all there: what a
	// timeline needs, in a fraction of the runs. Not with LeanRuns.
	FoldRuns bool
	// Progress gets, now and then, how far the run is: done out of total
	// (bytes of the file, or of AUX trace data while PT is decoded).
	Progress func(done, total int64)
	// Fork, when set, lets parallel PT decoding (Options.Workers > 1)
	// format samples on the decode workers: it returns a new Segment
	// (it may be called on any goroutine). Without it the samples of
	// parallel decoding go to Sample on Run's goroutine.
	Fork func() Segment
	// IPRun, with IPRunOK, takes the instruction samples of a straight
	// run of code while every instruction is sampled (straight.go):
	// smp is the first's, and the others differ from it only in the IP
	// (ips holds them all, smp.IP the first), all in one symbol of one
	// map (smp.IPLoc's but for its Addr). smp has no instruction bytes or
	// flags. IPRunOK says whether IPRun may be used for samples of ev
	// now (it prints what they differ in from smp in nothing but the
	// IP); otherwise they go to Sample one by one.
	IPRun func(smp *sample.Sample, ips []uint64)
	// SampleTime, when set, takes the time of each sample record (not
	// of Intel PT's samples, which still go to Sample) in place of
	// Sample, unresolved, after --time and before the other filters:
	// perf script -d, whose process_sample_event checks the order
	// there and skips machine__resolve.
	SampleTime func(t uint64)
	IPRunOK    func(ev *sample.Event) bool
}

// Segment holds the output of a run of samples handled on a decode
// worker. Sample, Error and Len are called on one worker goroutine, in
// order; the Sample is valid during the call only, and its Res may resolve
// addresses (ResolveAddr) but not source lines (Srcline returns ""), so
// a handler printing srcline must not set Fork. Emit and Reset are called
// on Run's goroutine once the worker is done with it: Emit(from, to)
// outputs the bytes [from, to) of what Sample and Error produced (Len
// bytes in all), in output order among the handler's other calls; Reset
// empties the Segment for reuse (after its last Emit, or when the
// session drops what it holds).
type Segment interface {
	Sample(*sample.Sample)
	Error(*sample.ErrorLine)
	Len() int
	Emit(from, to int)
	Reset()
}

// RunSegment is a Segment that also takes the straight runs of the chunk
// it formats (straight.go): IPRunOK and IPRun are Handler.IPRunOK and
// Handler.IPRun on the worker, called in order with Sample and Error.
type RunSegment interface {
	Segment
	IPRunOK(ev *sample.Event) bool
	IPRun(smp *sample.Sample, ips []uint64)
}

// Session is an open recording.
type Session struct {
	f      *perfdata.File
	opts   Options
	m      *machine.Machine
	events map[*perfdata.Attr]*sample.Event
	// evByIndex[i] is events[a] for the attr a with Index i (evAttr[i]),
	// looked up first: a map lookup per sample cost 2% of printing a
	// tracepoint recording.
	evByIndex []*sample.Event
	evAttr    []*perfdata.Attr
	// ipSyms caches the symbol lookups of sample IPs (sample).
	ipSyms  machine.SymCache
	feats   *perfdata.Features
	pt      *ptState
	synth   []*sample.Event
	evOrder []*sample.Event
	res     machine.Resolver
	aux     *os.File // the file again, for reading AUX data (nil: use the mapping)
	// anyFilter: some option of filtered is set (else it is skipped).
	anyFilter bool
	brBuf     []sample.BranchEntry // the branch stack of the current sample
	mem       sample.MemFields     // the memory fields of the current sample
	regs      sample.Regs          // the registers of the current sample
	unw       userUnwind           // DWARF unwinding of user stacks
	lbrGhost  perfdata.BranchEntry // see lbrFirst
	// records that change the machine (COMM, FORK, MMAP, MMAP2): in the
	// file, and processed so far (parallel decoding waits for all)
	mutTotal, mutSeen int

	// tracing is the recording's tracing data (tracepoint formats), nil
	// until read; tracingErr says why it could not be read.
	tracing    *tracing.Data
	tracingErr error
	tp         *traceevent.Printer

	stats Stats
	// readPeriod is the last value read of each sample id (perf's
	// sid->period), for PERF_SAMPLE_READ samples.
	readPeriod map[uint64]uint64

	// OnPipeAttr is called for each PERF_RECORD_HEADER_ATTR of a pipe
	// (perf script's process_attr), with its event and the record; an
	// error stops Run.
	OnPipeAttr func(e *sample.Event, r *perfdata.RecordHeaderAttr) error
	pipeAttrs  int // HEADER_ATTR records seen

	// OnSynthEvent is called when an event is synthesised (perf's
	// process_attr), with whether it is the first of its output type.
	OnSynthEvent func(e *sample.Event, firstOfType bool) error

	// OnRecord, when set, is called with each record Run delivers, and
	// its bytes, before Run processes it: perf's dump_event and
	// dump_trace lines (-D). It also turns PT decoding off, as
	// intel_pt_process_auxtrace_info returns after its dump under -D.
	OnRecord func(r perfdata.Record, raw []byte)
	// OnUserRecord, when set, is called with each of perf's own records
	// (types from PERF_RECORD_USER_TYPE_START: thread and CPU maps, stat
	// records) that Run delivers, after OnRecord, turning nothing off.
	OnUserRecord func(r perfdata.Record)
	// OnResolve, when set, is called for each delivery of a sample
	// that perf script's process_sample_event resolves (machine__resolve
	// prints its -D lines then): all but those its --time and --cpu
	// filters drop.
	OnResolve func(r *perfdata.RecordSample)
}

// HasAuxtrace reports whether the file has an AUXTRACE index section.
func (s *Session) HasAuxtrace() bool {
	return s.feats != nil && s.feats.Has(perfdata.FeatAuxtrace)
}

// AuxtraceListed mirrors perf_header__has_feat(HEADER_AUXTRACE), which
// evsel__check_attr asks: the file's header lists an AUXTRACE section,
// even one perf failed to read (simpleperf's CoreSight recordings index
// their AUX data their own way: "Failed to process auxtrace index").
func (s *Session) AuxtraceListed() bool {
	return s.HasAuxtrace() || s.feats != nil && !s.f.Pipe && s.feats.IsLost(perfdata.FeatAuxtrace)
}

// Open opens (and mmaps) the perf.data file at path.
func Open(path string, o Options) (*Session, error) {
	if path == "-" {
		// perf's "-i -": a pipe-mode stream on standard input.
		f, err := perfdata.NewPipe(os.Stdin)
		if err != nil {
			return nil, err
		}
		return New(f, o)
	}
	f, err := perfdata.Open(path)
	if err != nil {
		return nil, err
	}
	path = f.Path()
	s, err := New(f, o)
	if err != nil {
		f.Close()
		return nil, err
	}
	// A pipe-mode stream saved to a file has its offsets counted after
	// its 16-byte header, not from the file's start: its AUXTRACE data
	// is read in the file's mapping (r.Data) instead.
	if f.Size() > 0 && !f.Pipe {
		if aux, err := os.Open(path); err == nil {
			s.aux = aux
		}
	}
	return s, nil
}

// New starts a session on an opened file.
func New(f *perfdata.File, o Options) (*Session, error) {
	so := &symbol.Options{Symfs: o.Symfs, BuildIDDir: o.BuildIDDir, NoDemangle: o.NoDemangle, DemangleParams: o.DemangleParams, DemangleKernel: o.DemangleKernel,
		CacheDir: cachedir.Path("symtab")}
	kallsyms := o.Kallsyms
	if kallsyms == "" && f.Dir != "" {
		// perf_data__kallsyms_name: a perf.data directory's
		// kcore_dir/kallsyms, with the kcore beside it: the path
		// as given, joined as a string (the kernel DSO is named
		// after its kcore with --show-kernel-path).
		if k := f.Dir + "/kcore_dir/kallsyms"; fileExists(k) {
			kallsyms = k
		}
	}
	s := &Session{f: f, opts: o, m: machine.New(so, kallsyms), events: map[*perfdata.Attr]*sample.Event{}}
	s.m.Warn = o.Warn
	if o.Vmlinux != "" {
		s.m.SetVmlinux(o.Vmlinux)
	}
	// perf_session__register_idle_thread: the idle task, which per-CPU
	// PT queues run between turns (a sample there is swapper's, with no
	// user maps).
	s.m.RegisterIdleThread()
	s.m.MaxStack, s.m.NoInline = o.MaxStack, o.NoInline
	if b, ok := f.FeatureData(perfdata.FeatTracingData); ok {
		s.setTracing(b)
	}
	if feats, err := f.Features(); err == nil {
		s.feats = feats
		s.linkGroups()
		for _, b := range feats.BuildIDs {
			s.m.AddBuildID(b)
		}
		s.m.ArchKnown = feats.Arch != ""
		s.m.Arch, s.m.NrCPUsAvail = feats.Arch, int(feats.NrCPUs.Available)
		for _, c := range feats.CPUPMUCaps {
			if c.Name == "branches" {
				// perf's atoi
				s.m.MaxLBR = atoi(c.Value)
			}
		}
	}
	if f.Pipe {
		// perf record writes the architecture in a pipe's features.
		s.m.ArchKnown = true
	}
	if o.Vmlinux == "" && kallsyms == "" {
		// dso__load_kernel_sym's vmlinux path, set up by symbol__init
		// from the header's OSRELEASE (none yet in a pipe).
		release := "(null)"
		if s.feats != nil && s.feats.OSRelease != "" && !f.Pipe {
			release = s.feats.OSRelease
		}
		s.m.SearchVmlinux(release)
	}
	if o.Time != "" {
		var first, last uint64
		if s.feats != nil {
			first, last = s.feats.SampleTime[0], s.feats.SampleTime[1]
		}
		r, err := perfopt.ParseTimeRanges(o.Time, first, last)
		if err != nil {
			return nil, err
		}
		s.opts.TimeRanges = r
	}
	s.anyFilter = o.CPUs != nil || o.PIDs != nil || o.TIDs != nil || len(s.opts.TimeRanges) != 0
	const dwarf = perfdata.SampleFormatRegsUser | perfdata.SampleFormatStackUser
	for _, a := range f.Attrs {
		s.event(a)
		if a.SampleType&dwarf == dwarf {
			s.m.DwarfUnwind = true
		}
	}
	return s, nil
}

// TimeRanges returns the ranges of Options.Time (or Options.TimeRanges).
func (s *Session) TimeRanges() perfopt.TimeRanges { return s.opts.TimeRanges }

// Close closes the file.
func (s *Session) Close() error {
	if s.aux != nil {
		s.aux.Close()
	}
	return s.f.Close()
}

// File returns the underlying perf.data file.
func (s *Session) File() *perfdata.File { return s.f }

// Machine returns the session's machine state.
func (s *Session) Machine() *machine.Machine { return s.m }

func (s *Session) event(a *perfdata.Attr) *sample.Event {
	if a == nil {
		return nil
	}
	if i := a.Index; i >= 0 && i < len(s.evAttr) && s.evAttr[i] == a {
		return s.evByIndex[i]
	}
	if e := s.events[a]; e != nil {
		s.indexEvent(a, e)
		return e
	}
	name := a.Name
	if !a.Named {
		name = a.PerfName()
	}
	e := &sample.Event{Name: name, AttrType: uint32(a.Type), Config: a.Config,
		SampleType: uint64(a.SampleType), SamplePeriod: a.SamplePeriod}
	s.setFormat(a, e)
	if a.Flags&perfdata.AttrFlagFreq != 0 {
		e.SamplePeriod = 0
	}
	s.events[a] = e
	s.indexEvent(a, e)
	s.evOrder = append(s.evOrder, e)
	return e
}

// linkGroups sets the events' groups from HEADER_GROUP_DESC as perf's
// process_group_desc does: a group's leader is the attr at its leader
// index, its members the attrs that follow it, nr_members in all. An
// entry that does not fit the attrs (perf's "invalid group desc") ends
// the linking.
func (s *Session) linkGroups() {
	if len(s.feats.GroupDesc) == 0 {
		return
	}
	// The events in the attrs' order (perf's evlist order), as
	// MaxNameLen makes them.
	for _, a := range s.f.Attrs {
		s.event(a)
	}
	for _, g := range s.feats.GroupDesc {
		lo, n := int(g.Leader), int(g.NrMembers)
		if n < 1 || lo < 0 || lo+n > len(s.f.Attrs) {
			return
		}
		leader := s.event(s.f.Attrs[lo])
		if leader.Members != nil || leader.Leader != nil {
			return
		}
		leader.Members = []*sample.Event{leader}
		for i := lo + 1; i < lo+n; i++ {
			e := s.event(s.f.Attrs[i])
			e.Leader = leader
			leader.Members = append(leader.Members, e)
		}
	}
}

// indexEvent records e as a's event in evByIndex.
func (s *Session) indexEvent(a *perfdata.Attr, e *sample.Event) {
	i := a.Index
	if i < 0 || i > 1<<16 {
		return
	}
	for len(s.evAttr) <= i {
		s.evAttr, s.evByIndex = append(s.evAttr, nil), append(s.evByIndex, nil)
	}
	s.evAttr[i], s.evByIndex[i] = a, e
}

// Events returns the file's events followed by the synthesised ones, in
// perf's evlist order.
func (s *Session) Events() []*sample.Event {
	return append(append([]*sample.Event(nil), s.evOrder...), s.synth...)
}

// MaxNameLen mirrors evlist__max_name_len.
func (s *Session) MaxNameLen() int {
	// Every attr read so far counts (in pipe mode they arrive as
	// HEADER_ATTR records), not only those with samples yet.
	for _, a := range s.f.Attrs {
		s.event(a)
	}
	n := 0
	for _, e := range s.Events() {
		n = max(n, len(e.Name))
	}
	return n
}

// resolveSkipped reports whether perf script's process_sample_event
// drops sample r before machine__resolve: its time is outside --time, or
// its CPU not in --cpu.
func (s *Session) resolveSkipped(r *perfdata.RecordSample) bool {
	o := &s.opts
	return o.CPUs != nil && !o.CPUs[int32(r.CPU)] || o.TimeRanges.Skip(r.Time)
}

func (s *Session) filtered(pid, tid int32, cpu uint32, t uint64) bool {
	o := &s.opts
	if o.CPUs != nil && !o.CPUs[int32(cpu)] {
		return true
	}
	if o.PIDs != nil && !o.PIDs[pid] {
		return true
	}
	if o.TIDs != nil && !o.TIDs[tid] {
		return true
	}
	return o.TimeRanges.Skip(t)
}

// Run processes the recording in perf's order and calls h.
func (s *Session) Run(h Handler) error {
	if h.Agg != nil {
		if h.Runs != nil {
			return errors.New("session: Handler.Agg and Handler.Runs are both set")
		}
		h.Runs = h.Agg.Runs
	}
	defer func() {
		if s.pt != nil {
			// Parallel decoding's goroutines read the mapping: they
			// end before Run returns, whatever happened.
			s.pt.stopWorkers()
		}
	}()
	order := perfdata.TimeOrder
	if s.opts.Show&ShowRound != 0 || s.opts.FileOrder {
		order = perfdata.FileOrder // --show-round-events: no ordered_events
	}
	rs := s.f.Records(order)
	var smp sample.Sample
	n := 0
	show := h.Sideband != nil && s.opts.Show != 0
	for {
		// Samples are read into one RecordSample: nothing keeps one past
		// its turn but the PT decoder, which may hold records back.
		rs.ReuseSamples = s.pt == nil
		if !rs.Next() {
			break
		}
		if n++; n&4095 == 0 && h.Progress != nil {
			s.flushBlocks()
			h.Progress(rs.Record.Common().Offset, s.f.Size())
		}
		rec := rs.Record
		c := rec.Common()
		s.stats.count(rec)
		if s.OnRecord != nil {
			s.flushBlocks()
			s.OnRecord(rec, rs.Raw().Data)
		}
		if s.OnUserRecord != nil && c.Type.IsUser() {
			s.flushBlocks()
			s.OnUserRecord(rec)
		}
		if s.pt != nil && c.Type < perfdata.RecordTypeUserStart {
			if order == perfdata.FileOrder {
				return ptNeedsOrder(c, s.f.Pipe)
			}
			// auxtrace__process_event runs before the tool sees the record.
			s.pt.event(rec, h)
		}
		side := show && s.opts.wants(c.Type)
		if side {
			s.flushBlocks()
			if c.Type == perfdata.RecordTypeExit {
				// process_exit_event prints before the exit is
				// processed.
				s.sideband(rec, h)
				side = false
			}
		}
		switch r := rec.(type) {
		case *perfdata.RecordSample:
			if s.pt != nil && s.pt.isPTAttr(r.Attr) {
				continue
			}
			if r.Attr != nil && r.Attr.SampleType&perfdata.SampleFormatRead != 0 {
				s.deliverRead(r, &smp, h)
				continue
			}
			if s.OnResolve != nil && r.Attr != nil && !s.resolveSkipped(r) {
				s.OnResolve(r)
			}
			if h.SampleTime != nil {
				if !s.opts.TimeRanges.Skip(r.Time) {
					h.SampleTime(r.Time)
				}
				continue
			}
			if h.Sample == nil {
				continue
			}
			if s.filtered(r.PID, r.TID, r.CPU, r.Time) || guestSample(r) {
				continue
			}
			s.sample(r, &smp)
			s.flushBlocks()
			h.Sample(&smp)
		case *perfdata.RecordHeaderAttr:
			// perfdata added the attr when it read the record.
			const dwarf = perfdata.SampleFormatRegsUser | perfdata.SampleFormatStackUser
			if r.Attr.SampleType&dwarf == dwarf {
				s.m.DwarfUnwind = true
			}
			if s.pipeAttrs++; s.OnPipeAttr != nil && s.pipeAttrs <= len(s.f.Attrs) {
				if err := s.OnPipeAttr(s.event(s.f.Attrs[s.pipeAttrs-1]), r); err != nil {
					return err
				}
			}
		case *perfdata.RecordHeaderFeature, *perfdata.RecordEventUpdate:
			// A pipe's EVENT_DESC feature or EVENT_UPDATE record names
			// attrs whose events may exist already (OnPipeAttr).
			for a, e := range s.events {
				if a.Named {
					e.Name = a.Name
				}
			}
			if r, ok := r.(*perfdata.RecordHeaderFeature); ok && h.Feature != nil && s.f.Pipe {
				s.flushBlocks()
				h.Feature(r.Feature)
			}
		case *perfdata.RecordTracingData:
			s.setTracing(r.Data)
		case *perfdata.RecordComm:
			s.m.ProcessComm(r)
			s.mutSeen++
		case *perfdata.RecordFork:
			s.m.ProcessFork(r)
			s.mutSeen++
		case *perfdata.RecordMmap:
			// machine__process_mmap_event: code unless MMAP_DATA.
			s.mmap(r.PID, r.TID, r.Addr, r.Len, r.PgOff, r.Filename, nil, r.CPUMode(), r.Misc&perfdata.MiscMmapData == 0)
			s.mutSeen++
		case *perfdata.RecordMmap2:
			var bid []byte
			if r.Misc&perfdata.MiscMmapBuildID != 0 {
				bid = r.BuildID
			}
			s.mmap(r.PID, r.TID, r.Addr, r.Len, r.PgOff, r.Filename, bid, r.CPUMode(), r.Prot&protExec != 0)
			s.mutSeen++
		case *perfdata.RecordAuxtraceInfo:
			if s.OnRecord != nil {
				break // no decoding under -D
			}
			if err := s.startPT(r); err != nil {
				return err
			}
		case *perfdata.RecordAuxtrace:
			if s.pt != nil {
				if err := s.pt.addBuffer(r); err != nil {
					return err
				}
			}
		case *perfdata.RecordAuxtraceError:
			if h.Error != nil {
				s.flushBlocks()
				s.deliverError(&h, &sample.ErrorLine{Type: r.ErrType, Code: r.Code, CPU: r.ErrCPU, PID: r.ErrPID,
					TID: r.ErrTID, IP: r.IP, Time: r.ErrTime, HasTime: r.Fmt != 0, Msg: r.Msg})
			}
		}
		if side {
			// The other records print once processed.
			s.sideband(rec, h)
		}
	}
	s.stats.Events += rs.CompressedRecords()
	s.stats.Unordered = rs.Unordered()
	for _, a := range s.f.Attrs {
		s.stats.Backward = s.stats.Backward || a.Flags&perfdata.AttrFlagWriteBackward != 0
	}
	if err := rs.Err(); err != nil {
		return err
	}
	if s.pt != nil {
		err := s.pt.finish(h)
		s.pt.flushBlocks()
		if s.pt.agg != nil {
			s.pt.agg.flush()
		}
		return err
	}
	return nil
}

// flushBlocks hands over the batched Blocks before another callback.
func (s *Session) flushBlocks() {
	if s.pt != nil {
		s.pt.flushBlocks()
	}
}

// sample fills smp from an ordinary sample record.
func (s *Session) sample(r *perfdata.RecordSample, smp *sample.Sample) {
	ev := s.event(r.Attr)
	if ev == nil {
		ev = &sample.Event{Name: "[unknown]"}
	}
	t := s.m.FindNewThread(r.PID, r.TID)
	kernel := r.CPUMode() == perfdata.MiscKernel
	// Cleared, then set field by field: a composite literal was built
	// whole and copied (some 500 bytes per sample).
	cc := smp.Callchain[:0]
	*smp = sample.Sample{}
	smp.Ev, smp.Comm, smp.PID, smp.TID, smp.CPU, smp.Time = ev, t.Comm, r.PID, r.TID, r.CPU, r.Time
	smp.Period, smp.IP, smp.Addr, smp.Raw, smp.Callchain, smp.Misc = r.Period, r.IP, r.Addr, r.Raw, cc, r.Misc
	if r.Attr != nil && r.Attr.SampleType&perfdata.SampleFormatCPU == 0 {
		// evsel__parse_sample: without PERF_SAMPLE_CPU the cpu is -1
		// (a pipe's script prints it where the first event of the type
		// had the CPU, process_attr).
		smp.CPU = ^uint32(0)
	}
	if r.Attr != nil && r.Attr.SampleType&perfdata.SampleFormatPeriod == 0 {
		// evsel__parse_sample: the period defaults to the attr's.
		smp.Period = r.Attr.SamplePeriod
	}
	if r.Attr != nil && r.Attr.SampleType&sample.MemSampleBits != 0 {
		smp.Mem = memFields(r, &s.mem)
	}
	if r.Attr != nil && r.Attr.SampleType&(perfdata.SampleFormatRegsIntr|perfdata.SampleFormatRegsUser) != 0 {
		s.regs = sample.Regs{IntrABI: r.RegsIntrABI, IntrMask: r.Attr.SampleRegsIntr, Intr: r.RegsIntr,
			UserABI: r.RegsUserABI, UserMask: r.Attr.SampleRegsUser, User: r.RegsUser}
		smp.Regs = &s.regs
	}
	// machine__resolve looks the IP up with thread__find_map: in the
	// address space the sample's cpumode names only (a kernel address
	// in a user-mode sample has no map), and in none for the other
	// cpumodes of a host (hypervisor, guest).
	switch cm := r.CPUMode(); cm {
	case perfdata.MiscKernel, perfdata.MiscUser:
		s.m.ResolveModeInto(&smp.IPLoc, t, kernel, r.IP, &s.ipSyms)
	default:
		smp.IPLoc = sample.Loc{Addr: r.IP}
	}
	s.res = s.m.Resolver(t, kernel)
	smp.Res = &s.res
	if r.Attr != nil && r.Attr.SampleType&perfdata.SampleFormatBranchStack != 0 && len(r.BranchStack) > 0 {
		smp.BranchStack = branchStack(r.BranchStack, s.brBuf[:0])
		s.brBuf = smp.BranchStack
	}
	if r.Attr != nil && r.Attr.SampleType&perfdata.SampleFormatCallchain != 0 && s.opts.Callchains {
		lbr := false
		if r.Attr.BranchSampleType&perfdata.BranchSampleCallStack != 0 && r.Attr.SampleType&perfdata.SampleFormatBranchStack != 0 {
			br := machine.LBRBranches{Entries: r.BranchStack, First: s.lbrFirst(r), HwIdx: r.BranchHwIdx}
			smp.Callchain, lbr = s.m.LBRCallchain(t, r.Callchain, &br, smp.Callchain)
		}
		if !lbr {
			smp.Callchain = s.m.Callchain(t, r.Callchain, smp.Callchain)
		}
		const dwarf = perfdata.SampleFormatRegsUser | perfdata.SampleFormatStackUser
		if r.Attr.SampleType&dwarf == dwarf {
			// thread__resolve_callchain: the kernel's chain, then the
			// unwound user stack; a failed unwind fails the whole chain.
			var ok bool
			if smp.Callchain, ok = s.unwindUser(t, r, smp.Callchain); !ok {
				smp.Callchain = nil
			}
		}
	} else {
		smp.Callchain = nil
	}
}

// guestSample reports whether a sample was taken in a guest (cpumode
// GUEST_KERNEL or GUEST_USER), which perf drops without perf kvm:
// thread__find_map marks it filtered (HIST_FILTER__GUEST).
func guestSample(r *perfdata.RecordSample) bool {
	m := r.CPUMode()
	return m == perfdata.MiscGuestKernel || m == perfdata.MiscGuestUser
}

// memFields fills m from a sample's memory-access fields
// (evsel__parse_sample: a WEIGHT_STRUCT word holds the weight in its low
// 32 bits, then ins_lat and p_stage_cyc).
func memFields(r *perfdata.RecordSample, m *sample.MemFields) *sample.MemFields {
	*m = sample.MemFields{DataSrc: r.DataSrc, Weight: r.Weight, PhysAddr: r.PhysAddr,
		DataPageSize: r.DataPageSize, CodePageSize: r.CodePageSize}
	if r.Attr.SampleType&perfdata.SampleFormatWeightStruct != 0 {
		m.Weight = r.Weight & 0xffffffff
		m.InsLat, m.PStageCyc = uint16(r.Weight>>32), uint16(r.Weight>>48)
	}
	return m
}

// branchStack converts a sample's PERF_SAMPLE_BRANCH_STACK entries (the
// flags word of perf 6.1's struct perf_branch_entry: mispred, predicted,
// in_tx, abort, cycles:16, type:4, spec:2, new_type:4, priv:3).
func branchStack(in []perfdata.BranchEntry, out []sample.BranchEntry) []sample.BranchEntry {
	for _, e := range in {
		f := e.Flags
		out = append(out, sample.BranchEntry{From: e.From, To: e.To,
			Mispred: f&1 != 0, Predicted: f&2 != 0, InTx: f&4 != 0, Abort: f&8 != 0,
			Cycles: uint16(f >> 4), Type: uint8(f>>20) & 0xf, NewType: uint8(f>>26) & 0xf})
	}
	return out
}

// decodeWorkers returns the number of PT decode workers for h:
// Options.Workers, else one per CPU, but one for Handler.Agg. Chunks
// decoded ahead count into Aggs of their own that start cold and are
// merged (pt_par.go): 1.1-1.6x the CPU of the decode in sequence on the
// benchmark traces, for a gain in wall time only where a core is idle. So
// an Agg gets chunks only when -j asks for them.
func (s *Session) decodeWorkers(h Handler) int {
	w := s.opts.Workers
	switch {
	case w >= 1:
		return w
	case h.Agg != nil:
		return 1
	}
	return runtime.NumCPU()
}

// ParallelDecode says whether Run may decode PT in parallel chunks with h
// and the session's options (see "Parallel decoding" in the package
// doc): when false, Run's goroutine does all the decoding. Where it does
// depends also on the recording (untimed, or timed past the last record
// changing the machine; per-thread queues).
func (s *Session) ParallelDecode(h Handler) bool {
	o := &s.opts
	w := s.decodeWorkers(h)
	it := o.Itrace
	if w < 2 || it == nil || !s.HasAuxtrace() || h.Block != nil || h.Blocks != nil || o.ThreadStack ||
		o.IPC && s.mayCountCycles() {
		return false
	}
	if it.Branches || it.PwrEvents || it.Callchain || it.AddCallchain || it.ThreadStack ||
		it.LastBranch || it.AddLastBranch || it.InitialSkip != 0 || it.Quick != 0 {
		return false
	}
	if h.Runs != nil || h.Agg != nil {
		return !it.Instructions && s.runsInChunks(h.LeanRuns)
	}
	if !it.Instructions {
		// The bare decode (--itrace=e: errors only) decodes in chunks.
		return !it.Transactions && !it.Ptwrites
	}
	if it.PeriodType == sample.PeriodInstructions {
		return it.Period <= 1
	}
	return it.Period == 0
}

// runsInChunks says whether Handler.Runs alone (no samples) can be
// decoded in chunks: lean runs, or full ones of a recording without CYC
// packets (a run's cycles depend on the chunk before and are not in the
// snapshots that prove a chunk equal, pt_par.go).
func (s *Session) runsInChunks(lean bool) bool { return lean || !s.HasCycles() }

// mmap hands an MMAP or MMAP2 record to the machine. A [vdso] mapped into
// a process of a PT recording first gets perf's machine__findnew_vdso side
// effect on the decoder's view of the process's DSOs (vdsoMapped); without
// PT nothing reads that view, and making it would load every DSO's symbols.
func (s *Session) mmap(pid, tid int32, addr, length, pgoff uint64, name string, bid []byte, cpumode int, exec bool) {
	if s.pt != nil && name == "[vdso]" && cpumode != perfdata.MiscKernel && pid != -1 {
		vdsoMapped(s.m.FindNewThread(pid, tid).Maps)
	}
	s.m.ProcessMmap(pid, tid, addr, length, pgoff, name, bid, cpumode, exec)
}

// protExec is PROT_EXEC.
const protExec = 4

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// ptNeedsOrder is perf's failure on the first record after the PT setup
// when the events are not time-ordered (perf script --show-round-events):
// intel_pt_process_event refuses it (-EINVAL), and the session stops with
// its error line for the record, which in a pipe
// (__perf_session__process_pipe_events) has no error name. The record's
// offset is never 0 there (the AUXTRACE_INFO record came first), so Go's
// %#x is C's.
func ptNeedsOrder(c *perfdata.RecordCommon, pipe bool) error {
	msg := fmt.Sprintf("Intel Processor Trace requires ordered events\n%#x [%#x]: failed to process type: %d",
		uint64(c.Offset), c.Size, c.Type)
	if !pipe {
		msg += " [Invalid argument]"
	}
	return &perfopt.Exit{Msg: msg, Status: 234}
}

// EventOf returns the event of attr a (perf's evsel), made on first use.
func (s *Session) EventOf(a *perfdata.Attr) *sample.Event { return s.event(a) }
