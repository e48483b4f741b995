// Package timing estimates time from Intel PT timing packets (TSC, TMA, MTC,
// CYC, CBR) and calibrates the cycle-to-time ratio, with the semantics of
// libipt's pt_time and pt_time_cal units so that decoders built on it print
// the same times as libipt's tools.
//
// A [Time] tracks the estimated TSC; a [Cal] tracks the fast-counter:cycles
// ratio (FCR) that turns CYC packets into time. Both are plain values with
// no allocation; feed them the packets in trace order:
//
//	var t timing.Time
//	var c timing.Cal
//	c.Reset()
//	...
//	case packet.KindCYC:
//		fcr, _ := c.FCR()
//		c.UpdateCYC(p.Payload)
//		t.UpdateCYC(p.Payload, &cfg, fcr)
//
// Errors are sentinels (no offset: the caller knows where it is) whose texts
// are libipt's, as its tools print them.
package timing

import (
	"errors"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// Errors returned by the update and query functions. A bad packet payload
// (a zero CBR, a CTC going backwards by more than one wrap) is
// packet.ErrBadPacket.
var (
	ErrNoTime     = errors.New("no timing information")     // no TSC seen yet, or no calibration
	ErrNoCBR      = errors.New("no core:bus ratio")         // no CBR seen yet
	ErrBadContext = errors.New("unexpected packet context") // TMA without a TSC before it, or twice
	ErrBadConfig  = errors.New("bad configuration")         // CPUID 0x15 EAX or EBX is zero
	ErrInternal   = errors.New("internal error")            // state libipt deems impossible
	ErrBadPacket  = packet.ErrBadPacket                     // re-exported for convenience
)

// FCRShift is the number of fraction bits of a fast-counter:cycles ratio
// (libipt's pt_tcal_fcr_shr): an FCR of 1<<FCRShift means one TSC tick per
// cycle.
const FCRShift = 8

// Config holds the timing parameters of a trace (libipt's pt_config fields
// of the same meaning).
type Config struct {
	MTCFreq    uint8  // IA32_RTIT_CTL.MTCFreq: MTC every 2^MTCFreq CTC ticks
	NomFreq    uint8  // MSR_PLATFORM_INFO[15:8], the nominal core:bus ratio; 0 if unknown
	CPUID15EAX uint32 // CPUID leaf 0x15 EAX: denominator of the TSC:CTC ratio
	CPUID15EBX uint32 // CPUID leaf 0x15 EBX: numerator of the TSC:CTC ratio
	SKL168     bool   // erratum SKL168: CYC may be dropped right before PSB
}

// Time is the time estimate of a trace position (libipt's struct pt_time).
// The zero value knows no time.
type Time struct {
	tsc     uint64 // estimated TSC
	base    uint64 // TSC from the last TSC or MTC
	fc      uint64 // fast counter ticks since base (from CYC)
	ctc     uint32 // adjusted CTC of the last MTC or TMA
	ctcCyc  uint32 // adjusted CTC when fc was last cleared
	lostMTC uint32
	lostCYC uint32
	cbr     uint8
	haveTSC bool
	haveCBR bool
	haveTMA bool
	haveMTC bool
}

// Reset forgets everything, as after a new synchronisation.
func (t *Time) Reset() { *t = Time{} }

// TSC returns the estimated TSC and the number of MTC and CYC updates lost
// since the last TSC. The error is ErrNoTime before the first TSC packet;
// the estimate (relative time) is returned anyway.
func (t *Time) TSC() (tsc uint64, lostMTC, lostCYC uint32, err error) {
	if !t.haveTSC {
		err = ErrNoTime
	}
	return t.tsc, t.lostMTC, t.lostCYC, err
}

// CBR returns the last core:bus ratio, or ErrNoCBR.
func (t *Time) CBR() (uint8, error) {
	if !t.haveCBR {
		return 0, ErrNoCBR
	}
	return t.cbr, nil
}

// ctcDelta returns ctc-last, correcting one wrap of the CTC bits that MTC
// packets carry.
func ctcDelta(ctc, last uint32, cfg *Config) (uint32, error) {
	if ctc < last {
		ctc += 1 << (uint(cfg.MTCFreq) + 8)
		if ctc < last {
			return 0, ErrBadPacket
		}
	}
	return ctc - last, nil
}

// ctcToFC converts CTC ticks to TSC (fast counter) ticks.
func ctcToFC(ctc uint64, cfg *Config) (uint64, error) {
	if cfg.CPUID15EAX == 0 || cfg.CPUID15EBX == 0 {
		return 0, ErrBadConfig
	}
	return ctc * uint64(cfg.CPUID15EBX) / uint64(cfg.CPUID15EAX), nil
}

// UpdateTSC applies a TSC packet: the full time, recovering from losses.
func (t *Time) UpdateTSC(tsc uint64) {
	t.haveTSC, t.haveTMA, t.haveMTC = true, false, false
	t.tsc, t.base = tsc, tsc
	t.ctc, t.fc = 0, 0
	t.lostMTC, t.lostCYC = 0, 0
}

// UpdateCBR applies a CBR packet. A zero ratio is ErrBadPacket.
func (t *Time) UpdateCBR(ratio uint8) error {
	if ratio == 0 {
		return ErrBadPacket
	}
	t.haveCBR, t.cbr = true, ratio
	return nil
}

// UpdateTMA applies a TMA packet, which must follow a TSC.
func (t *Time) UpdateTMA(ctc, fc uint16, cfg *Config) error {
	if !t.haveTSC || t.haveTMA {
		return ErrBadContext
	}
	if t.haveMTC {
		return ErrInternal
	}
	mtcHi := uint(cfg.MTCFreq) + 8
	mask := uint32(1)<<mtcHi - 1
	t.haveTMA = true
	t.base -= uint64(fc)
	t.fc += uint64(fc)
	// When TMA carries all the CTC bits MTC does, it counts as an MTC.
	if mtcHi <= 16 {
		t.haveMTC = true
	}
	t.ctc = uint32(ctc) & mask
	t.ctcCyc = t.ctc
	return nil
}

// UpdateMTC applies an MTC packet.
func (t *Time) UpdateMTC(ctc8 uint8, cfg *Config) error {
	haveTSC, haveTMA, haveMTC := t.haveTSC, t.haveTMA, t.haveMTC
	// MTCs between TSC and TMA are ignored.
	if haveTSC && !haveTMA {
		return nil
	}
	base, last := t.base, t.ctc
	ctc := uint32(ctc8) << cfg.MTCFreq
	if t.fc != 0 || t.lostCYC != 0 || !haveMTC {
		t.ctcCyc = ctc
	}
	t.haveMTC, t.fc, t.ctc, t.lostCYC = true, 0, ctc, 0
	if !haveMTC {
		// The first MTC: without a TMA we do not know where in its period
		// tracing started, so it only sets the CTC.
		if !haveTMA {
			return nil
		}
		if last&^0xffff != 0 {
			return ErrInternal
		}
		// Estimate the CTC bits above the TMA's 16 from this MTC.
		lo, hi := ctc&0xffff, ctc&^0xffff
		if lo < last {
			hi -= 1 << 16
			hi &= 0xff << cfg.MTCFreq
		}
		last |= hi
	}
	d, err := ctcDelta(ctc, last, cfg)
	if err != nil {
		t.lostMTC++
		return err
	}
	fc, err := ctcToFC(uint64(d), cfg)
	if err != nil {
		return err
	}
	base += fc
	t.tsc, t.base = base, base
	return nil
}

// adjustCYC removes from cyc the cycles that belong to MTC periods before
// the current one (the CYC counter is not reset at MTC).
func (t *Time) adjustCYC(cyc uint64, cfg *Config, fcr uint64) (uint64, error) {
	last, ctc := t.ctcCyc, t.ctc
	if ctc == last {
		return cyc, nil
	}
	d, err := ctcDelta(ctc, last, cfg)
	if err != nil {
		return 0, err
	}
	fc, err := ctcToFC(uint64(d), cfg)
	if err != nil {
		return 0, err
	}
	old := (fc << FCRShift) / fcr
	// Rather too slow than too fast: attribute all of a too small CYC to
	// earlier periods.
	return max(cyc, old) - old, nil
}

// UpdateCYC applies a CYC packet with the calibration fcr (from Cal.FCR). An
// fcr of zero (no calibration) counts the CYC as lost and is not an error.
func (t *Time) UpdateCYC(cyc uint64, cfg *Config, fcr uint64) error {
	if fcr == 0 {
		t.lostCYC++
		return nil
	}
	fc := t.fc
	if fc == 0 {
		var err error
		if cyc, err = t.adjustCYC(cyc, cfg, fcr); err != nil {
			return err
		}
	}
	fc += (cyc * fcr) >> FCRShift
	t.fc = fc
	t.tsc = t.base + fc
	return nil
}
