package session

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session/ptperf"
	"github.com/perfpt/perfpt/perfdata"
)

// Block is one run of sequential instructions of a decoded PT flow.
type Block struct {
	PID, TID int32
	CPU      int32
	Flags    uint32 // how the last instruction left: script.Flag*
	Time     uint64
	Start    uint64 // first instruction
	End      uint64 // last instruction
	NInsn    uint64
	To       uint64 // where execution went next (0: trace stopped)
	// Cycles is the CYC cycles the decoder counted since the queue's
	// previous Block, up to this one (0 without CYC packets).
	Cycles uint64
}

// AUXTRACE_INFO private fields of intel_pt (util/intel-pt.h).
const (
	ptPMUType = iota
	ptTimeShift
	ptTimeMult
	ptTimeZero
	ptCapUserTimeZero
	ptTSCBit
	ptNoRetCompBit
	ptHaveSchedSwitch
	ptSnapshotMode
	ptPerCPUMmaps
	ptMTCBit
	ptMTCFreqBits
	ptTSCCTCN
	ptTSCCTCD
	ptCYCBit
	ptMaxNonTurboRatio
	ptFilterStrLen
)

const (
	cfgPassThru = 1 << 0
	cfgPT       = 1 << 0
	cfgCYC      = 1 << 1
	cfgMTC      = 1 << 9
	cfgBranchEn = 1 << 13
	cfgTNTDis   = 1 << 55
)

// timeConv is perf's struct perf_tsc_conversion.
type timeConv struct {
	shift, mult, zero uint64
	cycles, mask      uint64
	capUserTimeShort  bool
}

func (tc *timeConv) toPerf(cyc uint64) uint64 {
	if tc.capUserTimeShort {
		cyc = tc.cycles + ((cyc - tc.cycles) & tc.mask)
	}
	quot := cyc >> tc.shift
	rem := cyc & (1<<tc.shift - 1)
	return tc.zero + quot*tc.mult + (rem*tc.mult)>>tc.shift
}

func (tc *timeConv) toTSC(ns uint64) uint64 {
	if tc.mult == 0 {
		return 0
	}
	t := ns - tc.zero
	quot := t / tc.mult
	rem := t % tc.mult
	return quot<<tc.shift + (rem<<tc.shift)/tc.mult
}

func (tc *timeConv) nsToTicks(ns uint64) uint64 {
	if tc.mult == 0 {
		return 0
	}
	quot := ns / tc.mult
	rem := ns % tc.mult
	return quot<<tc.shift + (rem<<tc.shift)/tc.mult
}

type auxBuffer struct {
	// Snapshot and sample recordings (mightOverlap): where the data not
	// in the buffer before starts, and whether it goes on from it
	// (intel_pt_do_fix_overlap), once known.
	useOff      int
	overlapDone bool
	consecutive bool

	mapped    []byte // the data in the file's mapping (for parallel decoding)
	data      []byte // the data, when there is no file to read it from
	off       int64  // else its file offset and size
	size      int
	reference uint64
	nr        uint64
}

