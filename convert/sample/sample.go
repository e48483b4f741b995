package sample

import (
	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/convert/traceevent"
	"github.com/perfpt/perfpt/perfdata/tracing"
)

// Sample-type bits the printers look at (PERF_SAMPLE_*).
const (
	SampleIP        = 1 << 0
	SampleTID       = 1 << 1
	SampleTime      = 1 << 2
	SampleAddr      = 1 << 3
	SampleCallchain = 1 << 5
	SampleCPU       = 1 << 7
	SamplePeriod    = 1 << 8
	// SampleBranchStack is PERF_SAMPLE_BRANCH_STACK.
	SampleBranchStack  = 1 << 11
	SampleRegsUser     = 1 << 12
	SampleWeight       = 1 << 14
	SampleDataSrc      = 1 << 15
	SampleRegsIntr     = 1 << 18
	SamplePhysAddr     = 1 << 19
	SampleDataPageSize = 1 << 22
	SampleCodePageSize = 1 << 23
	SampleWeightStruct = 1 << 24
)

// PerfTypeSynth is PERF_TYPE_SYNTH, the attr type of synthesised events
// such as intel_pt's ptwrite or cbr.
const PerfTypeSynth = 0x80000000

// MemFields are a sample's memory-access fields, as perf's perf_sample
// has them.
type MemFields struct {
	DataSrc      uint64 // PERF_SAMPLE_DATA_SRC
	Weight       uint64 // PERF_SAMPLE_WEIGHT, or WEIGHT_STRUCT's var1_dw
	InsLat       uint16 // WEIGHT_STRUCT's var2_w
	PStageCyc    uint16 // WEIGHT_STRUCT's var3_w
	PhysAddr     uint64
	DataPageSize uint64
	CodePageSize uint64
}

// Regs are a sample's register dumps, each with its ABI (0: none taken)
// and the mask of the registers it holds, in register order.
type Regs struct {
	IntrABI, IntrMask uint64
	Intr              []uint64
	UserABI, UserMask uint64
	User              []uint64
}

// MemSampleBits are the sample-type bits that fill MemFields.
const MemSampleBits = SampleWeight | SampleDataSrc | SamplePhysAddr | SampleDataPageSize | SampleCodePageSize |
	SampleWeightStruct

// Event describes the event (evsel) a sample belongs to.
type Event struct {
	Name         string
	AttrType     uint32
	Config       uint64
	SampleType   uint64
	SamplePeriod uint64
	// Format is a tracepoint's format from the tracing data (nil when
	// the event is no tracepoint or the data has no format for it);
	// Trace prints its records.
	Format *tracing.Format
	Trace  *traceevent.Printer
	// Leader is the leader of the event's group (perf's evsel->leader,
	// from HEADER_GROUP_DESC), nil when the event leads its own; Members,
	// set on a group's leader, are the group's events in order, the
	// leader first (perf's nr_members of them).
	Leader  *Event
	Members []*Event
}

// IsBTS mirrors is_bts_event: a hardware branch-instructions event with
// period 1, which is how perf synthesises PT branch samples.
func (e *Event) IsBTS() bool {
	return e.AttrType == 0 && e.Config == 4 && e.SamplePeriod == 1
}

// AddrCorrelatesSym mirrors sample_addr_correlates_sym: the sample's
// address is a code address that is printed with its symbol (branches).
func (e *Event) AddrCorrelatesSym() bool {
	if e.AttrType == 1 && (e.Config == 2 || e.Config == 5 || e.Config == 6) {
		return true
	}
	return e.IsBTS()
}

// Loc is an address resolved like perf's addr_location.
type Loc struct {
	HasMap   bool
	DSO      string // the dso name perf prints
	Kernel   bool
	MapStart uint64
	Addr     uint64 // map-relative address (map_ip), or the ip without a map
	Sym      *symbol.Symbol
	// Ref is the resolver's own handle on the map (opaque here).
	Ref any
}

// Frame is one resolved callchain entry.
type Frame struct {
	IP  uint64
	Loc Loc
	// Inlined marks a frame of a function inlined at IP (perf's
	// append_inlines): Loc.Sym is then a symbol named after the inlined
	// function with the range of the function holding it, and perf prints
	// it without the DSO and with " (inlined)".
	Inlined bool
	// HasSrcline says the entry has its own source line, as perf's
	// callchain node has for the entries append_inlines adds: SrcFile
	// and SrcLine as addr2line gave them ("??" and 0 when unknown), which
	// -F srcline prints even when unknown. Without it, the line is
	// looked up when printed (map__fprintf_srcline).
	HasSrcline bool
	SrcFile    string
	SrcLine    int
	// More says the next entry comes from the same address's addr2line
	// answer (append_inlines adds one entry per record, the functions
	// inlined there first).
	More bool
}

