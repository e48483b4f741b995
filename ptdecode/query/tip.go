package query

// decodeFUP binds pending events to a FUP's IP, one per call. A FUP that
// binds nothing starts an asynchronous branch completed by the next TIP or
// TIP.PGD (libipt's pt_evt_decode_fup).
func (d *Decoder) decodeFUP() Code {
	if c := d.updateIP(); c != CodeOK {
		return c
	}
	if d.evq.pending(bindFUPBound) {
		d.bound = true
	}
	ev := d.evq.dequeue(bindFUP | bindFUPBound)
	if ev == nil {
		if d.bound {
			return more
		}
		// An asynchronous branch needs its source IP.
		from, err := d.ip.Query()
		if err != nil {
			return packetCode(err)
		}
		ev = d.evq.enqueue(bindTIP)
		if ev == nil {
			return CodeNoMem
		}
		ev.Type = EventAsyncBranch
		ev.From = from
		return more
	}
	d.cur = ev
	switch ev.Type {
	case EventOverflow:
		// The overflow keeps the time of the OVF, which hints at how long
		// the overflow lasted.
		d.eventIP(ev)
		d.enabled = true
	case EventTSX, EventExstop, EventMwait, EventPtwrite, EventExecMode,
		EventIFlags, EventInterrupt, EventIret, EventSMI, EventInit,
		EventVMEntry, EventVMExit, EventShutdown, EventUintr, EventUiret,
		EventTrig, EventSwintr, EventSyscall:
		d.clock.eventTime(ev)
		d.eventIP(ev)
	case EventRSM, EventSIPI:
		d.clock.eventTime(ev)
		if !ev.IPSuppressed {
			return CodeInternal
		}
	case eventIgnore:
		d.cur = nil
		return d.decodeFUP()
	default:
		return CodeBadContext
	}
	return CodeOK
}

// decodeTIPEvent publishes the branch of a TIP: the asynchronous branch of
// a preceding FUP, or a TIP event.
func (d *Decoder) decodeTIPEvent() Code {
	d.bound = true
	if async := d.evq.find(bindTIP, EventAsyncBranch); async != nil {
		ev := d.evq.dequeue(bindTIP)
		if ev == nil {
			return CodeInternal
		}
		// The asynchronous branch goes first.
		if ev != async {
			*ev, *async = *async, *ev
		}
		if ev.Type != EventAsyncBranch {
			return CodeInternal
		}
		d.cur = ev
		d.eventIP(ev)
		d.clock.eventTime(ev)
		return CodeOK
	}
	ev := d.standalone(EventTIP)
	d.cur = ev
	d.eventIP(ev)
	d.clock.eventTime(ev)
	return CodeOK
}

// decodeTIP publishes the branch first (it binds to the branch, the
// other events to the target), then the events bound to the TIP.
func (d *Decoder) decodeTIP() Code {
	if !d.enabled {
		return CodeBadContext
	}
	if c := d.updateIP(); c != CodeOK {
		return c
	}
	if !d.bound {
		return d.decodeTIPEvent()
	}
	ev := d.evq.dequeue(bindTIP)
	if ev == nil {
		return more
	}
	d.cur = ev
	switch ev.Type {
	case EventAsyncBranch:
		return CodeInternal
	case EventExecMode, EventAsyncPaging, EventAsyncVMCS, EventIFlags:
		d.eventIP(ev)
	case eventIgnore:
		d.cur = nil
		return d.decodeTIP()
	default:
		return CodeBadContext
	}
	d.clock.eventTime(ev)
	return CodeOK
}

// decodeTIPPGE publishes the enable event first, then the events bound to
// the TIP.PGE.
func (d *Decoder) decodeTIPPGE() Code {
	if c := d.updateIP(); c != CodeOK {
		return c
	}
	if !d.bound {
		ev := d.standalone(EventEnabled)
		d.cur = ev
		d.eventIP(ev)
		d.enabled = true
		d.bound = true
		d.clock.eventTime(ev)
		return CodeOK
	}
	ev := d.evq.dequeue(bindTIP)
	if ev == nil {
		return more
	}
	d.cur = ev
	switch ev.Type {
	case EventExecMode, EventIFlags:
		d.eventIP(ev)
	case eventIgnore:
		d.cur = nil
		return d.decodeTIPPGE()
	default:
		return CodeBadContext
	}
	d.clock.eventTime(ev)
	return CodeOK
}

// decodeTIPPGD publishes the events bound to the TIP.PGD: an asynchronous
// branch becomes an asynchronous disable; without one, a disable event.
func (d *Decoder) decodeTIPPGD() Code {
	if c := d.updateIP(); c != CodeOK {
		return c
	}
	ev := d.evq.dequeue(bindTIP)
	if ev == nil {
		if d.bound {
			return more
		}
		ev = d.standalone(EventDisabled)
		d.eventIP(ev)
		d.enabled = false
		return d.publish(ev)
	}
	d.cur = ev
	switch ev.Type {
	case EventAsyncBranch:
		ev.Type = EventAsyncDisabled // From stays the source
		d.eventIP(ev)
		d.enabled = false
		d.bound = true
	case EventAsyncPaging, EventAsyncVMCS:
		// These come after the asynchronous branch made a disable above.
		if !d.bound {
			return CodeInternal
		}
		ev.IPSuppressed = true
	case EventExecMode:
		// Tracing is disabled when these apply; the IP is moot.
		ev.IPSuppressed = true
	default:
		return CodeBadContext
	}
	d.clock.eventTime(ev)
	return CodeOK
}