// ptQueue is perf's struct intel_pt_queue with its auxtrace_queue.
type ptQueue struct {
	pt        *ptState
	nr        int
	set       bool
	qtid      int32 // auxtrace_queue tid
	qcpu      int32 // auxtrace_queue cpu
	bufs      []auxBuffer
	next      int
	oldBuffer bool

	dec        *ptperf.Decoder
	state      *ptperf.State
	haveSample bool
	onHeap     bool
	pid, tid   int32
	cpu        int32
	thread     *machine.Thread
	timestamp  uint64
	flags      uint32
	insnLen    int
	insn       [16]byte
	lastInsn   uint64
	cbrSeen    uint32

	pend    Block
	hasPend bool
	rbuf    [2][]byte // alternating read buffers
	oldData []byte    // mightOverlap: the last buffer with data, whole
	rsel    int
	look    []byte           // lookahead buffer
	lc      machine.LocCache // last IP range resolved for this queue's samples

	selTimestamp uint64 // time-range state (intel_pt_time_filter)
	selIdx       int
	// bulkSeq: runDecoder is decoding the queue in sequence, up to
	// bulkLimit (bulk.go).
	bulkSeq   bool
	bulkLimit uint64
	// straightSeq: runDecoder decodes in sequence where straight runs
	// may be walked (straight.go); straightIPs their addresses.
	straightSeq bool
	straightIPs []uint64
	bulkFlow    bool // runs are delivered (p.flow, or p.workFlow in a chunk)
	selStart    bool

	started bool // runDecoder has run on it
	// Parallel decoding (pt_par.go): a queue copy decoding one chunk
	// collects its samples in job and reads the mapped data.
	job    *job
	mapped bool
	// own is, for a job's copy of a queue, the queue it decodes for: with
	// Handler.Runs the copy's runs go to that queue's batch once it takes
	// over (into the job's batches while it decodes ahead). virt: the
	// copy started at a PSB after a run that may still wait for its
	// successor.
	own      *ptQueue
	virt     bool
	doneAt   uint64 // AUX bytes done by a parallel decode (progress)
	dropped  int    // buffers whose mapped pages were dropped
	par      *parQueue
	stopArm  uint64 // the stop position given to dec
	pendStop int    // runSeq returns this next

	// IPC (intel_pt_synth_branch_sample, ..._instruction_sample): the
	// counts at the last branch and instruction samples that carried an
	// IPC, and the counts of the sample being made (smpInsn, smpCyc: 0
	// when it has none).
	lastBrInsn, lastBrCyc uint64
	lastInInsn, lastInCyc uint64
	smpInsn, smpCyc       uint64
	rq                    runQueue // the batch for Handler.Runs

	// sync_switch (pt_switch.go): the queue changes threads at the
	// branch to __switch_to; switchState is perf's switch_state, nextTID
	// the thread a switch record named (-1: none).
	syncSwitch  bool
	switchState uint8
	nextTID     int32

	// AUX sampling without timestamps: each sample decodes the next
	// buffer (step_through_buffers), getTrace giving no more (stop).
	stepThrough, stop bool

	// A chunk copy of a per-CPU queue follows its CPU's thread changes
	// (follow; pt_cpus.go): chg is the CPU's list, chgNext the next.
	chg     []tidChange
	chgNext int
	follow  bool
}

type heapItem struct {
	q       int
	ordinal uint64
}

// ptState is perf's struct intel_pt for one session.
type ptState struct {
	s           *Session
	attr        *perfdata.Attr
	priv        []uint64
	tc          timeConv
	timeless    bool
	perCPU      bool
	sched       uint64
	opts        sample.Itrace
	queues      []*ptQueue
	newData     bool
	heap        []heapItem
	kernelStart uint64
	curTID      map[int32][2]int32 // cpu -> pid, tid
	dataQueued  bool
	cpuPID      map[int32]int32 // the one process each CPU runs (cpuRuns), -1: several

	// sync_switch (pt_switch.go): decided the first time a queue is
	// decoded (kernelStartDone), with the addresses of __switch_to and of
	// the function that says a queue is tracing.
	kernelStartDone, syncSwitch bool
	switchIP, ptssIP            uint64
	samplingMode                bool // intel_pt_sampling_mode: AUX area samples
	switchStats                 switchStats
	// sidIndex is PERF_RECORD_ID_INDEX: each sample id's queue, CPU and
	// thread (AUX sampling queues the samples' data by them).
	sidIndex map[uint64]perfdata.IDIndexEntry
	// The CPUs' thread changes (pt_cpus.go), from queueIndex: noteTID is
	// each CPU's thread as they are noted.
	cpuChanges      map[int32][]tidChange
	noteTID         map[int32]int32
	changesResolved bool

	// mightOverlap: snapshot or sample recordings, whose buffers may
	// repeat each other's data (intel_pt_get_buffer); haveTSC:
	// intel_pt_have_tsc, which finds the overlap by TSC
	mightOverlap, haveTSC     bool
	numEvents                 uint64
	maxNonTurbo               uint32
	cbr2khz                   uint64
	useThreadStack, callstack bool
	flow                      bool // the handler takes Block, Blocks or Runs (setHandler)
	deliverHooks              bool // flow or useThreadStack: deliver attaches stacks, flushes batches
	xw                        bool // transactions or ptwrite samples are synthesised
	// synth: some state makes a sample or feeds a thread stack (psb/cbr,
	// instructions, branches, x, w, g/l); without it sample has nothing
	// to do.
	synth bool
	// everyState: the synthesised samples or thread stacks need every
	// branch state (instructions, branches, g/l); the others (psb/cbr,
	// power events, x, w) come from states the decoder returns even when
	// it walks in bulk (at PSB, CBR, PWRE, MODE.TSX, PTW and their FUPs;
	// ptperf.walkBulk passes nothing with a CBR change pending or in a
	// transaction), so they leave the edge-graph path open.
	everyState bool
	bulkInsns  atomic.Uint64 // instructions walked in bulk (bulk.go; for the tests)
	agg        *aggState     // Handler.Agg's (edge.go)
	timeRanges []tscRange    // --time in TSC (intel_pt_setup_time_ranges)
	block      Block
	blocks     []Block // the batch for Handler.Blocks
	tick       uint64
	res        machine.Resolver
	bufNr      uint64

	branchesEv, instructionsEv, psbEv, cbrEv *sample.Event
	branchesFilter                           uint32
	h                                        Handler
	workH                                    Handler // h as parallel decoding started
	workFlow                                 bool    // flow as parallel decoding started
	freeRunBufs                              chan *runBuf
	parStats                                 [2]int
	aggMerged, aggRefused                    int // chunks whose Agg was merged, refused (pt_par.go)
	todo                                     chan *job
	freeRecs                                 chan []rec
	freeSegs                                 chan Segment
	workers, producers                       sync.WaitGroup
	smp                                      sample.Sample
	walker                                   walker

	// (after the fields the sample path reads)
	ipc, noIPLoc bool // Options.IPC, Options.NoIPLoc
	// --itrace=x, w and the power events of p
	txEv, ptwEv, mwaitEv, pwreEv, exstopEv, pwrxEv *sample.Event
	runQs, runQsSpare                              []*ptQueue // queues with runs for Handler.Runs
}

