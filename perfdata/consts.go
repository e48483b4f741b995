package perfdata

import "strconv"

// RecordType is perf_event_header.type: a kernel record (below 64) or one of
// perf's user records (64 and above).
type RecordType uint32

// Kernel record types (include/uapi/linux/perf_event.h).
const (
	RecordTypeMmap            RecordType = 1
	RecordTypeLost            RecordType = 2
	RecordTypeComm            RecordType = 3
	RecordTypeExit            RecordType = 4
	RecordTypeThrottle        RecordType = 5
	RecordTypeUnthrottle      RecordType = 6
	RecordTypeFork            RecordType = 7
	RecordTypeRead            RecordType = 8
	RecordTypeSample          RecordType = 9
	RecordTypeMmap2           RecordType = 10
	RecordTypeAux             RecordType = 11
	RecordTypeItraceStart     RecordType = 12
	RecordTypeLostSamples     RecordType = 13
	RecordTypeSwitch          RecordType = 14
	RecordTypeSwitchCPUWide   RecordType = 15
	RecordTypeNamespaces      RecordType = 16
	RecordTypeKsymbol         RecordType = 17
	RecordTypeBPFEvent        RecordType = 18
	RecordTypeCgroup          RecordType = 19
	RecordTypeTextPoke        RecordType = 20
	RecordTypeAuxOutputHwID   RecordType = 21
	recordTypeKernelMax       RecordType = 22
	RecordTypeUserStart       RecordType = 64
	RecordTypeHeaderAttr      RecordType = 64
	RecordTypeHeaderEventType RecordType = 65
	RecordTypeHeaderTracing   RecordType = 66
	RecordTypeHeaderBuildID   RecordType = 67
	RecordTypeFinishedRound   RecordType = 68
	RecordTypeIDIndex         RecordType = 69
	RecordTypeAuxtraceInfo    RecordType = 70
	RecordTypeAuxtrace        RecordType = 71
	RecordTypeAuxtraceError   RecordType = 72
	RecordTypeThreadMap       RecordType = 73
	RecordTypeCPUMap          RecordType = 74
	RecordTypeStatConfig      RecordType = 75
	RecordTypeStat            RecordType = 76
	RecordTypeStatRound       RecordType = 77
	RecordTypeEventUpdate     RecordType = 78
	RecordTypeTimeConv        RecordType = 79
	RecordTypeHeaderFeature   RecordType = 80
	RecordTypeCompressed      RecordType = 81
	RecordTypeFinishedInit    RecordType = 82
	RecordTypeCompressed2     RecordType = 83
	recordTypeMax             RecordType = 84
)

// recordNames are perf's names (tools/perf/util/event.c perf_event__names).
var recordNames = [recordTypeMax]string{
	0:                         "TOTAL",
	RecordTypeMmap:            "MMAP",
	RecordTypeLost:            "LOST",
	RecordTypeComm:            "COMM",
	RecordTypeExit:            "EXIT",
	RecordTypeThrottle:        "THROTTLE",
	RecordTypeUnthrottle:      "UNTHROTTLE",
	RecordTypeFork:            "FORK",
	RecordTypeRead:            "READ",
	RecordTypeSample:          "SAMPLE",
	RecordTypeMmap2:           "MMAP2",
	RecordTypeAux:             "AUX",
	RecordTypeItraceStart:     "ITRACE_START",
	RecordTypeLostSamples:     "LOST_SAMPLES",
	RecordTypeSwitch:          "SWITCH",
	RecordTypeSwitchCPUWide:   "SWITCH_CPU_WIDE",
	RecordTypeNamespaces:      "NAMESPACES",
	RecordTypeKsymbol:         "KSYMBOL",
	RecordTypeBPFEvent:        "BPF_EVENT",
	RecordTypeCgroup:          "CGROUP",
	RecordTypeTextPoke:        "TEXT_POKE",
	RecordTypeAuxOutputHwID:   "AUX_OUTPUT_HW_ID",
	RecordTypeHeaderAttr:      "ATTR",
	RecordTypeHeaderEventType: "EVENT_TYPE",
	RecordTypeHeaderTracing:   "TRACING_DATA",
	RecordTypeHeaderBuildID:   "BUILD_ID",
	RecordTypeFinishedRound:   "FINISHED_ROUND",
	RecordTypeIDIndex:         "ID_INDEX",
	RecordTypeAuxtraceInfo:    "AUXTRACE_INFO",
	RecordTypeAuxtrace:        "AUXTRACE",
	RecordTypeAuxtraceError:   "AUXTRACE_ERROR",
	RecordTypeThreadMap:       "THREAD_MAP",
	RecordTypeCPUMap:          "CPU_MAP",
	RecordTypeStatConfig:      "STAT_CONFIG",
	RecordTypeStat:            "STAT",
	RecordTypeStatRound:       "STAT_ROUND",
	RecordTypeEventUpdate:     "EVENT_UPDATE",
	RecordTypeTimeConv:        "TIME_CONV",
	RecordTypeHeaderFeature:   "FEATURE",
	RecordTypeCompressed:      "COMPRESSED",
	RecordTypeFinishedInit:    "FINISHED_INIT",
	RecordTypeCompressed2:     "COMPRESSED2",
}

