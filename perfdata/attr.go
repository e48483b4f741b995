package perfdata

import "encoding/binary"

// AttrFlags is the bit-field word of perf_event_attr (disabled, inherit, ...).
type AttrFlags uint64

// perf_event_attr flag bits.
const (
	AttrFlagDisabled AttrFlags = 1 << iota
	AttrFlagInherit
	AttrFlagPinned
	AttrFlagExclusive
	AttrFlagExcludeUser
	AttrFlagExcludeKernel
	AttrFlagExcludeHV
	AttrFlagExcludeIdle
	AttrFlagMmap
	AttrFlagComm
	AttrFlagFreq
	AttrFlagInheritStat
	AttrFlagEnableOnExec
	AttrFlagTask
	AttrFlagWatermark
	attrFlagPreciseIP0
	attrFlagPreciseIP1
	AttrFlagMmapData
	AttrFlagSampleIDAll
	AttrFlagExcludeHost
	AttrFlagExcludeGuest
	AttrFlagExcludeCallchainKernel
	AttrFlagExcludeCallchainUser
	AttrFlagMmap2
	AttrFlagCommExec
	AttrFlagUseClockID
	AttrFlagContextSwitch
	AttrFlagWriteBackward
	AttrFlagNamespaces
	AttrFlagKsymbol
	AttrFlagBPFEvent
	AttrFlagAuxOutput
	AttrFlagCgroup
	AttrFlagTextPoke
	AttrFlagBuildID
	AttrFlagInheritThread
	AttrFlagRemoveOnExec
	AttrFlagSigtrap
)

var attrFlagNames = []string{
	"disabled", "inherit", "pinned", "exclusive", "exclude_user",
	"exclude_kernel", "exclude_hv", "exclude_idle", "mmap", "comm", "freq",
	"inherit_stat", "enable_on_exec", "task", "watermark", "precise_ip",
	"precise_ip", "mmap_data", "sample_id_all", "exclude_host",
	"exclude_guest", "exclude_callchain_kernel", "exclude_callchain_user",
	"mmap2", "comm_exec", "use_clockid", "context_switch", "write_backward",
	"namespaces", "ksymbol", "bpf_event", "aux_output", "cgroup", "text_poke",
	"build_id", "inherit_thread", "remove_on_exec", "sigtrap",
}

func (f AttrFlags) String() string { return bitNames(uint64(f), attrFlagNames) }

// EventAttr is a decoded perf_event_attr, in any of its sizes (64 to 136
// bytes and beyond; unknown trailing bytes are ignored when reading).
type EventAttr struct {
	Type             AttrType
	Size             uint32 // size as stored; the writer uses AttrSize when 0
	Config           uint64
	SamplePeriod     uint64 // sample_period, or sample_freq when Flags has AttrFlagFreq
	SampleType       SampleFormat
	ReadFormat       ReadFormat
	Flags            AttrFlags
	WakeupEvents     uint32 // wakeup_events or wakeup_watermark
	BPType           uint32
	Config1          uint64 // config1 or bp_addr
	Config2          uint64 // config2 or bp_len
	BranchSampleType BranchSampleFormat
	SampleRegsUser   uint64
	SampleStackUser  uint32
	ClockID          int32
	SampleRegsIntr   uint64
	AuxWatermark     uint32
	SampleMaxStack   uint16
	AuxSampleSize    uint32
	SigData          uint64
	Config3          uint64
}

// AttrSize is the size of perf_event_attr this package writes (version 7,
// as perf 6.1 writes; perf 6.1 rejects bigger attrs). Config3 is not written.
const AttrSize = 128

// attrSize0 is PERF_ATTR_SIZE_VER0, the smallest valid attr.
const attrSize0 = 64

// attrSizeMax is the biggest attr (version 8, with config3) decoded.
const attrSizeMax = 136