func (p *ptState) isPTAttr(a *perfdata.Attr) bool { return a != nil && a == p.attr }

// blockBatch is the number of Blocks handed to Handler.Blocks at once.
const blockBatch = 256

func (s *Session) startPT(r *perfdata.RecordAuxtraceInfo) error {
	if r.AuxType != 1 || s.pt != nil {
		return nil
	}
	if len(r.Priv) <= ptPerCPUMmaps {
		return fmt.Errorf("intel_pt: AUXTRACE_INFO has %d private fields, need %d", len(r.Priv), ptPerCPUMmaps+1)
	}
	p := &ptState{s: s, priv: r.Priv, curTID: map[int32][2]int32{}, kernelStart: 1 << 63}
	p.walker.p = p
	p.ipc, p.noIPLoc = s.opts.IPC, s.opts.NoIPLoc
	p.blocks = make([]Block, 0, blockBatch)
	for _, a := range s.f.Attrs {
		if uint64(a.Type) == r.Priv[ptPMUType] && len(a.IDs) > 0 {
			p.attr = a
			break
		}
	}
	p.tc = timeConv{shift: r.Priv[ptTimeShift], mult: r.Priv[ptTimeMult], zero: r.Priv[ptTimeZero]}
	p.perCPU = r.Priv[ptPerCPUMmaps] != 0
	p.mightOverlap = r.Priv[ptSnapshotMode] != 0
	for _, a := range s.f.Attrs {
		if a.SampleType&perfdata.SampleFormatAux != 0 && a.AuxSampleSize != 0 {
			p.mightOverlap = true // intel_pt_sampling_mode
			p.samplingMode = true
		}
	}
	if cfg, ok := p.config(); ok && p.priv[ptTSCBit] != 0 && cfg&p.priv[ptTSCBit] != 0 {
		p.haveTSC = true
	}
	p.sched = r.Priv[ptHaveSchedSwitch]
	if s.opts.Itrace != nil {
		p.opts = *s.opts.Itrace
	} else {
		p.opts.SetDefault(true)
	}
	if s.opts.ThreadStack {
		p.opts.ThreadStack = true
	}
	p.useThreadStack = p.opts.Callchain || p.opts.AddCallchain || p.opts.ThreadStack || p.opts.LastBranch || p.opts.AddLastBranch
	p.callstack = p.opts.Callchain || p.opts.AddCallchain || p.opts.ThreadStack
	p.timeless = p.timelessDecoding()
	if p.timeless && p.tc.mult == 0 {
		p.tc.mult = 1
	}
	if len(r.Priv) > ptMaxNonTurboRatio {
		p.maxNonTurbo = uint32(r.Priv[ptMaxNonTurboRatio])
	}
	if p.tc.mult != 0 {
		freq := p.tc.nsToTicks(1000000000)
		if p.maxNonTurbo == 0 {
			p.maxNonTurbo = uint32((freq + 50000000) / 100000000)
		}
		if p.maxNonTurbo != 0 {
			p.cbr2khz = freq / uint64(p.maxNonTurbo) / 1000
		}
	}
	if !p.timeless { // intel_pt_setup_time_ranges
		for _, r := range s.opts.TimeRanges {
			var x tscRange
			if r.Start != 0 {
				x.start = p.tc.tscStart(r.Start)
			}
			if r.End != 0 {
				x.end = p.tc.tscEnd(r.End)
			}
			p.timeRanges = append(p.timeRanges, x)
		}
	}
	if p.opts.Calls {
		p.branchesFilter |= sample.FlagCall | sample.FlagAsync | sample.FlagTraceEnd
	}
	if p.opts.Returns {
		p.branchesFilter |= sample.FlagReturn | sample.FlagTraceBegin
	}
	s.pt = p
	if err := p.synthEvents(); err != nil {
		return err
	}
	p.everyState = p.instructionsEv != nil || p.branchesEv != nil || p.useThreadStack
	p.synth = p.everyState || p.psbEv != nil || p.xw
	if s.f.Pipe && s.opts.Warn != nil {
		// intel_pt_process_auxtrace_info; in a pipe, AUX samples'
		// data is not queued either (auxtrace_queue_data).
		for _, l := range []string{"WARNING: Intel PT with pipe mode is not recommended.",
			"         The output cannot relied upon.  In particular,",
			"         timestamps and the order of events may be incorrect."} {
			s.opts.Warn(l)
		}
	}
	if s.HasAuxtrace() || p.samplingMode && s.aux != nil {
		// intel_pt_process_auxtrace_info: sampling mode queues the
		// samples' AUX data from a scan of the file, as it does the
		// buffers without an index.
		if err := p.queueIndex(); err != nil {
			return err
		}
	}
	return nil
}

