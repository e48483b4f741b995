package ptdump

import (
	"strconv"

	"github.com/perfpt/perfpt/ptdecode/timing"
)

// The timing packets update the calibration (unless --no-tcal) and the
// time, report failures as diagnostics, and then show the time or the
// calibration and dump sideband records up to the new time, as ptdump's
// track_* functions.

func (d *dumper) trackTSC(off uint64, tsc uint64) {
	if !d.opt.NoTCal {
		if d.header {
			if err := d.cal.HeaderTSC(tsc); err != nil {
				d.diag(off, "error calibrating time", err)
			}
		} else {
			d.cal.UpdateTSC(tsc)
		}
	}
	d.time.UpdateTSC(tsc)
	d.trackTime(off)
}

func (d *dumper) trackCBR(off uint64, ratio uint8) {
	if !d.opt.NoTCal {
		var err error
		if d.header {
			err = d.cal.HeaderCBR(ratio, &d.cfg)
		} else {
			err = d.cal.UpdateCBR(ratio, &d.cfg)
		}
		if err != nil {
			d.diag(off, "error calibrating time", err)
		}
	}
	if err := d.time.UpdateCBR(ratio); err != nil {
		d.diag(off, "error updating time", err)
	}
	d.ln.skipTime = true
	d.trackTime(off)
}

func (d *dumper) trackTMA(off uint64, ctc, fc uint16) {
	if err := d.time.UpdateTMA(ctc, fc, &d.cfg); err != nil {
		d.diag(off, "error updating time", err)
	}
	d.ln.skipTCal = true
	d.trackTime(off)
}

func (d *dumper) trackMTC(off uint64, ctc uint8) {
	if !d.opt.NoTCal {
		if err := d.cal.UpdateMTC(ctc, &d.cfg); err != nil {
			d.diag(off, "error calibrating time", err)
		}
	}
	if err := d.time.UpdateMTC(ctc, &d.cfg); err != nil {
		d.diag(off, "error updating time", err)
	}
	d.trackTime(off)
}

func (d *dumper) trackCYC(off uint64, cyc uint64) {
	var fcr uint64
	if !d.opt.NoTCal {
		var err error
		if fcr, err = d.cal.FCR(); err != nil {
			d.diag(off, "calibration error", err)
		}
		d.cal.UpdateCYC(cyc)
	}
	if err := d.time.UpdateCYC(cyc, &d.cfg, fcr); err != nil {
		d.diag(off, "error updating time", err)
	} else if fcr == 0 {
		d.diag(off, "error updating time: no calibration", nil)
	}
	d.ln.skipTCal = true
	d.trackTime(off)
}

func (d *dumper) trackTime(off uint64) {
	if d.opt.TCal && !d.ln.skipTCal {
		d.printTCal(off)
	}
	if d.opt.Time && !d.ln.skipTime {
		d.printTime(off)
	}
	if d.opt.Sideband != nil {
		tsc, _, _, _ := d.time.TSC()
		if err := d.opt.Sideband.Dump(d.w, tsc); err != nil {
			d.diag(off, "sideband dump error", err)
		}
	}
}

func (d *dumper) printTime(off uint64) {
	tsc, _, _, err := d.time.TSC()
	if err != nil && !(err == timing.ErrNoTime && d.opt.NoWallClock) {
		d.diag(off, "error printing time", err)
		d.setTrack("tsc", append(d.tbuf[:0], "<unavailable>"...))
		return
	}
	b := d.tbuf[:0]
	if d.opt.TimeDelta {
		if d.tsc <= tsc {
			b = appendHex(append(b, '+'), tsc-d.tsc)
		} else {
			b = appendHex(append(b, '-'), d.tsc-tsc)
		}
		d.tsc = tsc
	} else {
		b = appendHex16(b, tsc)
	}
	d.setTrack("tsc", b)
}

func (d *dumper) printTCal(off uint64) {
	fcr, err := d.cal.FCR()
	if err != nil {
		d.setTrack("fcr", append(d.tbuf[:0], "<unavailable>"...))
		d.diag(off, "error printing time", err)
		return
	}
	v := float64(fcr) / float64(uint64(1)<<timing.FCRShift)
	var b []byte
	if d.opt.TimeDelta {
		old := float64(d.fcr) / float64(uint64(1)<<timing.FCRShift)
		// "%+.3f": a sign always.
		b = strconv.AppendFloat(append(d.tbuf[:0], '+'), v-old, 'f', 3, 64)
		if b[1] == '-' {
			b = b[1:]
		}
		d.fcr = fcr
	} else {
		b = strconv.AppendFloat(d.tbuf[:0], v, 'f', 3, 64)
	}
	d.setTrack("fcr", b)
}
