package perfdata

// Record is one decoded perf.data record. Its concrete type is one of the
// Record* types of this package (a pointer), e.g. *RecordSample; records of
// an unknown type come as *RecordUnknown.
type Record interface {
	Common() *RecordCommon
}

// Misc bits of perf_event_header.misc.
const (
	MiscCPUModeMask      = 7
	MiscKernel           = 1
	MiscUser             = 2
	MiscHypervisor       = 3
	MiscGuestKernel      = 4
	MiscGuestUser        = 5
	MiscMmapBuildID      = 1 << 14 // MMAP2 carries a build id instead of maj/min/ino
	MiscMmapData         = 1 << 13 // MMAP of non-executable data
	MiscCommExec         = 1 << 13 // COMM caused by exec
	MiscForkExec         = 1 << 13
	MiscSwitchOut        = 1 << 13 // SWITCH: switching out
	MiscSwitchOutPreempt = 1 << 14 // SWITCH out was a preemption
	MiscExactIP          = 1 << 14 // SAMPLE ip is exact
	MiscExtReserved      = 1 << 15
)

// SampleID holds the sample_id fields: the leading fields of a SAMPLE or the
// trailer perf appends to other kernel records when sample_id_all is set.
// Format says which were present.
type SampleID struct {
	Format   SampleFormat // the sample_type bits that were present
	PID, TID int32
	Time     uint64
	ID       uint64
	StreamID uint64
	CPU      uint32
	Res      uint32
}

// RecordCommon is embedded in every record.
type RecordCommon struct {
	// Offset is the file offset of the record's header. In pipe mode it
	// counts from the end of the 16-byte pipe header, as perf prints it.
	// For a record unpacked from a COMPRESSED record it is the offset of
	// that COMPRESSED record and Compressed is true.
	Offset     int64
	Type       RecordType
	Misc       uint16
	Size       int // perf_event_header.size (for AUXTRACE: without its data)
	Compressed bool
	// Source is the file the record is in: 0 for the one Open opened,
	// N for a perf.data directory's N-th data.* file (File.SourcePath).
	Source int
	// Attr is the event the record belongs to (found through its sample
	// id, or the only attr); nil for user records or when unknown.
	Attr *Attr
	SampleID
}

// Common returns the embedded RecordCommon; it makes each record a Record.
func (c *RecordCommon) Common() *RecordCommon { return c }

// CPUMode returns Misc & MiscCPUModeMask.
func (c *RecordCommon) CPUMode() int { return int(c.Misc & MiscCPUModeMask) }

// RecordMmap is PERF_RECORD_MMAP.
type RecordMmap struct {
	RecordCommon
	PID, TID int32
	Addr     uint64
	Len      uint64
	PgOff    uint64
	Filename string
}

// RecordMmap2 is PERF_RECORD_MMAP2. With Misc&MiscMmapBuildID the record
// holds BuildID instead of Maj/Min/Ino/InoGeneration.
type RecordMmap2 struct {
	RecordCommon
	PID, TID      int32
	Addr          uint64
	Len           uint64
	PgOff         uint64
	Maj, Min      uint32
	Ino           uint64
	InoGeneration uint64
	BuildID       []byte // 0-20 bytes, when Misc&MiscMmapBuildID
	Prot, Flags   uint32
	Filename      string
}

// RecordComm is PERF_RECORD_COMM (Misc&MiscCommExec marks an exec).
type RecordComm struct {
	RecordCommon
	PID, TID int32
	Comm     string
}

// Exec reports whether the COMM record comes from an exec.
func (r *RecordComm) Exec() bool { return r.Misc&MiscCommExec != 0 }

// RecordExit is PERF_RECORD_EXIT.
type RecordExit struct {
	RecordCommon
	PID, PPID, TID, PTID int32
	ExitTime             uint64
}

// RecordFork is PERF_RECORD_FORK.
type RecordFork struct {
	RecordCommon
	PID, PPID, TID, PTID int32
	ForkTime             uint64
}

// RecordLost is PERF_RECORD_LOST.
type RecordLost struct {
	RecordCommon
	LostID uint64
	Lost   uint64
}

