package query

import "github.com/perfpt/perfpt/ptdecode/packet"

// decodePSB reads a PSB+ header (libipt's pt_evt_decode_psb). The packets
// in PSB+ give the current state in no defined order, so all of them bind
// to PSBEND (or an OVF in its place), where they are published as status
// updates, the enabled/disabled status first. It returns more with the
// PSBEND or OVF as the current packet.
func (d *Decoder) decodePSB() Code {
	// Partial events must not be carried across PSB.
	if d.evq.pending(bindAll) {
		return CodeBadContext
	}
	d.ip.Reset()
	d.enabled = false

	// The enabled/disabled status comes first; its type is known at the end.
	ev := d.evq.enqueue(bindPSBEnd)
	if ev == nil {
		return CodeNoMem
	}
	ev.StatusUpdate = true

	for {
		d.fetchPacket()
		c := CodeOK
		switch d.pkt.Kind {
		case packet.KindFUP:
			c = d.headerFUP()
		case packet.KindModeExec, packet.KindModeTSX:
			c = d.headerMode()
		case packet.KindPIP:
			e := d.evq.enqueue(bindPSBEnd)
			if e == nil {
				return CodeNoMem
			}
			e.StatusUpdate = true
			e.Type = EventAsyncPaging
			e.CR3 = d.pkt.Payload
			e.NonRoot = d.pkt.Flags&packet.FlagNR != 0
		case packet.KindVMCS:
			e := d.evq.enqueue(bindPSBEnd)
			if e == nil {
				return CodeNoMem
			}
			e.StatusUpdate = true
			e.Type = EventAsyncVMCS
			e.Base = d.pkt.Payload
		case packet.KindMNT:
			e := d.evq.enqueue(bindPSBEnd)
			if e == nil {
				return CodeNoMem
			}
			e.Type = EventMNT
			e.Payload = d.pkt.Payload
		case packet.KindTSC:
			c = d.clock.headerTSC(d.pkt)
		case packet.KindCBR:
			c = d.clock.headerCBR(d.pkt, &d.cfg.Timing)
			if c == CodeOK {
				e := d.evq.enqueue(bindPSBEnd)
				if e == nil {
					return CodeNoMem
				}
				e.StatusUpdate = true
				e.Type = EventCBR
				e.Ratio = uint16(d.pkt.Payload)
			}
		case packet.KindTMA:
			c = d.clock.apply(d.pkt, &d.cfg.Timing)
		case packet.KindMTC:
			c = d.clock.apply(d.pkt, &d.cfg.Timing)
		case packet.KindCYC:
			c = d.clock.apply(d.pkt, &d.cfg.Timing)
		case packet.KindPSBEnd:
			if d.enabled {
				ev.Type = EventEnabled
			} else {
				ev.Type = EventDisabled
				ev.IPSuppressed = true
			}
			return more
		case packet.KindOVF:
			// Without tracing enabled, the status event goes: we may have
			// lost the FUP and must not report a wrong status.
			if d.enabled {
				ev.Type = EventEnabled
			} else if d.evq.dequeue(bindPSBEnd) != ev {
				return CodeInternal
			}
			return more
		case packet.KindPad:
		case packet.KindInvalid:
			c = d.status
		default:
			c = CodeBadContext
		}
		if c != CodeOK {
			return c
		}
	}
}

// headerFUP handles a FUP in PSB+: it gives the IP if tracing is enabled.
func (d *Decoder) headerFUP() Code {
	enabled := d.pkt.IPC != packet.IPCSuppressed
	if d.cfg.Errata.BDM70 {
		pge, c := d.checkBDM70()
		if c != CodeOK {
			return c
		}
		if pge {
			enabled = false
		}
	}
	d.enabled = enabled
	if !enabled {
		return CodeOK
	}
	return d.updateIP()
}

// checkBDM70 reports whether a TIP.PGE follows the current PSB+ with only
// PSB+ and timing packets between: then the FUP and MODE.Exec in PSB+ are
// bogus (erratum BDM70) and tracing is in fact disabled.
func (d *Decoder) checkBDM70() (bool, Code) {
	pd := d.pd
	var p packet.Packet
	for {
		if c := peekPacket(&pd, &p); c != CodeOK {
			if c == CodeEOS {
				return false, CodeOK
			}
			return false, c
		}
		switch p.Kind {
		case packet.KindTIPPGE:
			return true, CodeOK
		case packet.KindPad, packet.KindTSC, packet.KindCBR, packet.KindPSBEnd,
			packet.KindPIP, packet.KindModeExec, packet.KindModeTSX,
			packet.KindVMCS, packet.KindTMA, packet.KindMTC, packet.KindCYC,
			packet.KindMNT:
		default:
			return false, CodeOK
		}
	}
}

// headerMode handles MODE.Exec and MODE.TSX in PSB+.
func (d *Decoder) headerMode() Code {
	if d.pkt.Kind == packet.KindModeTSX {
		e := d.evq.enqueue(bindPSBEnd)
		if e == nil {
			return CodeNoMem
		}
		e.StatusUpdate = true
		e.Type = EventTSX
		e.Speculative = d.pkt.Flags&packet.FlagInTX != 0
		e.Aborted = d.pkt.Flags&packet.FlagTXAbort != 0
		return CodeOK
	}
	csl := d.pkt.Flags&packet.FlagCSL != 0
	csd := d.pkt.Flags&packet.FlagCSD != 0
	iflag := d.pkt.Flags&packet.FlagIF != 0
	if d.modeExecValid {
		// A status update must agree with the state we track. IF is only
		// tracked completely with event tracing.
		if d.cfg.IFlagsEvents && d.iflag != iflag {
			return CodeBadStatusUpdate
		}
		if d.csd != csd || d.csl != csl {
			return CodeBadStatusUpdate
		}
	} else {
		d.modeExecValid = true
		d.iflag, d.csd, d.csl = iflag, csd, csl
	}
	e := d.evq.enqueue(bindPSBEnd)
	if e == nil {
		return CodeNoMem
	}
	e.StatusUpdate = true
	e.Type = EventExecMode
	e.Mode = ExecModeOf(csl, csd)
	if d.cfg.IFlagsEvents {
		e := d.evq.enqueue(bindPSBEnd)
		if e == nil {
			return CodeNoMem
		}
		e.StatusUpdate = true
		e.Type = EventIFlags
		e.IFlag = iflag
	}
	return CodeOK
}

// decodePSBEnd publishes the next pending PSB+ event, giving it the IP and
// time that PSB+ established (libipt's pt_evt_decode_psbend). It returns
// more when none is left.
func (d *Decoder) decodePSBEnd() Code {
	ev := d.evq.dequeue(bindPSBEnd)
	if ev == nil {
		return more
	}
	d.cur = ev
	switch ev.Type {
	case EventEnabled, EventExecMode, EventIFlags, EventTSX, EventAsyncPaging,
		EventAsyncVMCS:
		d.eventIP(ev)
	case EventDisabled, EventCBR, EventMNT:
	default:
		return CodeBadContext
	}
	d.clock.eventTime(ev)
	return CodeOK
}
