package query

import "github.com/perfpt/perfpt/ptdecode/packet"

// The packet handlers return CodeOK when they published an event in d.cur,
// more when they need the next packet, and an error code otherwise. A
// handler that is done with its packet after publishing an event fetches
// the next packet itself; one that has more events for the same packet
// returns without fetching, and is called again for it.

// decodePacket dispatches the current packet (libipt's
// pt_evt_decode_packet).
func (d *Decoder) decodePacket() Code {
	p := d.pkt
	switch p.Kind {
	case packet.KindTNT8, packet.KindTNT64:
		return d.decodeTNT()
	case packet.KindCYC, packet.KindMTC, packet.KindTMA, packet.KindTSC:
		if c := d.clock.apply(p, &d.cfg.Timing); c != CodeOK {
			return c
		}
		return more
	case packet.KindPad:
		return more
	case packet.KindFUP:
		return d.decodeFUP()
	case packet.KindTIP:
		return d.decodeTIP()
	case packet.KindCBR:
		if c := d.clock.apply(p, &d.cfg.Timing); c != CodeOK {
			return c
		}
		ev := d.standalone(EventCBR)
		ev.Ratio = uint16(p.Payload)
		return d.publish(ev)
	case packet.KindModeExec:
		return d.decodeModeExec()
	case packet.KindModeTSX:
		return d.decodeModeTSX()
	case packet.KindPIP:
		return d.decodePIP()
	case packet.KindPTW:
		return d.decodePTW()
	case packet.KindPSB:
		if c := d.decodePSB(); c != more {
			return c
		}
		return d.decodePacket()
	case packet.KindPSBEnd:
		return d.decodePSBEnd()
	case packet.KindTIPPGE:
		return d.decodeTIPPGE()
	case packet.KindTIPPGD:
		return d.decodeTIPPGD()
	case packet.KindExStop:
		return d.decodeExstop()
	case packet.KindPwrE:
		ev := d.evq.enqueue(bindPwrx)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = EventPwre
		ev.State, ev.SubState = p.State, p.SubState
		ev.HW = p.Flags&packet.FlagHW != 0
		d.clock.eventTime(ev)
		return more
	case packet.KindPwrX:
		return d.decodePwrx()
	case packet.KindMWait:
		ev := d.evq.enqueue(bindExstop)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = EventMwait
		ev.Hints, ev.Ext = uint32(p.Payload), p.Ext
		return more
	case packet.KindVMCS:
		return d.decodeVMCS()
	case packet.KindOVF:
		return d.decodeOVF()
	case packet.KindStop:
		return d.publish(d.standalone(EventStop))
	case packet.KindMNT:
		ev := d.standalone(EventMNT)
		ev.Payload = p.Payload
		return d.publish(ev)
	case packet.KindCFE:
		return d.decodeCFE()
	case packet.KindEVD:
		return d.decodeEVD()
	case packet.KindTrig:
		return d.decodeTrig()
	case packet.KindBBP, packet.KindBIP, packet.KindBEP:
		// Not decoded with SetBlockItems(false), as in libipt (unknown
		// opcode); skipped if they ever come.
		return more
	case packet.KindInvalid:
		if d.status != CodeOK {
			return d.status
		}
		return more
	}
	return CodeBadOpc
}

// standalone returns the cleared standalone event with type t.
func (d *Decoder) standalone(t EventType) *Event {
	ev := d.evq.newStandalone()
	ev.Type = t
	return ev
}

// publish stamps ev with the time, makes it the current event and moves
// to the next packet.
func (d *Decoder) publish(ev *Event) Code {
	d.clock.eventTime(ev)
	d.cur = ev
	d.fetchPacket()
	return CodeOK
}

// eventIP gives ev the last IP, or marks it suppressed if there is none
// (libipt's pt_evt_event_ip).
func (d *Decoder) eventIP(ev *Event) {
	ip, err := d.ip.Query()
	ev.IP = ip
	if err != nil {
		ev.IP = 0
		ev.IPSuppressed = true
	}
}

// updateIP applies the current IP packet to the last IP.
func (d *Decoder) updateIP() Code {
	if err := d.ip.Update(d.pkt.IPC, d.pkt.Payload); err != nil {
		return CodeBadPacket
	}
	return CodeOK
}

func (d *Decoder) decodeTNT() Code {
	if !d.enabled {
		return CodeBadContext
	}
	ev := d.standalone(EventTNT)
	ev.Bits = d.pkt.Payload
	ev.Size = d.pkt.Bits
	return d.publish(ev)
}