// RecordThrottle is PERF_RECORD_THROTTLE or PERF_RECORD_UNTHROTTLE (Type
// tells which).
type RecordThrottle struct {
	RecordCommon
	ThrottleTime     uint64
	ThrottleID       uint64
	ThrottleStreamID uint64
}

// ReadValue is one counter of a read_format value.
type ReadValue struct {
	Value uint64
	ID    uint64 // with ReadFormatID
	Lost  uint64 // with ReadFormatLost
}

// ReadValues is a decoded read_format block (PERF_RECORD_READ and
// PERF_SAMPLE_READ).
type ReadValues struct {
	TimeEnabled uint64
	TimeRunning uint64
	Values      []ReadValue // one, or the group's members with ReadFormatGroup
}

// RecordRead is PERF_RECORD_READ.
type RecordRead struct {
	RecordCommon
	PID, TID int32
	Values   ReadValues
}

// BranchEntry is one perf_branch_entry of a branch stack.
type BranchEntry struct {
	From, To uint64
	Flags    uint64 // mispred, predicted, in_tx, abort, cycles, type, ...
}

// RecordSample is PERF_RECORD_SAMPLE. The SampleID fields of RecordCommon
// hold pid/tid, time, id, stream id and cpu; the rest is here. Slices alias
// the file's memory (mmap) or a buffer owned by the record.
type RecordSample struct {
	RecordCommon
	IP               uint64
	Addr             uint64
	Period           uint64
	Read             ReadValues
	Callchain        []uint64 // including PERF_CONTEXT_* markers, as stored
	Raw              []byte
	BranchHwIdx      int64 // -1 unless branch_sample_type has BranchSampleHwIndex
	BranchStack      []BranchEntry
	RegsUserABI      uint64
	RegsUser         []uint64
	StackUser        []byte
	StackUserOffset  int // offset in the record of the user stack's size field
	StackUserDynSize uint64
	Weight           uint64 // PERF_SAMPLE_WEIGHT or the full WEIGHT_STRUCT word
	DataSrc          uint64
	Transaction      uint64
	RegsIntrABI      uint64
	RegsIntr         []uint64
	PhysAddr         uint64
	Aux              []byte
	Cgroup           uint64
	DataPageSize     uint64
	CodePageSize     uint64
}

// Callchain context markers (PERF_CONTEXT_*) found in Callchain.
const (
	CallchainHV          = ^uint64(32 - 1)   // -32
	CallchainKernel      = ^uint64(128 - 1)  // -128
	CallchainUser        = ^uint64(512 - 1)  // -512
	CallchainGuest       = ^uint64(2048 - 1) // -2048
	CallchainGuestKernel = ^uint64(2176 - 1) // -2176
	CallchainGuestUser   = ^uint64(2560 - 1) // -2560
	CallchainMax         = ^uint64(4095 - 1) // -4095: values above are markers
)

// RecordAux is PERF_RECORD_AUX: the kernel wrote AuxSize bytes of trace at
// AuxOffset of the AUX area.
type RecordAux struct {
	RecordCommon
	AuxOffset uint64
	AuxSize   uint64
	Flags     uint64 // PERF_AUX_FLAG_TRUNCATED (1), OVERWRITE (2), PARTIAL (4), COLLISION (8)
}

// AUX record flags.
const (
	AuxFlagTruncated = 1
	AuxFlagOverwrite = 2
	AuxFlagPartial   = 4
	AuxFlagCollision = 8
)

// RecordItraceStart is PERF_RECORD_ITRACE_START.
type RecordItraceStart struct {
	RecordCommon
	PID, TID int32
}

// RecordLostSamples is PERF_RECORD_LOST_SAMPLES.
type RecordLostSamples struct {
	RecordCommon
	Lost uint64
}

// RecordSwitch is PERF_RECORD_SWITCH or PERF_RECORD_SWITCH_CPU_WIDE. For
// the CPU-wide form NextPrevPID/TID name the other task.
type RecordSwitch struct {
	RecordCommon
	CPUWide                  bool
	NextPrevPID, NextPrevTID int32
}

