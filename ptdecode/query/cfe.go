package query

import "github.com/perfpt/perfpt/ptdecode/packet"

// The CFE (control flow event) types and EVD (event data) types of event
// tracing.
const (
	cfeIntr       = 0x01
	cfeIret       = 0x02
	cfeSMI        = 0x03
	cfeRSM        = 0x04
	cfeSIPI       = 0x05
	cfeInit       = 0x06
	cfeVMEntry    = 0x07
	cfeVMExit     = 0x08
	cfeVMExitIntr = 0x09
	cfeShutdown   = 0x0a
	cfeUintr      = 0x0c
	cfeUiret      = 0x0d
	cfeSwintr     = 0x0e
	cfeSyscall    = 0x0f

	evdCR2  = 0x00
	evdVMXQ = 0x01
	evdVMXR = 0x02
)

// cfeKind describes how a CFE type becomes an event.
type cfeKind struct {
	typ EventType
	// ipOnly: without CFE.IP the event is standalone even with tracing
	// enabled (it does not bind to an unbound FUP).
	ipOnly bool
	// noIP: the event never has an IP; CFE.IP is a bad packet.
	noIP bool
	// vector: the event takes the CFE vector.
	vector bool
	// evd: EVD packets may precede the CFE and start the event.
	evd bool
}

var cfeKinds = [32]cfeKind{
	cfeIntr:       {typ: EventInterrupt, vector: true, evd: true},
	cfeIret:       {typ: EventIret, ipOnly: true},
	cfeSMI:        {typ: EventSMI},
	cfeRSM:        {typ: EventRSM, noIP: true},
	cfeSIPI:       {typ: EventSIPI, noIP: true, vector: true},
	cfeInit:       {typ: EventInit},
	cfeVMEntry:    {typ: EventVMEntry, ipOnly: true},
	cfeVMExit:     {typ: EventVMExit, evd: true},
	cfeVMExitIntr: {typ: EventVMExit, evd: true},
	cfeShutdown:   {typ: EventShutdown, ipOnly: true},
	cfeUintr:      {typ: EventUintr, vector: true},
	cfeUiret:      {typ: EventUiret, ipOnly: true},
	cfeSwintr:     {typ: EventSwintr, vector: true},
	cfeSyscall:    {typ: EventSyscall, ipOnly: true},
}

// decodeCFE turns a CFE into an event (libipt's pt_evt_decode_cfe). With
// CFE.IP it binds to the next FUP; without, it binds to an unbound FUP if
// tracing is enabled (for most types), or is standalone. Unknown types
// are ignored, along with the FUP they may bind.
func (d *Decoder) decodeCFE() Code {
	p := d.pkt
	withIP := p.Flags&packet.FlagIP != 0
	// An EVD may have started the event already.
	pending := d.evq.dequeue(bindCFE)

	typ := p.Type & 0x1f
	k := cfeKinds[typ]
	if k.typ == EventEnabled { // unknown type
		if pending != nil {
			return CodeInternal
		}
		if withIP {
			ev := d.evq.enqueue(bindFUPBound)
			if ev == nil {
				return CodeNoMem
			}
			ev.Type = eventIgnore
		}
		return more
	}

	var ev *Event
	if k.evd {
		if pending == nil {
			pending = d.standalone(k.typ)
		}
		if pending.Type != k.typ {
			return CodeBadContext
		}
		ev = pending
	} else {
		if pending != nil {
			return CodeBadContext
		}
		ev = d.standalone(k.typ)
	}
	if k.noIP && withIP {
		return CodeBadPacket
	}
	switch {
	case typ == cfeVMExitIntr:
		ev.HasVector = true
		ev.Vector = p.Vector
	case k.vector:
		ev.Vector = p.Vector
	}
	if k.noIP {
		ev.IPSuppressed = true
	}

	switch {
	case withIP:
		if d.evq.requeue(ev, bindFUPBound) == nil {
			return CodeNoMem
		}
		return more
	case d.enabled && !k.ipOnly:
		if d.evq.requeue(ev, bindFUP) == nil {
			return CodeNoMem
		}
		return more
	}
	// Standalone: publish with the IP suppressed.
	if ev != &d.evq.standalone {
		s := d.evq.newStandalone()
		*s = *ev
		ev = s
	}
	ev.IPSuppressed = true
	return d.publish(ev)
}

// decodeEVD starts or extends the event of the CFE that follows
// (libipt's pt_evt_decode_evd). Unknown types are ignored.
func (d *Decoder) decodeEVD() Code {
	ev := d.evq.peek(bindCFE)
	switch d.pkt.Type & 0x1f {
	case evdCR2:
		if ev != nil {
			return CodeBadContext
		}
		ev = d.evq.enqueue(bindCFE)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = EventInterrupt
		ev.HasCR2 = true
		ev.CR2 = d.pkt.Payload
	case evdVMXQ, evdVMXR:
		if ev == nil {
			ev = d.evq.enqueue(bindCFE)
			if ev == nil {
				return CodeNoMem
			}
			ev.Type = EventVMExit
		}
		if ev.Type != EventVMExit {
			return CodeBadContext
		}
		if d.pkt.Type&0x1f == evdVMXQ {
			if ev.HasVMXQ {
				return CodeBadContext
			}
			ev.HasVMXQ = true
			ev.VMXQ = d.pkt.Payload
		} else {
			if ev.HasVMXR {
				return CodeBadContext
			}
			ev.HasVMXR = true
			ev.VMXR = d.pkt.Payload
		}
	}
	return more
}

// decodeTrig: with TRIG.IP the event binds to the next FUP; else it is
// standalone, anchored ICnt instructions after the last anchor (the
// instruction decoders resolve it).
func (d *Decoder) decodeTrig() Code {
	p := d.pkt
	icntv := p.Flags&packet.FlagICNTV != 0
	icnt := uint16(p.Ext)
	trbv := uint8(p.Payload)
	mult := p.Flags&packet.FlagMult != 0
	if p.Flags&packet.FlagIP != 0 {
		// The FUP gives the precise IP; a count makes no sense then.
		if !icntv || icnt != 0 {
			return CodeBadPacket
		}
		ev := d.evq.enqueue(bindFUPBound)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = EventTrig
		ev.TRBV, ev.Mult = trbv, mult
		return more
	}
	ev := d.standalone(EventTrig)
	ev.TRBV, ev.Mult = trbv, mult
	if icntv {
		// A count is only given with tracing enabled.
		if icnt != 0 && !d.enabled {
			return CodeBadPacket
		}
		ev.ICnt = icnt
	} else {
		ev.IPSuppressed = true
	}
	return d.publish(ev)
}