// SampleIDAll reports whether non-sample records carry a sample_id trailer.
func (a *EventAttr) SampleIDAll() bool { return a.Flags&AttrFlagSampleIDAll != 0 }

// PreciseIP returns the precise_ip field (0-3).
func (a *EventAttr) PreciseIP() int { return int(a.Flags>>15) & 3 }

// SetPreciseIP sets the precise_ip field.
func (a *EventAttr) SetPreciseIP(p int) {
	a.Flags = a.Flags&^(3<<15) | AttrFlags(p&3)<<15
}

// decodeAttr decodes b (the attr's stored bytes, len(b) >= 64).
func decodeAttr(b []byte) EventAttr {
	var full [attrSizeMax]byte
	copy(full[:], b)
	le := binary.LittleEndian
	return EventAttr{
		Type:             AttrType(le.Uint32(full[0:])),
		Size:             le.Uint32(full[4:]),
		Config:           le.Uint64(full[8:]),
		SamplePeriod:     le.Uint64(full[16:]),
		SampleType:       SampleFormat(le.Uint64(full[24:])),
		ReadFormat:       ReadFormat(le.Uint64(full[32:])),
		Flags:            AttrFlags(le.Uint64(full[40:])),
		WakeupEvents:     le.Uint32(full[48:]),
		BPType:           le.Uint32(full[52:]),
		Config1:          le.Uint64(full[56:]),
		Config2:          le.Uint64(full[64:]),
		BranchSampleType: BranchSampleFormat(le.Uint64(full[72:])),
		SampleRegsUser:   le.Uint64(full[80:]),
		SampleStackUser:  le.Uint32(full[88:]),
		ClockID:          int32(le.Uint32(full[92:])),
		SampleRegsIntr:   le.Uint64(full[96:]),
		AuxWatermark:     le.Uint32(full[104:]),
		SampleMaxStack:   le.Uint16(full[108:]),
		AuxSampleSize:    le.Uint32(full[112:]),
		SigData:          le.Uint64(full[120:]),
		Config3:          le.Uint64(full[128:]),
	}
}

// appendAttr appends the AttrSize-byte encoding of a.
func appendAttr(b []byte, a *EventAttr) []byte {
	var full [AttrSize]byte
	le := binary.LittleEndian
	le.PutUint32(full[0:], uint32(a.Type))
	le.PutUint32(full[4:], AttrSize)
	le.PutUint64(full[8:], a.Config)
	le.PutUint64(full[16:], a.SamplePeriod)
	le.PutUint64(full[24:], uint64(a.SampleType))
	le.PutUint64(full[32:], uint64(a.ReadFormat))
	le.PutUint64(full[40:], uint64(a.Flags))
	le.PutUint32(full[48:], a.WakeupEvents)
	le.PutUint32(full[52:], a.BPType)
	le.PutUint64(full[56:], a.Config1)
	le.PutUint64(full[64:], a.Config2)
	le.PutUint64(full[72:], uint64(a.BranchSampleType))
	le.PutUint64(full[80:], a.SampleRegsUser)
	le.PutUint32(full[88:], a.SampleStackUser)
	le.PutUint32(full[92:], uint32(a.ClockID))
	le.PutUint64(full[96:], a.SampleRegsIntr)
	le.PutUint32(full[104:], a.AuxWatermark)
	le.PutUint16(full[108:], a.SampleMaxStack)
	le.PutUint32(full[112:], a.AuxSampleSize)
	le.PutUint64(full[120:], a.SigData)
	return append(b, full[:]...)
}

// Attr is one event of a file: its perf_event_attr and the sample ids the
// kernel gave its instances (one per CPU or thread).
type Attr struct {
	EventAttr
	IDs  []uint64
	Name string // from HEADER_EVENT_DESC or EVENT_UPDATE, "" when unknown
	// Named says the recording names the event (perf's evsel->name is
	// set), which it may do with an empty name.
	Named bool
	Index int // position in File.Attrs
}
