package perfdata

// NrCPUs is HEADER_NRCPUS.
type NrCPUs struct {
	Online    uint32 // nr_cpus_online
	Available uint32 // nr_cpus_available
}

// BuildID is one HEADER_BUILD_ID entry (or PERF_RECORD_HEADER_BUILD_ID).
type BuildID struct {
	Misc     uint16 // cpumode (MiscKernel, MiscUser, ...)
	PID      int32
	BuildID  []byte // up to 20 bytes
	Filename string
}

// EventDesc is one HEADER_EVENT_DESC entry.
type EventDesc struct {
	Attr EventAttr
	Name string
	IDs  []uint64
}

// CPUTopology is HEADER_CPU_TOPOLOGY.
type CPUTopology struct {
	CoreSiblings   []string
	ThreadSiblings []string
	CPUs           []CPUTopologyEntry // per-CPU core and socket ids (may be empty)
	DieSiblings    []string
	// DieIDs are per-CPU die ids (len(CPUs) entries, when present).
	DieIDs []uint32
}

// CPUTopologyEntry is the core and socket id of one CPU.
type CPUTopologyEntry struct{ CoreID, SocketID uint32 }

// NUMANode is one HEADER_NUMA_TOPOLOGY node.
type NUMANode struct {
	Node              uint32
	MemTotal, MemFree uint64
	CPUs              string
}

// PMUMapping is one HEADER_PMU_MAPPINGS entry.
type PMUMapping struct {
	Type uint32
	Name string
}

// GroupDesc is one HEADER_GROUP_DESC entry.
type GroupDesc struct {
	Name      string
	Leader    uint32
	NrMembers uint32
}

// AuxtraceIndexEntry is one HEADER_AUXTRACE entry: the file offset and size
// of an AUXTRACE record (size is the 48-byte record, not its data).
type AuxtraceIndexEntry struct {
	Offset int64
	Size   int64
}

// CacheLevel is one HEADER_CACHE entry.
type CacheLevel struct {
	Level, Line, Sets, Ways uint32
	Type, Size, Map         string
}

// MemNode is one HEADER_MEM_TOPOLOGY node.
type MemNode struct {
	Node   uint64
	Size   uint64 // bitmap size in bits
	Bitmap []uint64
}

// MemTopology is HEADER_MEM_TOPOLOGY.
type MemTopology struct {
	Version   uint64
	BlockSize uint64
	Nodes     []MemNode
}

// Compression is HEADER_COMPRESSED.
type Compression struct {
	Version, Type, Level, Ratio, MmapLen uint32
}

// ClockData is HEADER_CLOCK_DATA.
type ClockData struct {
	Version uint32
	ClockID uint32
	WallNS  uint64 // wall clock at reference
	ClockNS uint64 // the event clock at reference
}

// PMUCap is one capability name=value.
type PMUCap struct{ Name, Value string }

// PMUCaps is one PMU's capabilities (HEADER_PMU_CAPS).
type PMUCaps struct {
	PMU  string
	Caps []PMUCap
}

// HybridNode is one HEADER_HYBRID_TOPOLOGY entry.
type HybridNode struct{ PMU, CPUs string }

// Features holds the decoded header feature sections. Sections that are
// absent keep their zero value; Has tells which were present. Sections
// perfdata does not decode (tracing data, BPF info/BTF, stat, and any
// unknown one) are in Raw. The Writer writes a Features value back.
type Features struct {
	present [MaxFeatures / 64]uint64

	BuildIDs       []BuildID
	Hostname       string
	OSRelease      string
	Version        string
	Arch           string
	NrCPUs         NrCPUs
	CPUDesc        string
	CPUID          string
	TotalMem       uint64 // kB
	Cmdline        []string
	EventDesc      []EventDesc
	CPUTopology    CPUTopology
	NUMATopology   []NUMANode
	PMUMappings    []PMUMapping
	GroupDesc      []GroupDesc
	AuxtraceIndex  []AuxtraceIndexEntry
	Cache          []CacheLevel
	SampleTime     [2]uint64 // first and last sample time
	MemTopology    MemTopology
	ClockID        uint64 // clockid resolution (ns)
	DirFormat      uint64
	Compressed     Compression
	CPUPMUCaps     []PMUCap
	ClockData      ClockData
	HybridTopology []HybridNode
	PMUCaps        []PMUCaps
	Raw            map[Feature][]byte

	// Lost lists the sections set in the header that were not decoded:
	// as perf (perf_header__process_sections), decoding goes in feature
	// order and stops at the first section it cannot read, which is
	// Lost[0]; LostErr says why. The sections before it are kept.
	Lost    []Feature
	LostErr error
	// NoTable says the table of feature sections could not be read:
	// every feature the header lists is lost, and perf prints none.
	NoTable bool
}

// Has reports whether the file had the feature section.
func (fs *Features) Has(f Feature) bool {
	return f >= 0 && f < MaxFeatures && fs.present[f/64]&(1<<(f%64)) != 0
}

// Set marks the feature as present (the Writer writes present features).
func (fs *Features) Set(f Feature) {
	if f >= 0 && f < MaxFeatures {
		fs.present[f/64] |= 1 << (f % 64)
	}
}

// Clear marks the feature as absent.
func (fs *Features) Clear(f Feature) {
	if f >= 0 && f < MaxFeatures {
		fs.present[f/64] &^= 1 << (f % 64)
	}
}

// List returns the present features in ascending order.
func (fs *Features) List() []Feature {
	var l []Feature
	for i := Feature(0); i < MaxFeatures; i++ {
		if fs.Has(i) {
			l = append(l, i)
		}
	}
	return l
}
