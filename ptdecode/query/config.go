package query

import (
	"github.com/perfpt/perfpt/ptdecode/errata"
	"github.com/perfpt/perfpt/ptdecode/timing"
)

// Config configures a Decoder (the parts of libipt's struct pt_config and
// pt_conf_flags that the query and event layers use, plus what the
// instruction and block decoders need, carried along for them).
type Config struct {
	// CPU is the processor the trace was recorded on; informational.
	CPU errata.CPU
	// Errata are the erratum workarounds to apply (errata.ForCPU(CPU)).
	Errata errata.Errata

	// Timing holds the timing parameters (ptxed's --mtc-freq, --nom-freq,
	// --cpuid-0x15.eax/ebx). Its SKL168 flag is not used by this layer (as
	// in libipt, only ptdump applies that erratum).
	Timing timing.Config

	// KeepTcalOnOvf keeps the time calibration across an overflow
	// (--*:keep-tcal-on-ovf) instead of resetting it.
	KeepTcalOnOvf bool
	// IFlagsEvents reports EventIFlags from MODE.Exec's IF bit (event
	// tracing, --event:iflags); without it the IF bit is ignored.
	IFlagsEvents bool

	// Filter is the address filter configuration. The event decoder does
	// not use it; the instruction and block decoders do.
	Filter AddrFilter
}
