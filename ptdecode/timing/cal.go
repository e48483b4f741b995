package timing

import "math"

// Cal calibrates the fast-counter:cycles ratio (FCR) from the cycles counted
// by CYC packets between two MTCs or two TSCs, or from CBR and the nominal
// frequency (libipt's struct pt_time_cal). Call Reset before first use: the
// zero value is not a valid empty calibration.
type Cal struct {
	fcr         uint64 // the current FCR, << FCRShift
	minFCR      uint64
	maxFCR      uint64
	tsc         uint64 // the last TSC, for calibrating at the next TSC in PSB+
	cycTSC      uint64 // cycles since the last TSC
	cycMTC      uint64 // cycles since the last MTC
	ctc         uint32 // the last MTC's adjusted CTC
	lostMTC     uint32
	haveMTC     bool
	checkSKL168 bool
	ready       bool
}

// Reset forgets the calibration (libipt's pt_tcal_init).
func (c *Cal) Reset() { *c = Cal{minFCR: math.MaxUint64, ready: true} }

func (c *Cal) haveFCR() bool { return c.ready && c.minFCR <= c.maxFCR }

// FCR returns the current fast-counter:cycles ratio, shifted left by
// FCRShift, or ErrNoTime before any calibration.
func (c *Cal) FCR() (uint64, error) {
	if !c.haveFCR() {
		return 0, ErrNoTime
	}
	return c.fcr, nil
}

// SetFCR sets the ratio (shifted left by FCRShift).
func (c *Cal) SetFCR(fcr uint64) {
	if !c.ready {
		c.Reset()
	}
	c.fcr = fcr
	c.minFCR = min(c.minFCR, fcr)
	c.maxFCR = max(c.maxFCR, fcr)
}

// UpdatePSB is called at each PSB.
func (c *Cal) UpdatePSB(cfg *Config) {
	if cfg.SKL168 {
		c.checkSKL168 = true
	}
}

// UpdateTSC applies a TSC packet outside PSB+: it may follow a loss of time,
// so it is not used to calibrate, only remembered for the next one in PSB+.
func (c *Cal) UpdateTSC(tsc uint64) {
	c.tsc, c.cycTSC = tsc, 0
}

// HeaderTSC applies a TSC packet inside PSB+: it calibrates from the cycles
// since the last TSC unless MTCs (preferred) are available.
func (c *Cal) HeaderTSC(tsc uint64) error {
	last, cyc := c.tsc, c.cycTSC
	c.tsc, c.cycTSC = tsc, 0
	if last == 0 || cyc == 0 || c.haveMTC {
		return nil
	}
	if tsc < last {
		tsc += 1 << 56
		if tsc < last {
			return ErrBadPacket
		}
	}
	d := tsc - last
	if d&^(^uint64(0)>>FCRShift) != 0 {
		return ErrInternal
	}
	c.SetFCR((d << FCRShift) / cyc)
	return nil
}

// UpdateCBR applies a CBR packet outside PSB+: a frequency change, which
// resets the calibration before calibrating from the nominal frequency.
func (c *Cal) UpdateCBR(ratio uint8, cfg *Config) error {
	c.Reset()
	return c.HeaderCBR(ratio, cfg)
}

// HeaderCBR applies a CBR packet inside PSB+: with a nominal frequency, the
// ratio calibrates directly.
func (c *Cal) HeaderCBR(ratio uint8, cfg *Config) error {
	if cfg.NomFreq == 0 {
		return nil
	}
	if ratio == 0 {
		return ErrBadPacket
	}
	c.SetFCR((uint64(cfg.NomFreq) << FCRShift) / uint64(ratio))
	return nil
}

// UpdateMTC applies an MTC packet: with cycles counted since the previous
// MTC it calibrates.
func (c *Cal) UpdateMTC(ctc8 uint8, cfg *Config) error {
	last, have, cyc, check := c.ctc, c.haveMTC, c.cycMTC, c.checkSKL168
	c.checkSKL168 = false // only the first MTC after PSB
	ctc := uint32(ctc8) << cfg.MTCFreq
	if !have {
		c.cycMTC, c.ctc, c.haveMTC = 0, ctc, true
		return nil
	}
	// Without cycles, try again at the next MTC over both periods.
	if cyc == 0 {
		return nil
	}
	c.haveMTC, c.cycMTC, c.ctc = true, 0, ctc
	c.lostMTC++ // until proven otherwise
	d, err := ctcDelta(ctc, last, cfg)
	if err != nil {
		return err
	}
	fc, err := ctcToFC(uint64(d), cfg)
	if err != nil {
		return err
	}
	if fc&^(^uint64(0)>>FCRShift) != 0 {
		return ErrInternal
	}
	fcr := (fc << FCRShift) / cyc
	if check {
		// SKL168: skip this MTC if MTCs were lost since PSB or a wrap CYC
		// looks lost.
		if uint32(1)<<cfg.MTCFreq < d {
			return nil
		}
		if cfg.MTCFreq < 10 && c.haveFCR() {
			dfc := (c.fcr * (cyc + 0xf00)) >> FCRShift
			if dfc < fc {
				return nil
			}
		}
	}
	c.SetFCR(fcr)
	c.lostMTC = 0
	return nil
}

// UpdateCYC counts the cycles of a CYC packet.
func (c *Cal) UpdateCYC(cyc uint64) {
	c.cycMTC += cyc
	c.cycTSC += cyc
}

// UpdateOVF applies an OVF while keeping the calibration (libipt's
// keep-tcal-on-ovf): the counts in flight are dropped. Without that option
// decoders Reset at OVF instead.
func (c *Cal) UpdateOVF() {
	c.tsc, c.cycTSC, c.cycMTC, c.ctc, c.haveMTC = 0, 0, 0, 0, false
}