// Name returns perf's name for the type without the PERF_RECORD_ prefix
// ("MMAP2", "SAMPLE", ...), or "UNKNOWN(n)".
func (t RecordType) Name() string {
	if t < recordTypeMax && recordNames[t] != "" {
		return recordNames[t]
	}
	return "UNKNOWN(" + strconv.FormatUint(uint64(t), 10) + ")"
}

// recordStrings are "PERF_RECORD_" + name, built once.
var recordStrings = func() (s [recordTypeMax]string) {
	for i, n := range recordNames {
		if n != "" {
			s[i] = "PERF_RECORD_" + n
		}
	}
	return s
}()

// String returns "PERF_RECORD_" + Name().
func (t RecordType) String() string {
	if t < recordTypeMax && recordStrings[t] != "" {
		return recordStrings[t]
	}
	return "PERF_RECORD_" + t.Name()
}

// IsUser reports whether t is one of perf's user (synthesised) record types.
func (t RecordType) IsUser() bool { return t >= RecordTypeUserStart }

// SampleFormat is perf_event_attr.sample_type: which fields a sample holds.
type SampleFormat uint64

// Sample format bits (enum perf_event_sample_format).
const (
	SampleFormatIP SampleFormat = 1 << iota
	SampleFormatTID
	SampleFormatTime
	SampleFormatAddr
	SampleFormatRead
	SampleFormatCallchain
	SampleFormatID
	SampleFormatCPU
	SampleFormatPeriod
	SampleFormatStreamID
	SampleFormatRaw
	SampleFormatBranchStack
	SampleFormatRegsUser
	SampleFormatStackUser
	SampleFormatWeight
	SampleFormatDataSrc
	SampleFormatIdentifier
	SampleFormatTransaction
	SampleFormatRegsIntr
	SampleFormatPhysAddr
	SampleFormatAux
	SampleFormatCgroup
	SampleFormatDataPageSize
	SampleFormatCodePageSize
	SampleFormatWeightStruct
)

var sampleFormatNames = []string{
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
	"STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
	"DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
	"CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
}

// String lists the set bits as perf prints them: "IP|TID|TIME".
func (s SampleFormat) String() string { return bitNames(uint64(s), sampleFormatNames) }

// sampleIDFields are the sample_type bits that appear in a sample_id trailer.
const sampleIDFields = SampleFormatTID | SampleFormatTime | SampleFormatID |
	SampleFormatStreamID | SampleFormatCPU | SampleFormatIdentifier

// ReadFormat is perf_event_attr.read_format.
type ReadFormat uint64

// Read format bits (enum perf_event_read_format).
const (
	ReadFormatTotalTimeEnabled ReadFormat = 1 << iota
	ReadFormatTotalTimeRunning
	ReadFormatID
	ReadFormatGroup
	ReadFormatLost
)

var readFormatNames = []string{"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST"}

func (r ReadFormat) String() string { return bitNames(uint64(r), readFormatNames) }

// BranchSampleFormat is perf_event_attr.branch_sample_type.
type BranchSampleFormat uint64

// BranchSampleHwIndex (PERF_SAMPLE_BRANCH_HW_INDEX) adds hw_idx to branch stacks.
const BranchSampleHwIndex BranchSampleFormat = 1 << 17

