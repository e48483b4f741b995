package perfdata

// IntelPTInfo is the private part of an Intel PT PERF_RECORD_AUXTRACE_INFO
// (AuxType AuxtraceIntelPT), in the order of perf's util/intel-pt.h.
type IntelPTInfo struct {
	PMUType          uint64 // the intel_pt PMU type: must equal the event's attr.Type
	TimeShift        uint64 // TSC to perf time conversion (as in TIME_CONV)
	TimeMult         uint64
	TimeZero         uint64
	CapUserTimeZero  uint64 // 1 when TimeZero is valid; needed for timestamps
	TSCBit           uint64 // config bit mask of "tsc" (1<<10)
	NoRetCompBit     uint64 // config bit mask of "noretcomp" (1<<11)
	HaveSchedSwitch  uint64 // 1 when the recording has context switch records
	SnapshotMode     uint64
	PerCPUMmaps      uint64 // 1 for per-CPU recording, 0 for per-thread
	MTCBit           uint64 // config bit mask of "mtc" (1<<9)
	MTCFreqBits      uint64 // config bit mask of "mtc_period" (0xf<<14)
	TSCCTCRatioN     uint64 // CPUID.15H EBX
	TSCCTCRatioD     uint64 // CPUID.15H EAX
	CYCBit           uint64 // config bit mask of "cyc" (1<<1)
	MaxNonTurboRatio uint64
	Filter           string // address filter string ("" for none)
}

// intelPTPrivFixed is the number of u64s before the filter string.
const intelPTPrivFixed = 17

// Priv returns the private u64s to put in RecordAuxtraceInfo.Priv.
func (p *IntelPTInfo) Priv() []uint64 {
	v := []uint64{
		p.PMUType, p.TimeShift, p.TimeMult, p.TimeZero, p.CapUserTimeZero,
		p.TSCBit, p.NoRetCompBit, p.HaveSchedSwitch, p.SnapshotMode,
		p.PerCPUMmaps, p.MTCBit, p.MTCFreqBits, p.TSCCTCRatioN,
		p.TSCCTCRatioD, p.CYCBit, p.MaxNonTurboRatio, 0,
	}
	if p.Filter != "" {
		n := len(p.Filter) + 1
		v[16] = uint64(n)
		b := make([]byte, (n+7)&^7)
		copy(b, p.Filter)
		for i := 0; i < len(b); i += 8 {
			v = append(v, le64(b[i:]))
		}
	}
	return v
}

// ParseIntelPTInfo decodes the private u64s of an Intel PT AUXTRACE_INFO;
// fields missing from an older, shorter record stay zero. It fails when
// there are fewer than the 10 u64s perf needs.
func ParseIntelPTInfo(priv []uint64) (IntelPTInfo, error) {
	var p IntelPTInfo
	if len(priv) < 10 {
		return p, &Error{What: "Intel PT AUXTRACE_INFO: fewer than 10 private u64s", Err: ErrTruncated}
	}
	fields := []*uint64{
		&p.PMUType, &p.TimeShift, &p.TimeMult, &p.TimeZero, &p.CapUserTimeZero,
		&p.TSCBit, &p.NoRetCompBit, &p.HaveSchedSwitch, &p.SnapshotMode,
		&p.PerCPUMmaps, &p.MTCBit, &p.MTCFreqBits, &p.TSCCTCRatioN,
		&p.TSCCTCRatioD, &p.CYCBit, &p.MaxNonTurboRatio,
	}
	for i, f := range fields {
		if i < len(priv) {
			*f = priv[i]
		}
	}
	if len(priv) > 16 {
		n := priv[16]
		words := (n + 7) / 8
		if n > 0 && words <= uint64(len(priv)-intelPTPrivFixed) {
			b := make([]byte, 0, words*8)
			for _, w := range priv[intelPTPrivFixed : intelPTPrivFixed+int(words)] {
				for k := 0; k < 8; k++ {
					b = append(b, byte(w>>(8*k)))
				}
			}
			p.Filter = cstring(b[:n])
		}
	}
	return p, nil
}
