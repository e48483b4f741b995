package query

import "github.com/perfpt/perfpt/ptdecode/packet"

// decodeOVF handles an internal buffer overflow (libipt's
// pt_evt_decode_ovf). Pending PSB+ events are published first; events
// pending with tracing disabled are published with their IP suppressed,
// others are dropped. The decoder state is reset, keeping the time. The
// overflow binds to a FUP if it resolved with tracing enabled, else it
// is standalone; errata SKD010, APL11 and APL12 refine that decision.
func (d *Decoder) decodeOVF() Code {
	// An OVF ends PSB+ like PSBEND.
	if c := d.decodePSBEnd(); c != more {
		return c
	}
	for !d.enabled {
		ev := d.evq.dequeue(bindFUPBound | bindFUP | bindTIP | bindExstop | bindPwrx)
		if ev == nil {
			break
		}
		switch ev.Type {
		case EventExstop, EventMwait, EventPtwrite, EventTSX, EventExecMode,
			EventIFlags, EventInterrupt, EventIret, EventSMI, EventInit,
			EventVMEntry, EventVMExit, EventShutdown, EventUintr, EventUiret,
			EventTrig, EventSwintr, EventSyscall:
			ev.IPSuppressed = true
			d.cur = ev
			return CodeOK
		case EventPwre, EventRSM, EventSIPI:
			d.cur = ev
			return CodeOK
		}
	}

	clk := d.clock
	d.reset()
	d.clock = clk
	d.clock.overflow(d.cfg.KeepTcalOnOvf)

	// The overflow binds to a FUP if it resolved while tracing was
	// enabled (only timing packets may come between), or to a TIP.PGE if
	// it resolved while tracing was disabled; then any other packet shows
	// that it is standalone.
	fupEnd, c := d.findOVFFUP()
	if c != CodeOK || fupEnd == 0 {
		if d.cfg.Errata.SKD010 {
			if h := d.handleSKD010(); h != more {
				return h
			}
		}
		if d.cfg.Errata.APL11 && c == CodeBadContext {
			if h := d.handleAPL11(); h != more {
				return h
			}
		}
		// An overflow at the end of the trace is standalone.
		if c != CodeOK && c != CodeEOS {
			return c
		}
		ev := d.standalone(EventOverflow)
		ev.IPSuppressed = true
		return d.publish(ev)
	}
	if d.cfg.Errata.APL12 {
		if h := d.handleAPL12(fupEnd); h != more {
			return h
		}
	}
	ev := d.evq.enqueue(bindFUPBound)
	if ev == nil {
		return CodeNoMem
	}
	ev.Type = EventOverflow
	d.clock.eventTime(ev)
	return more
}

// findOVFFUP looks for the FUP after an OVF. It returns the offset just
// past the FUP, 0 if a packet shows that tracing was disabled first, or
// CodeBadContext for packets that need tracing enabled.
func (d *Decoder) findOVFFUP() (int, Code) {
	pd := d.pd
	var p packet.Packet
	for {
		if c := peekPacket(&pd, &p); c != CodeOK {
			return 0, c
		}
		switch p.Kind {
		case packet.KindFUP:
			return pd.Offset(), CodeOK
		case packet.KindPad, packet.KindMNT, packet.KindCBR, packet.KindTSC,
			packet.KindTMA, packet.KindMTC, packet.KindCYC, packet.KindInvalid,
			packet.KindBBP, packet.KindBIP, packet.KindBEP:
		case packet.KindPSBEnd, packet.KindTIP, packet.KindTIPPGD,
			packet.KindTNT8, packet.KindTNT64:
			return 0, CodeBadContext
		default:
			return 0, CodeOK
		}
	}
}

// recoverAt resumes after an overflow at the IP of ipPkt, continuing with
// the look-ahead state pd, cur (the packet to process next), clk.
func (d *Decoder) recoverAt(pd *packet.Decoder, cur *packet.Packet, curOff int,
	ipPkt *packet.Packet, clk *clock) Code {
	if err := d.ip.Update(ipPkt.IPC, ipPkt.Payload); err != nil {
		return CodeBadPacket
	}
	ev := d.standalone(EventOverflow)
	d.clock.eventTime(ev) // the time before the overflow
	d.cur = ev
	d.pd = *pd
	d.pkt, d.poff = d.pd.Packet(), curOff // d.pd's packet is cur
	d.clock = *clk
	d.enabled = true
	d.eventIP(ev)
	if d.poff >= d.end {
		// Resuming at the PSB that ends a sub-range (SKD010): the next
		// range's decoder goes on from there.
		d.fail(d.end, CodeEOS, nil)
	}
	return CodeOK
}

