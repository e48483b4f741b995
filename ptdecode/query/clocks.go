package query

import "github.com/perfpt/perfpt/ptdecode/packet"

// Clock is a snapshot of a decoder's time and time-calibration state, for
// starting a decoder in the middle of a trace with the state a sequential
// decode has there.
type Clock struct{ c clock }

// Clock returns the decoder's current time state.
func (d *Decoder) Clock() Clock { return Clock{d.clock} }

// SyncSetClock is SyncSet, except that the decoder starts from clock c
// instead of a fresh one: a sequential decode does not reset its time at
// a PSB, so a decoder that starts at a later PSB with the clock the
// sequential decode has there reports the same event times. That matters
// for cycle-accurate times, which depend on a calibration learnt from the
// packets before.
func (d *Decoder) SyncSetClock(off uint64, c Clock) error {
	d.reset()
	d.clock = c.c
	if off > uint64(len(d.pd.Buffer())) {
		return &Error{Code: CodeEOS, Offset: off}
	}
	if err := d.pd.SyncSet(int(off)); err != nil {
		return d.packetError(int(off), err)
	}
	return d.start()
}

// ClocksAt returns the clock that a sequential decode, synchronised at
// offs[0], has when it reaches each offset in offs (ascending offsets of
// PSB packets): it applies the timing packets in between the way the
// decoder does (inside PSB+ TSC and CBR also calibrate; an overflow
// resets the calibration unless cfg.KeepTcalOnOvf). It only reads packets,
// so it is much faster than decoding. It assumes the decode meets no
// error in between (a decoder resets its time when it resynchronises);
// from a packet-layer error on, all clocks are the one before the error.
func ClocksAt(buf []byte, cfg *Config, offs []uint64) []Clock {
	out := make([]Clock, len(offs))
	if len(offs) == 0 {
		return out
	}
	var pd packet.Decoder
	pd.Reset(buf)
	pd.SetBlockItems(false)
	pd.SetErrata(cfg.Errata.SKD007, cfg.Errata.SKZ84)
	var c clock
	c.reset()
	out[0] = Clock{c}
	i := 1
	if offs[0] > uint64(len(buf)) || pd.SyncSet(int(offs[0])) != nil {
		for ; i < len(offs); i++ {
			out[i] = Clock{c}
		}
		return out
	}
	header := false
	for pd.Next() {
		off := uint64(pd.PacketOffset())
		for i < len(offs) && offs[i] <= off {
			out[i] = Clock{c}
			i++
		}
		if i == len(offs) {
			return out
		}
		p := pd.Packet()
		switch p.Kind {
		case packet.KindPSB:
			header = true
		case packet.KindPSBEnd:
			header = false
		case packet.KindOVF:
			header = false
			c.overflow(cfg.KeepTcalOnOvf)
		case packet.KindTSC:
			if header {
				c.headerTSC(p)
			} else {
				c.apply(p, &cfg.Timing)
			}
		case packet.KindCBR:
			if header {
				c.headerCBR(p, &cfg.Timing)
			} else {
				c.apply(p, &cfg.Timing)
			}
		case packet.KindTMA, packet.KindMTC, packet.KindCYC:
			c.apply(p, &cfg.Timing)
		}
	}
	for ; i < len(offs); i++ {
		out[i] = Clock{c}
	}
	return out
}