// decodeModeExec splits MODE.Exec into an exec-mode and an iflags event,
// for the parts that changed, both bound to the next TIP or FUP. If
// nothing changed, a placeholder still binds the packet.
func (d *Decoder) decodeModeExec() Code {
	csl := d.pkt.Flags&packet.FlagCSL != 0
	csd := d.pkt.Flags&packet.FlagCSD != 0
	iflag := d.pkt.Flags&packet.FlagIF != 0
	n := 0
	if !d.modeExecValid || d.csl != csl || d.csd != csd {
		ev := d.evq.enqueue(bindTIP | bindFUPBound)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = EventExecMode
		ev.Mode = ExecModeOf(csl, csd)
		d.csl, d.csd = csl, csd
		n++
	}
	if d.cfg.IFlagsEvents && (!d.modeExecValid || d.iflag != iflag) {
		ev := d.evq.enqueue(bindTIP | bindFUPBound)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = EventIFlags
		ev.IFlag = iflag
		d.iflag = iflag
		n++
	}
	if n == 0 {
		ev := d.evq.enqueue(bindTIP | bindFUPBound)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = eventIgnore
	}
	d.modeExecValid = true
	return more
}

func (d *Decoder) decodeModeTSX() Code {
	intx := d.pkt.Flags&packet.FlagInTX != 0
	abrt := d.pkt.Flags&packet.FlagTXAbort != 0
	if d.enabled {
		evb := bindFUPBound
		if abrt {
			evb = bindFUP
		}
		ev := d.evq.enqueue(evb)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = EventTSX
		ev.Speculative, ev.Aborted = intx, abrt
		return more
	}
	ev := d.standalone(EventTSX)
	ev.Speculative, ev.Aborted = intx, abrt
	ev.IPSuppressed = true
	return d.publish(ev)
}

// decodePIP: a PIP is standalone, or binds to the TIP of an unbound FUP
// (an asynchronous branch).
func (d *Decoder) decodePIP() Code {
	cr3 := d.pkt.Payload
	nr := d.pkt.Flags&packet.FlagNR != 0
	if d.evq.find(bindTIP, EventAsyncBranch) != nil {
		ev := d.evq.enqueue(bindTIP)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = EventAsyncPaging
		ev.CR3, ev.NonRoot = cr3, nr
		return more
	}
	ev := d.standalone(EventPaging)
	ev.CR3, ev.NonRoot = cr3, nr
	return d.publish(ev)
}

// decodeVMCS: like PIP; when both come between the FUP and TIP of an
// asynchronous branch, VMCS is ordered before PIP.
func (d *Decoder) decodeVMCS() Code {
	base := d.pkt.Payload
	if ev := d.evq.find(bindTIP, EventAsyncPaging); ev != nil {
		paging := d.evq.enqueue(bindTIP)
		if paging == nil {
			return CodeNoMem
		}
		*paging = *ev
		*ev = Event{Type: EventAsyncVMCS, Base: base}
		return more
	}
	if d.evq.find(bindTIP, EventAsyncBranch) != nil {
		ev := d.evq.enqueue(bindTIP)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = EventAsyncVMCS
		ev.Base = base
		return more
	}
	// A standalone VMCS binds to a VMPTRLD, VMRESUME or VMLAUNCH; the
	// instruction decoders place it.
	ev := d.standalone(EventVMCS)
	ev.Base = base
	return d.publish(ev)
}

func (d *Decoder) decodeExstop() Code {
	withIP := d.pkt.Flags&packet.FlagIP != 0
	if ev := d.evq.dequeue(bindExstop); ev != nil {
		if ev.Type != EventMwait {
			return CodeInternal
		}
		if !withIP {
			// Without IP, MWAIT and EXSTOP are both standalone: publish
			// the MWAIT now and the EXSTOP on the next call.
			ev.IP = 0
			ev.IPSuppressed = true
			d.clock.eventTime(ev)
			d.cur = ev
			return CodeOK
		}
		// With IP, both bind to the same FUP, MWAIT first.
		mwait := d.evq.enqueue(bindFUPBound)
		if mwait == nil {
			return CodeNoMem
		}
		*mwait = *ev
	}
	if withIP {
		ev := d.evq.enqueue(bindFUPBound)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = EventExstop
		return more
	}
	ev := d.standalone(EventExstop)
	ev.IPSuppressed = true
	return d.publish(ev)
}

// decodePwrx publishes a pending PWRE first (with its own time), then the
// PWRX on the next call.
func (d *Decoder) decodePwrx() Code {
	if ev := d.evq.dequeue(bindPwrx); ev != nil {
		if ev.Type != EventPwre {
			return CodeInternal
		}
		d.cur = ev
		return CodeOK
	}
	p := d.pkt
	ev := d.standalone(EventPwrx)
	ev.Last, ev.Deepest = p.State, p.SubState
	ev.Interrupt = p.Flags&packet.FlagInterrupt != 0
	ev.Store = p.Flags&packet.FlagStore != 0
	ev.Autonomous = p.Flags&packet.FlagAutonomous != 0
	return d.publish(ev)
}

func (d *Decoder) decodePTW() Code {
	var size uint8
	switch d.pkt.Bits {
	case 0:
		size = 4
	case 1:
		size = 8
	default:
		return CodeBadPacket
	}
	if d.pkt.Flags&packet.FlagIP != 0 {
		ev := d.evq.enqueue(bindFUPBound)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = EventPtwrite
		ev.Size, ev.Payload = size, d.pkt.Payload
		return more
	}
	ev := d.standalone(EventPtwrite)
	ev.Size, ev.Payload = size, d.pkt.Payload
	ev.IPSuppressed = true
	return d.publish(ev)
}