// recoverDisabled resumes after an overflow with tracing disabled, after
// the TIP.PGD cur.
func (d *Decoder) recoverDisabled(pd *packet.Decoder, cur *packet.Packet, curOff int, clk *clock) {
	ev := d.standalone(EventOverflow)
	ev.IPSuppressed = true
	d.clock.eventTime(ev)
	d.cur = ev
	d.pd = *pd
	d.pkt, d.poff = d.pd.Packet(), curOff // d.pd's packet is cur
	d.clock = *clk
}

// recoverAfterFUP skips the packets up to the FUP that ends at fupEnd,
// keeping time, and publishes a standalone overflow: the FUP was bogus
// (erratum APL12).
func (d *Decoder) recoverAfterFUP(fupEnd int) Code {
	for {
		var p packet.Packet
		if c := peekPacket(&d.pd, &p); c != CodeOK {
			return c
		}
		d.pkt = d.pd.Packet()
		d.poff = d.pd.PacketOffset()
		if d.pd.Offset() >= fupEnd {
			if d.pd.Offset() > fupEnd {
				return CodeInternal
			}
			break
		}
		switch d.pkt.Kind {
		case packet.KindModeExec, packet.KindModeTSX, packet.KindPIP,
			packet.KindVMCS, packet.KindInvalid:
			return CodeInternal
		}
		if c := d.clock.apply(d.pkt, &d.cfg.Timing); c != CodeOK {
			return c
		}
	}
	ev := d.standalone(EventOverflow)
	ev.IPSuppressed = true
	return d.publish(ev)
}

// handleSKD010 checks for erratum SKD010 (the FUP after an OVF was
// dropped): it scans ahead for a sign of whether tracing is enabled and,
// if so, resumes at a later IP. It returns more if the erratum does not
// apply or recovery is not possible.
func (d *Decoder) handleSKD010() Code {
	pd := d.pd
	clk := d.clock
	var tsx struct{ found, intx, abrt bool }
	var p packet.Packet
	for {
		if c := peekPacket(&pd, &p); c != CodeOK {
			if c == CodeEOS {
				return more
			}
			return c
		}
		off := pd.PacketOffset()
		switch p.Kind {
		case packet.KindTIPPGE:
			return more
		case packet.KindTIPPGD:
			// Tracing was enabled; resume after the disable.
			d.recoverDisabled(&pd, &p, off, &clk)
			d.fetchPacket()
			return CodeOK
		case packet.KindTNT8, packet.KindTNT64:
			// The erratum applies, but we cannot tell how many bits
			// were used before the next IP.
			return more
		case packet.KindPIP, packet.KindVMCS, packet.KindModeExec:
			// Ignored: we lost an unknown number of such changes anyway.
		case packet.KindModeTSX:
			if tsx.found {
				return more // two MODE.TSX: tracing is disabled
			}
			tsx.found = true
			tsx.intx = p.Flags&packet.FlagInTX != 0
			tsx.abrt = p.Flags&packet.FlagTXAbort != 0
		case packet.KindFUP:
			// Tracing is enabled. Resume at this FUP, processing it
			// again next time, with the MODE.TSX bound to it.
			if tsx.found {
				ev := d.evq.enqueue(bindFUPBound)
				if ev == nil {
					return CodeNoMem
				}
				ev.Type = EventTSX
				ev.Speculative, ev.Aborted = tsx.intx, tsx.abrt
			}
			return d.recoverAt(&pd, &p, off, &p, &clk)
		case packet.KindTIP:
			// Resume at the TIP's target, after the TIP.
			if c := d.recoverAt(&pd, &p, off, &p, &clk); c != CodeOK {
				return c
			}
			d.fetchPacket()
			return CodeOK
		case packet.KindPSB:
			// Tracing is enabled if and only if PSB+ has a FUP.
			fup, found, c := findHeaderFUP(pd)
			if c != CodeOK {
				if c == CodeEOS {
					return more
				}
				return c
			}
			if !found {
				return more
			}
			return d.recoverAt(&pd, &p, off, &fup, &clk)
		case packet.KindPSBEnd:
			return CodeBadContext
		case packet.KindOVF, packet.KindStop:
			return more
		case packet.KindPad, packet.KindMNT, packet.KindPwrE, packet.KindPwrX,
			packet.KindEVD, packet.KindTrig:
		case packet.KindExStop, packet.KindPTW, packet.KindCFE:
			// A standalone one may be skipped; one that binds to a FUP
			// would need that FUP handled too.
			if p.Flags&packet.FlagIP != 0 {
				return more
			}
		case packet.KindMWait:
			return more
		case packet.KindTSC, packet.KindCBR, packet.KindTMA, packet.KindMTC,
			packet.KindCYC:
			if c := clk.apply(&p, &d.cfg.Timing); c != CodeOK {
				return c
			}
		default:
			return more
		}
	}
}