// HasCycles says whether the recording's Intel PT config has the cyc bit
// (CYC packets: Block.Cycles and exact IPC).
func (s *Session) HasCycles() bool {
	if s.pt == nil {
		return s.cycConfig()
	}
	return s.pt.hasCycles()
}

func (p *ptState) hasCycles() bool {
	cfg, ok := p.config()
	if !ok {
		return false
	}
	bit := uint64(cfgCYC)
	if len(p.priv) > ptCYCBit && p.priv[ptCYCBit] != 0 {
		bit = p.priv[ptCYCBit]
	}
	return cfg&bit != 0
}

// cycConfig is HasCycles before the AUXTRACE_INFO record is read: the cyc
// bit of an intel_pt event's config (an attr with IDs whose type is not a
// core one, of a PMU named intel_pt when the file says).
func (s *Session) cycConfig() bool {
	for _, a := range s.f.Attrs {
		if a.Type >= perfTypeMaxCore && len(a.IDs) > 0 && a.Config&cfgPT != 0 && a.Config&cfgBranchEn != 0 {
			return a.Config&cfgCYC != 0
		}
	}
	return false
}

// mayCountCycles says whether PT samples can have IPC counts: the intel_pt
// config has cyc, or mtc (cycles estimated from MTC and CBR).
func (s *Session) mayCountCycles() bool {
	if s.pt != nil {
		cfg, _ := s.pt.config()
		return cfg&(cfgCYC|cfgMTC) != 0
	}
	for _, a := range s.f.Attrs {
		if a.Type >= perfTypeMaxCore && len(a.IDs) > 0 && a.Config&cfgPT != 0 && a.Config&cfgBranchEn != 0 {
			return a.Config&(cfgCYC|cfgMTC) != 0
		}
	}
	return false
}

// perfTypeMaxCore is PERF_TYPE_MAX: dynamic PMUs have larger types.
const perfTypeMaxCore = 6

func (p *ptState) config() (uint64, bool) {
	if p.attr == nil {
		return 0, false
	}
	return p.attr.Config, true
}

// timelessDecoding mirrors intel_pt_timeless_decoding.
func (p *ptState) timelessDecoding() bool {
	if p.priv[ptTSCBit] == 0 || p.priv[ptCapUserTimeZero] == 0 || p.opts.TimelessDecoding {
		return true
	}
	timeless := true
	for _, a := range p.s.f.Attrs {
		if a.SampleType&perfdata.SampleFormatTime == 0 {
			return true
		}
		if uint64(a.Type) == p.priv[ptPMUType] {
			if a.Config&p.priv[ptTSCBit] != 0 {
				timeless = false
			} else {
				return true
			}
		}
	}
	return timeless
}