// Resolver resolves addresses in the context of one sample's thread.
type Resolver interface {
	// ResolveAddr resolves a branch target (perf's thread__resolve on
	// sample->addr).
	ResolveAddr(addr uint64) Loc
	// Srcline returns what perf's map__srcline gives for l ("??:0" when
	// unknown, as perf; "" without a map).
	Srcline(l *Loc) string
}

// Sample is one sample to print, real or synthesised.
type Sample struct {
	Ev       *Event
	Comm     string
	PID, TID int32
	CPU      uint32
	Time     uint64
	Period   uint64
	IP, Addr uint64
	// Raw is the PERF_SAMPLE_RAW payload (a tracepoint's record).
	Raw       []byte
	Flags     uint32
	InsnLen   int
	Insn      []byte
	InsnCnt   uint64
	CycCnt    uint64
	IPLoc     Loc
	Callchain []Frame // nil: none
	// Depth is the thread-stack depth for callindent.
	Depth int
	// HasThreadStack says the thread keeps a call stack (perf's
	// thread->ts), which changes the callindent depth of returns.
	HasThreadStack bool
	Res            Resolver
	// Synth is the payload of a synthesised PT event (psb, cbr,
	// ptwrite, power events).
	Synth Synth
	// Mem holds the memory-access fields of a sampled event (data_src,
	// weight, ins_lat, phys_addr, page sizes); nil for other samples.
	Mem *MemFields
	// Misc is the sample record's header misc (the cpumode bits perf
	// script's misc field prints); 0 for synthesised samples.
	Misc uint16
	// Regs holds the registers of a sampled event that records them
	// (PERF_SAMPLE_REGS_INTR, _REGS_USER); nil for other samples.
	Regs *Regs

	// BranchStack is the sample's branch stack (perf's branch_stack:
	// last branch records of --itrace=l, or a branch-stack sampled
	// event), the most recent branch first; nil: none.
	BranchStack []BranchEntry
	// BranchLocs, when set, holds the resolved From (2i) and To (2i+1)
	// of each BranchStack entry, for printing away from the session;
	// otherwise Res resolves them.
	BranchLocs []Loc

	// Pre-resolved values, for printing away from the session (when set,
	// Res is not asked): the branch target and the IP's source line.
	AddrLoc   Loc
	AddrOK    bool
	Srcline   string
	SrclineOK bool
}

// Detach resolves what printing s may ask of its Resolver (the branch
// target, and the IP's source line when srcline is printed), so that s can
// be printed after the session has moved on; Res is cleared.
func (s *Sample) Detach(srcline bool) {
	if s.Res == nil {
		return
	}
	if s.Ev != nil && s.Ev.AddrCorrelatesSym() {
		s.AddrLoc, s.AddrOK = s.Res.ResolveAddr(s.Addr), true
	}
	if srcline && s.IPLoc.HasMap {
		s.Srcline, s.SrclineOK = s.Res.Srcline(&s.IPLoc), true
	}
	s.Res = nil
}

// BranchEntry is one entry of a branch stack (perf's branch_entry).
type BranchEntry struct {
	From, To uint64
	Cycles   uint16 // cycles since the previous branch (0: unknown)
	// Type is the branch type (PERF_BR_*, 0 unknown); NewType the
	// PERF_BR_NEW_* type when Type is PERF_BR_EXTEND_ABI (15).
	Type, NewType uint8
	Mispred       bool
	Predicted     bool
	InTx          bool // in a transaction
	Abort         bool // transaction abort
}

// SynthKind says which synthesised event a Synth holds.
type SynthKind uint8

// Synthesised event kinds (perf's PERF_SYNTH_INTEL_*).
const (
	SynthNone SynthKind = iota
	SynthPSB
	SynthCBR
	SynthPTWrite
	SynthMWait
	SynthPwrE
	SynthExStop
	SynthPwrX
)

// Synth is the payload of a PERF_TYPE_SYNTH sample (perf's
// perf_synth_intel_* records); each kind uses the fields named for it.
type Synth struct {
	Kind SynthKind
	// IP is the payload's IP bit: the event's IP is exact (ptwrite,
	// exstop).
	IP bool
	// HW: the C-state was requested by hardware (pwre).
	HW            bool
	Hints         uint8  // mwait
	Extensions    uint8  // mwait
	CState        uint8  // pwre
	SubCState     uint8  // pwre
	DeepestCState uint8  // pwrx
	LastCState    uint8  // pwrx
	WakeReason    uint8  // pwrx
	Offset        uint64 // psb
	Payload       uint64 // ptwrite
	CBR           uint32 // cbr
	Freq          uint32 // cbr: kHz
	MaxNonTurbo   uint32 // cbr
}