// findHeaderFUP returns the FUP of the PSB+ that pd is in, if it has one.
func findHeaderFUP(pd packet.Decoder) (packet.Packet, bool, Code) {
	var p packet.Packet
	for {
		if c := peekPacket(&pd, &p); c != CodeOK {
			return p, false, c
		}
		switch p.Kind {
		case packet.KindFUP:
			return p, true, CodeOK
		case packet.KindModeExec, packet.KindModeTSX, packet.KindPIP,
			packet.KindVMCS, packet.KindMNT, packet.KindTSC, packet.KindCBR,
			packet.KindTMA, packet.KindMTC, packet.KindCYC, packet.KindPad,
			packet.KindInvalid:
		case packet.KindPSBEnd, packet.KindOVF:
			return p, false, CodeOK
		default:
			return p, false, CodeBadContext
		}
	}
}

// handleAPL11 checks for erratum APL11 (a TIP.PGD after an OVF): if one
// comes before any sign that tracing is disabled, resume after it with
// tracing disabled, dropping events. It returns more otherwise.
func (d *Decoder) handleAPL11() Code {
	pd := d.pd
	clk := d.clock
	var p packet.Packet
	for {
		if c := peekPacket(&pd, &p); c != CodeOK {
			return c
		}
		switch p.Kind {
		case packet.KindTIPPGD:
			d.recoverDisabled(&pd, &p, pd.PacketOffset(), &clk)
			d.fetchPacket()
			return CodeOK
		case packet.KindTSC, packet.KindCBR, packet.KindTMA, packet.KindMTC,
			packet.KindCYC:
			if c := clk.apply(&p, &d.cfg.Timing); c != CodeOK {
				return c
			}
		case packet.KindPad, packet.KindMNT, packet.KindCFE, packet.KindEVD,
			packet.KindTrig:
		default:
			// FUP, PSB, TIP.PGE, ... : the erratum does not apply;
			// PSBEND, TIP, TNT: left for normal decoding to diagnose.
			return more
		}
	}
}

// handleAPL12 checks for erratum APL12 (a FUP after an OVF although
// tracing is disabled): if a packet after the FUP shows tracing disabled,
// skip to after the FUP with a standalone overflow. It returns more if
// the FUP is genuine.
func (d *Decoder) handleAPL12(fupEnd int) Code {
	pd := d.pd
	if pd.SyncSet(fupEnd) != nil {
		return CodeInternal
	}
	var p packet.Packet
	for {
		if c := peekPacket(&pd, &p); c != CodeOK {
			if c == CodeEOS {
				return more
			}
			return c
		}
		switch p.Kind {
		case packet.KindTNT8, packet.KindTNT64, packet.KindTIP, packet.KindTIPPGD:
			return more // only generated with tracing enabled
		case packet.KindPSB:
			_, found, c := findHeaderFUP(pd)
			if c != CodeOK || found {
				if c == CodeEOS {
					return more
				}
				if c != CodeOK {
					return c
				}
				return more
			}
			return d.recoverAfterFUP(fupEnd)
		case packet.KindStop, packet.KindTIPPGE:
			return d.recoverAfterFUP(fupEnd)
		case packet.KindPSBEnd, packet.KindOVF:
			return more
		case packet.KindPad, packet.KindFUP, packet.KindTSC, packet.KindCBR,
			packet.KindTMA, packet.KindMTC, packet.KindCYC, packet.KindExStop,
			packet.KindMWait, packet.KindPwrE, packet.KindPwrX, packet.KindPTW,
			packet.KindMNT, packet.KindPIP, packet.KindVMCS, packet.KindModeExec,
			packet.KindModeTSX, packet.KindCFE, packet.KindEVD, packet.KindTrig:
		default:
			return more
		}
	}
}