// synthEvents mirrors intel_pt_synth_events.
func (p *ptState) synthEvents() error {
	if p.attr == nil {
		return nil
	}
	a := p.attr
	st := uint64(a.SampleType)&sampleMask | sample.SampleIP | sample.SampleTID | sample.SamplePeriod
	if p.timeless {
		st &^= sample.SampleTime
	} else {
		st |= sample.SampleTime
	}
	if !p.perCPU {
		st &^= sample.SampleCPU
	}
	mods := (&perfdata.EventAttr{Flags: a.Flags & (perfdata.AttrFlagExcludeUser | perfdata.AttrFlagExcludeKernel |
		perfdata.AttrFlagExcludeHV | perfdata.AttrFlagExcludeHost | perfdata.AttrFlagExcludeGuest)}).Modifiers()
	add := func(name string, typ uint32, config, period, sampleType uint64) (*sample.Event, error) {
		e := &sample.Event{Name: name, AttrType: typ, Config: config, SamplePeriod: period, SampleType: sampleType}
		first := true
		for _, o := range p.s.Events() {
			if o.AttrType == typ {
				first = false
			}
		}
		p.s.synth = append(p.s.synth, e)
		if p.s.OnSynthEvent != nil {
			if err := p.s.OnSynthEvent(e, first); err != nil {
				return nil, err
			}
		}
		return e, nil
	}
	var err error
	if p.opts.Branches {
		if p.branchesEv, err = add("branches"+mods, 0, 4, 1, st|sample.SampleAddr); err != nil {
			return err
		}
	}
	if p.opts.Callchain {
		st |= sample.SampleCallchain
	}
	if p.opts.Instructions {
		period := p.opts.Period
		if p.opts.PeriodType == sample.PeriodNanosecs {
			period = p.tc.nsToTicks(period)
		}
		if p.instructionsEv, err = add("instructions"+mods, 0, 1, period, st); err != nil {
			return err
		}
	}
	st &^= sample.SamplePeriod
	if p.opts.Transactions {
		if p.txEv, err = add("transactions", 0, 1, 1, st); err != nil {
			return err
		}
	}
	st |= sampleRaw
	if p.opts.Ptwrites {
		if p.ptwEv, err = add("ptwrite", sample.PerfTypeSynth, synthPTWrite, 1, st); err != nil {
			return err
		}
	}
	if p.opts.PwrEvents {
		if p.cbrEv, err = add("cbr", sample.PerfTypeSynth, synthCBR, 1, st); err != nil {
			return err
		}
		if p.psbEv, err = add("psb", sample.PerfTypeSynth, synthPSB, 1, st); err != nil {
			return err
		}
		if a.Config&cfgPwrEvt != 0 {
			for _, e := range []struct {
				ev     **sample.Event
				name   string
				config uint64
			}{{&p.mwaitEv, "mwait", synthMWait}, {&p.pwreEv, "pwre", synthPwrE},
				{&p.exstopEv, "exstop", synthExStop}, {&p.pwrxEv, "pwrx", synthPwrX}} {
				if *e.ev, err = add(e.name, sample.PerfTypeSynth, e.config, 1, st); err != nil {
					return err
				}
			}
		}
	}
	p.xw = p.txEv != nil || p.ptwEv != nil
	// perf synthesises "evt" samples from event trace (the event config
	// bit) and "iflag" samples when the CPU can trace events
	// (cap_event_trace); perfpt decodes neither CFE/EVD packets nor
	// interrupt flag changes yet, so it refuses rather than print less.
	if p.opts.IntrEvents && (a.Config&cfgEvent != 0 || p.capEventTrace()) {
		return errors.New("--itrace=I: event trace (CFE/EVD packets, the evt and iflag events) is not supported by perfpt yet")
	}
	return nil
}

// Configs of the PERF_TYPE_SYNTH events (enum perf_synth_id).
const (
	synthPTWrite = iota
	synthMWait
	synthPwrE
	synthExStop
	synthPwrX
	synthCBR
	synthPSB
	synthEvt
)