// Out reports a switch out (else in).
func (r *RecordSwitch) Out() bool { return r.Misc&MiscSwitchOut != 0 }

// Preempt reports a switch out by preemption.
func (r *RecordSwitch) Preempt() bool { return r.Misc&MiscSwitchOutPreempt != 0 }

// NamespaceLink is one (dev, inode) pair of RecordNamespaces.
type NamespaceLink struct{ Dev, Ino uint64 }

// RecordNamespaces is PERF_RECORD_NAMESPACES.
type RecordNamespaces struct {
	RecordCommon
	PID, TID   int32
	Namespaces []NamespaceLink
}

// RecordKsymbol is PERF_RECORD_KSYMBOL.
type RecordKsymbol struct {
	RecordCommon
	Addr      uint64
	Len       uint32
	KsymType  uint16
	KsymFlags uint16
	Name      string
}

// RecordBPFEvent is PERF_RECORD_BPF_EVENT.
type RecordBPFEvent struct {
	RecordCommon
	BPFType  uint16
	BPFFlags uint16
	BPFID    uint32
	Tag      [8]byte
}

// RecordCgroup is PERF_RECORD_CGROUP.
type RecordCgroup struct {
	RecordCommon
	CgroupID uint64
	Path     string
}

// RecordTextPoke is PERF_RECORD_TEXT_POKE.
type RecordTextPoke struct {
	RecordCommon
	Addr     uint64
	Old, New []byte
}

// RecordAuxOutputHwID is PERF_RECORD_AUX_OUTPUT_HW_ID.
type RecordAuxOutputHwID struct {
	RecordCommon
	HwID uint64
}

// RecordHeaderAttr is PERF_RECORD_HEADER_ATTR (pipe mode): an event's attr
// and ids.
type RecordHeaderAttr struct {
	RecordCommon
	Attr EventAttr
	IDs  []uint64
}

// RecordTracingData is PERF_RECORD_HEADER_TRACING_DATA; Data is the
// tracing data that follows the record (Size bytes, padded to 8).
type RecordTracingData struct {
	RecordCommon
	DataSize uint32
	Data     []byte
}

// RecordBuildID is PERF_RECORD_HEADER_BUILD_ID.
type RecordBuildID struct {
	RecordCommon
	PID      int32
	BuildID  []byte
	Filename string
}

// RecordFinishedRound is PERF_RECORD_FINISHED_ROUND.
type RecordFinishedRound struct{ RecordCommon }

// RecordFinishedInit is PERF_RECORD_FINISHED_INIT.
type RecordFinishedInit struct{ RecordCommon }

// IDIndexEntry maps a sample id to its attr index, CPU and thread.
type IDIndexEntry struct {
	ID, Idx, CPU, TID uint64
	MachinePID, VCPU  uint64 // when RecordIDIndex.HasMachine
}

// RecordIDIndex is PERF_RECORD_ID_INDEX.
type RecordIDIndex struct {
	RecordCommon
	Entries    []IDIndexEntry
	HasMachine bool // the record has the machine_pid/vcpu array
}

// Auxtrace types of RecordAuxtraceInfo.
const (
	AuxtraceUnknown    = 0
	AuxtraceIntelPT    = 1
	AuxtraceIntelBTS   = 2
	AuxtraceCSETM      = 3
	AuxtraceARMSPE     = 4
	AuxtraceS390CPUMSF = 5
)

// RecordAuxtraceInfo is PERF_RECORD_AUXTRACE_INFO. For Intel PT (Type 1)
// Priv holds PMU type, TSC time shift/mult/zero, cap_user_time_zero, TSC
// bit, noretcomp bit, have_sched_switch, snapshot mode, per-cpu mmaps, ...
// (see PERF-FACTS.md).
type RecordAuxtraceInfo struct {
	RecordCommon
	AuxType  uint32
	Reserved uint32
	Priv     []uint64
}

