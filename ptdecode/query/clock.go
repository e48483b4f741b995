package query

import (
	"errors"

	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/ptdecode/timing"
)

// clock tracks time and its calibration for the event decoder (libipt's
// struct pt_time and struct pt_time_cal, here ptdecode/timing). It is a
// plain value: copying it copies the state.
type clock struct {
	t   timing.Time
	cal timing.Cal
}

func (c *clock) reset() {
	c.t.Reset()
	c.cal.Reset()
}

// overflow updates the calibration after an overflow: it is reset unless
// keep is set (--keep-tcal-on-ovf), which keeps the ratio found so far.
func (c *clock) overflow(keep bool) {
	if keep {
		c.cal.UpdateOVF()
	} else {
		c.cal.Reset()
	}
}

// timeCode maps a timing error to a Code. Configuration errors are
// ignored, as libipt does: they make timing imprecise and are counted as
// lost packets.
func timeCode(err error) Code {
	switch {
	case err == nil, errors.Is(err, timing.ErrBadConfig):
		return CodeOK
	case errors.Is(err, timing.ErrBadContext):
		return CodeBadContext
	case errors.Is(err, timing.ErrBadPacket):
		return CodeBadPacket
	case errors.Is(err, timing.ErrNoTime):
		return CodeNoTime
	case errors.Is(err, timing.ErrNoCBR):
		return CodeNoCBR
	}
	return CodeInternal
}

// headerTSC and headerCBR apply a TSC or CBR inside PSB+, where they also
// calibrate; apply handles the timing packets elsewhere.
func (c *clock) headerTSC(p *packet.Packet) Code {
	if code := timeCode(c.cal.HeaderTSC(p.Payload)); code != CodeOK {
		return code
	}
	c.t.UpdateTSC(p.Payload)
	return CodeOK
}

func (c *clock) headerCBR(p *packet.Packet, cfg *timing.Config) Code {
	if code := timeCode(c.cal.HeaderCBR(uint8(p.Payload), cfg)); code != CodeOK {
		return code
	}
	return timeCode(c.t.UpdateCBR(uint8(p.Payload)))
}

// apply updates the clock for a timing packet (TSC, CBR, TMA, MTC, CYC);
// other packets are ignored.
func (c *clock) apply(p *packet.Packet, cfg *timing.Config) Code {
	switch p.Kind {
	case packet.KindTSC:
		c.cal.UpdateTSC(p.Payload)
		c.t.UpdateTSC(p.Payload)
	case packet.KindCBR:
		if code := timeCode(c.cal.UpdateCBR(uint8(p.Payload), cfg)); code != CodeOK {
			return code
		}
		return timeCode(c.t.UpdateCBR(uint8(p.Payload)))
	case packet.KindTMA:
		return timeCode(c.t.UpdateTMA(p.CTC, p.FC, cfg))
	case packet.KindMTC:
		if code := timeCode(c.cal.UpdateMTC(uint8(p.CTC), cfg)); code != CodeOK {
			return code
		}
		return timeCode(c.t.UpdateMTC(uint8(p.CTC), cfg))
	case packet.KindCYC:
		c.cal.UpdateCYC(p.Payload)
		// Without calibration yet, the CYC is counted as lost.
		fcr, err := c.cal.FCR()
		if err != nil {
			fcr = 0
		}
		return timeCode(c.t.UpdateCYC(p.Payload, cfg, fcr))
	}
	return CodeOK
}

// eventTime stamps ev with the current time (libipt's pt_evt_event_time).
func (c *clock) eventTime(ev *Event) {
	tsc, lostMTC, lostCYC, err := c.t.TSC()
	ev.TSC, ev.LostMTC, ev.LostCYC, ev.HasTSC = tsc, lostMTC, lostCYC, err == nil
}