// cfgPwrEvt is the pwr_evt config bit: MWAIT, PWRE, EXSTOP, PWRX packets;
// cfgEvent the event bit: event trace (CFE and EVD packets).
const (
	cfgPwrEvt = 1 << 4
	cfgEvent  = 1 << 31
)

// capEventTrace reads cap_event_trace, the private word after the filter
// string of AUXTRACE_INFO (intel_pt_process_auxtrace_info).
func (p *ptState) capEventTrace() bool {
	if len(p.priv) <= ptFilterStrLen || p.priv[ptFilterStrLen] >= uint64(len(p.priv))*8 {
		return false
	}
	i := ptFilterStrLen + 1 + int((p.priv[ptFilterStrLen]+8)/8)
	return i < len(p.priv) && p.priv[i] != 0
}

const (
	sampleMask = (1 << 24) - 1 // PERF_SAMPLE_MASK covers the classic bits
	sampleRaw  = 1 << 10
)

// queueIndex queues every AUXTRACE buffer up front, as perf does when the
// file has an AUXTRACE index (auxtrace_queues__process_index).
func (p *ptState) queueIndex() error {
	rs := p.s.f.Records(perfdata.FileOrder)
	for rs.Next() {
		switch r := rs.Record.(type) {
		case *perfdata.RecordAuxtrace:
			p.queueBuffer(r)
		case *perfdata.RecordIDIndex:
			p.noteIDIndex(r)
		case *perfdata.RecordSample:
			if p.samplingMode && len(r.Aux) > 0 {
				p.queueSample(r)
			}
		case *perfdata.RecordComm, *perfdata.RecordFork, *perfdata.RecordMmap, *perfdata.RecordMmap2:
			p.s.mutTotal++
		case *perfdata.RecordItraceStart:
			p.cpuRuns(int32(r.CPU), r.PID)
			p.noteSwitch(r)
		case *perfdata.RecordSwitch:
			p.noteSwitch(r)
			if r.Out() && r.CPUWide {
				p.cpuRuns(int32(r.CPU), r.NextPrevPID)
			} else if !r.Out() {
				p.cpuRuns(int32(r.CPU), r.PID)
			}
		}
	}
	if err := rs.Err(); err != nil {
		return err
	}
	p.dataQueued = true
	return nil
}

// cpuRuns notes that the sideband puts process pid on cpu (for the
// parallel decoding of per-CPU queues; the idle task does not count: it
// leaves no user-space trace). cpuPID[cpu] is the one process seen there,
// -1 after a second one.
func (p *ptState) cpuRuns(cpu, pid int32) {
	if pid <= 0 {
		return
	}
	if p.cpuPID == nil {
		p.cpuPID = map[int32]int32{}
	}
	if old, ok := p.cpuPID[cpu]; !ok {
		p.cpuPID[cpu] = pid
	} else if old != pid {
		p.cpuPID[cpu] = -1
	}
}

func (p *ptState) addBuffer(r *perfdata.RecordAuxtrace) error {
	if p.dataQueued {
		return nil
	}
	p.queueBuffer(r)
	return nil
}

func (p *ptState) queueBuffer(r *perfdata.RecordAuxtrace) {
	if r.CPU != -1 && p.s.opts.CPUs != nil && !p.s.opts.CPUs[r.CPU] {
		return
	}
	idx := int(r.Idx)
	if idx > 1<<16 {
		return
	}
	for len(p.queues) <= idx {
		p.queues = append(p.queues, &ptQueue{pt: p, nr: len(p.queues), qtid: -1, qcpu: -1})
	}
	q := p.queues[idx]
	if !q.set {
		q.set = true
		q.qtid = r.TID
		q.qcpu = r.CPU
	}
	b := auxBuffer{reference: r.Reference, nr: p.nextBufferNr()}
	if uint64(len(r.Data)) == r.AuxSize {
		b.mapped = r.Data
	}
	if p.s.aux != nil && r.DataOffset > 0 && r.AuxSize <= 1<<31 {
		// Read the data when it is decoded, into a reused buffer, so
		// that memory does not grow with the trace (mmapped pages
		// would count in the RSS once touched).
		b.off, b.size = r.DataOffset, int(r.AuxSize)
	} else {
		b.data = r.Data
	}
	q.bufs = append(q.bufs, b)
	p.newData = true
}

func (p *ptState) nextBufferNr() uint64 {
	n := p.bufNr
	p.bufNr++
	return n
}
