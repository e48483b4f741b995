// Package ptdump prints an Intel PT trace packet by packet, line for line as
// libipt's ptdump does, with its optional columns (offset, raw bytes, last
// IP, execution mode, time or calibration) and its bracketed diagnostics.
//
// [Main] parses ptdump's command line (libipt's options, in order, by hand)
// and runs it; perfpt ptdump (internal/cli) only hands it its arguments.
// [Dump] writes the dump of a trace buffer given [Options]; perf_event
// sideband records (--pevent) come from package sideband.
package ptdump

import (
	"bufio"

	"github.com/perfpt/perfpt/ptdecode/errata"
	"github.com/perfpt/perfpt/ptdecode/timing"
)

// Options select what Dump prints; the zero value prints what ptdump prints
// without options except that ShowOffset must be set for the offset column
// (ptdump's default).
type Options struct {
	ShowOffset    bool // first column: the packet's offset (ptdump's default; --no-offset clears)
	Raw           bool // --raw: the packet's bytes in hex
	LastIP        bool // --lastip: the last IP after IP packets
	ExecMode      bool // --exec-mode: the execution mode after MODE.Exec
	Time          bool // --time: the estimated TSC after timing packets
	TCal          bool // --tcal: the calibration (FCR) after timing packets
	TimeDelta     bool // --time-delta: time and FCR as a difference to the last
	NoTCal        bool // --no-tcal: do not calibrate
	NoWallClock   bool // --no-wall-clock: relative time without a TSC is not an error
	KeepTCalOnOVF bool // --keep-tcal-on-ovf
	NoSync        bool // --no-sync: start decoding at offset 0
	Quiet         bool // --quiet: print only diagnostics
	NoPad         bool // --no-pad: skip PAD packets
	NoTiming      bool // --no-timing: skip timing packets
	NoCYC         bool // --no-cyc: skip CYC packets and ignore them for time
	BlockItems    bool // --block-items (perfpt only): decode BBP/BIP/BEP, which libipt rejects

	// CPU, when its Vendor is set, selects erratum workarounds (--cpu).
	CPU errata.CPU
	// Timing holds --mtc-freq, --nom-freq and --cpuid-0x15.eax/ebx; its
	// SKL168 flag is set from CPU by Dump.
	Timing timing.Config

	// Sideband, when set, has its records printed in time order between
	// the packets (--pevent); it also turns on time tracking.
	Sideband Sideband
}

// Sideband is a source of sideband records to interleave with the packets,
// such as perf_event records (package sideband).
type Sideband interface {
	// Dump prints all records up to and including time tsc (libipt's
	// pt_sb_dump); Dump(w, math.MaxUint64) prints the rest.
	Dump(w *bufio.Writer, tsc uint64) error
}

// trackTime reports whether timing packets update the time and calibration.
func (o *Options) trackTime() bool { return o.Time || o.TCal || o.Sideband != nil }