// RecordAuxtrace is PERF_RECORD_AUXTRACE: a buffer of AUX trace data that
// follows the 48-byte record in the file. Data aliases the file's memory
// (zero copy) when the file is mmapped or given as a *bytes.Reader-like
// in-memory source, else it is read on demand; DataOffset and AuxSize
// locate it in the file so decoders can read it lazily through File.ReaderAt.
type RecordAuxtrace struct {
	RecordCommon
	AuxSize    uint64 // bytes of trace data after the record
	AuxOffset  uint64 // offset of the data in the AUX area
	Reference  uint64
	Idx        uint32
	TID        int32 // the buffer's thread (-1 for per-CPU)
	CPU        int32 // the buffer's CPU (-1 for per-thread)
	Reserved   uint32
	DataOffset int64 // file offset of the trace data (Offset + Size)
	Data       []byte
}

// RecordAuxtraceError is PERF_RECORD_AUXTRACE_ERROR.
type RecordAuxtraceError struct {
	RecordCommon
	ErrType    uint32
	Code       uint32
	ErrCPU     int32
	ErrPID     int32
	ErrTID     int32
	Fmt        uint32
	IP         uint64
	ErrTime    uint64
	Msg        string
	MachinePID int32
	VCPU       int32
}

// ThreadMapEntry is one thread of RecordThreadMap.
type ThreadMapEntry struct {
	PID  uint64
	Comm string
}

// RecordThreadMap is PERF_RECORD_THREAD_MAP.
type RecordThreadMap struct {
	RecordCommon
	Entries []ThreadMapEntry
}

// RecordCPUMap is PERF_RECORD_CPU_MAP; CPUs lists the CPUs however stored
// (list, mask or range).
type RecordCPUMap struct {
	RecordCommon
	CPUs []int
}

// StatConfigEntry is one tag/value of RecordStatConfig.
type StatConfigEntry struct{ Tag, Val uint64 }

// RecordStatConfig is PERF_RECORD_STAT_CONFIG.
type RecordStatConfig struct {
	RecordCommon
	Entries []StatConfigEntry
}

// RecordStat is PERF_RECORD_STAT.
type RecordStat struct {
	RecordCommon
	StatID        uint64
	StatCPU       uint32
	Thread        uint32
	Val, Ena, Run uint64
}

// RecordStatRound is PERF_RECORD_STAT_ROUND.
type RecordStatRound struct {
	RecordCommon
	RoundType uint64
	RoundTime uint64
}

// RecordEventUpdate is PERF_RECORD_EVENT_UPDATE: a unit, scale, name or
// CPU list (by UpdateType, EventUpdate*) for the event with id UpdateID.
// Data holds the raw payload.
type RecordEventUpdate struct {
	RecordCommon
	UpdateType uint64
	UpdateID   uint64
	Unit       string
	Scale      float64
	Name       string
	CPUs       []int
	Data       []byte
}

// RecordTimeConv is PERF_RECORD_TIME_CONV: the TSC to perf time conversion
// (and since Linux 5.11 the extended fields, present when Size >= 56).
type RecordTimeConv struct {
	RecordCommon
	TimeShift        uint64
	TimeMult         uint64
	TimeZero         uint64
	TimeCycles       uint64
	TimeMask         uint64
	CapUserTimeZero  bool
	CapUserTimeShort bool
	Extended         bool // whether the record had the cycles/mask/cap fields
}

// RecordHeaderFeature is PERF_RECORD_HEADER_FEATURE (pipe mode): one
// feature section.
type RecordHeaderFeature struct {
	RecordCommon
	Feature Feature
	Data    []byte
}

// RecordEventType is the obsolete PERF_RECORD_HEADER_EVENT_TYPE.
type RecordEventType struct {
	RecordCommon
	EventID uint64
	Name    string
}

// RecordCompressed is PERF_RECORD_COMPRESSED. The record iterators unpack
// it and never return it; the Writer accepts it to store raw data.
type RecordCompressed struct {
	RecordCommon
	Data []byte
}

// RecordUnknown is a record of a type this package does not know; Data is
// its body after the 8-byte header.
type RecordUnknown struct {
	RecordCommon
	Data []byte
}
