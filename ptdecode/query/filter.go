package query

// AddrCfg is the use of one address range (the ADDRn_CFG field of
// IA32_RTIT_CTL).
type AddrCfg uint8

const (
	AddrCfgDisabled AddrCfg = 0 // the range is not used
	AddrCfgFilter   AddrCfg = 1 // trace only inside the range (FilterEn)
	AddrCfgStop     AddrCfg = 2 // stop tracing when entering the range (TraceStop)
)

// AddrFilter is the address filter configuration (libipt's
// pt_conf_addr_filter, ptxed's --filter:addrN_cfg/_a/_b): Cfg holds four
// bits per range, range n uses bits 4n..4n+3; A and B are inclusive bounds.
type AddrFilter struct {
	Cfg uint64
	A   [4]uint64
	B   [4]uint64
}

// RangeCfg returns the configuration of range n (0..3).
func (f *AddrFilter) RangeCfg(n int) AddrCfg {
	if n < 0 || n >= len(f.A) {
		return AddrCfgDisabled
	}
	return AddrCfg(f.Cfg >> (4 * uint(n)) & 0xf)
}

// Check reports whether tracing is enabled at addr according to the filter
// (libipt's pt_filter_addr_check): false inside a TraceStop range; else
// true inside a FilterEn range, false outside all FilterEn ranges if there
// is one, and true if no range filters.
func (f *AddrFilter) Check(addr uint64) bool {
	haveFilter := false
	inFilter := false
	for n := range f.A {
		in := f.A[n] <= addr && addr <= f.B[n]
		switch f.RangeCfg(n) {
		case AddrCfgStop:
			if in {
				return false
			}
		case AddrCfgFilter:
			haveFilter = true
			inFilter = inFilter || in
		}
	}
	return inFilter || !haveFilter
}