// BranchSampleAny (PERF_SAMPLE_BRANCH_ANY) records every kind of branch
// (perf record -b).
const BranchSampleAny BranchSampleFormat = 1 << 3

// BranchSampleCallStack (PERF_SAMPLE_BRANCH_CALL_STACK) asks for the LBR
// call stack (perf record --call-graph lbr).
const BranchSampleCallStack BranchSampleFormat = 1 << 11

func bitNames(v uint64, names []string) string {
	if v == 0 {
		return "0"
	}
	s := ""
	for i := 0; i < 64; i++ {
		if v&(1<<i) == 0 {
			continue
		}
		if s != "" {
			s += "|"
		}
		if i < len(names) {
			s += names[i]
		} else {
			s += "bit" + strconv.Itoa(i)
		}
	}
	return s
}

// AttrType is perf_event_attr.type (a PMU type; dynamic PMUs such as
// intel_pt get numbers from sysfs).
type AttrType uint32

// The fixed PMU types.
const (
	AttrTypeHardware   AttrType = 0
	AttrTypeSoftware   AttrType = 1
	AttrTypeTracepoint AttrType = 2
	AttrTypeHWCache    AttrType = 3
	AttrTypeRaw        AttrType = 4
	AttrTypeBreakpoint AttrType = 5
)

// Software event configs (enum perf_sw_ids).
const (
	SWCPUClock        = 0
	SWTaskClock       = 1
	SWPageFaults      = 2
	SWContextSwitches = 3
	SWCPUMigrations   = 4
	SWPageFaultsMin   = 5
	SWPageFaultsMaj   = 6
	SWAlignmentFaults = 7
	SWEmulationFaults = 8
	SWDummy           = 9
	SWBPFOutput       = 10
	SWCgroupSwitches  = 11
)

// Feature is a header feature section number (HEADER_* in util/header.h).
type Feature int

// Header feature sections.
const (
	FeatTracingData    Feature = 1
	FeatBuildID        Feature = 2
	FeatHostname       Feature = 3
	FeatOSRelease      Feature = 4
	FeatVersion        Feature = 5
	FeatArch           Feature = 6
	FeatNrCPUs         Feature = 7
	FeatCPUDesc        Feature = 8
	FeatCPUID          Feature = 9
	FeatTotalMem       Feature = 10
	FeatCmdline        Feature = 11
	FeatEventDesc      Feature = 12
	FeatCPUTopology    Feature = 13
	FeatNUMATopology   Feature = 14
	FeatBranchStack    Feature = 15
	FeatPMUMappings    Feature = 16
	FeatGroupDesc      Feature = 17
	FeatAuxtrace       Feature = 18
	FeatStat           Feature = 19
	FeatCache          Feature = 20
	FeatSampleTime     Feature = 21
	FeatMemTopology    Feature = 22
	FeatClockID        Feature = 23
	FeatDirFormat      Feature = 24
	FeatBPFProgInfo    Feature = 25
	FeatBPFBTF         Feature = 26
	FeatCompressed     Feature = 27
	FeatCPUPMUCaps     Feature = 28
	FeatClockData      Feature = 29
	FeatHybridTopology Feature = 30
	FeatPMUCaps        Feature = 31
	featMax            Feature = 32
	// MaxFeatures is the number of bits in the header's feature bitmap.
	MaxFeatures = 256
	// FeatLast is perf 6.1's HEADER_LAST_FEATURE: a pipe's HEADER_FEATURE
	// record with this id ends its features.
	FeatLast Feature = 32
)

var featureNames = [featMax]string{
	"", "tracing_data", "build_id", "hostname", "osrelease", "version", "arch",
	"nrcpus", "cpudesc", "cpuid", "total_mem", "cmdline", "event_desc",
	"cpu_topology", "numa_topology", "branch_stack", "pmu_mappings",
	"group_desc", "auxtrace", "stat", "cache", "sample_time", "mem_topology",
	"clockid", "dir_format", "bpf_prog_info", "bpf_btf", "compressed",
	"cpu_pmu_caps", "clock_data", "hybrid_topology", "pmu_caps",
}

// String returns perf's name of the feature ("hostname", "auxtrace", ...).
func (f Feature) String() string {
	if f > 0 && f < featMax {
		return featureNames[f]
	}
	return "feature" + strconv.Itoa(int(f))
}
