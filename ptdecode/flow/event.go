package flow

import "github.com/perfpt/perfpt/ptdecode/query"

func (d *BlockDecoder) processEnabled(ev *query.Event) query.Code {
	if ev.StatusUpdate {
		if !d.enabled {
			return query.CodeBadStatusUpdate
		}
		return 0
	}
	if ev.IPSuppressed {
		return query.CodeNoIP
	}
	if d.enabled {
		return query.CodeBadContext
	}
	d.ip = ev.IP
	d.enabled = true
	return 0
}

func (d *BlockDecoder) processDisabled(ev *query.Event) query.Code {
	if ev.StatusUpdate {
		if d.enabled {
			return query.CodeBadStatusUpdate
		}
		return 0
	}
	if !d.enabled {
		return query.CodeBadContext
	}
	d.enabled = false
	d.icnt = 0
	return 0
}

func (d *BlockDecoder) processOverflow(ev *query.Event) query.Code {
	if ev.StatusUpdate {
		return query.CodeBadContext
	}
	if ev.IPSuppressed {
		d.enabled = false
		d.ip = 0
	} else {
		d.enabled = true
		d.ip = ev.IP
	}
	d.speculative = false
	return 0
}

func (d *BlockDecoder) processExecMode(ev *query.Event) query.Code {
	mode := modeOf(ev.Mode)
	if ev.StatusUpdate && d.enabled && d.mode != 0 && d.mode != mode {
		return query.CodeBadStatusUpdate
	}
	d.mode = mode
	return 0
}

// Event returns the pending event in ev (pt_blk_event). Call it while the
// status has StatusEventPending.
func (d *BlockDecoder) Event(ev *query.Event) (Status, error) {
	s, c := d.event(ev)
	return d.result(s, c)
}

func (d *BlockDecoder) event(uev *query.Event) (Status, query.Code) {
	if d.status != 0 {
		return 0, d.status
	}
	ev := &d.ev
	var c query.Code
	if ev.StatusUpdate {
		// A PSB+: the hardware does not compress returns to calls before
		// a PSB (decoding may start at any PSB), so neither do we. This
		// also keeps a sequential decode equal to one that starts here.
		d.ret.init()
	}
	// needIP checks that the event binds at the current IP.
	needIP := func(needEnabled bool) bool {
		return (needEnabled && !d.enabled) || ev.IPSuppressed || d.ip == ev.IP
	}
	switch ev.Type {
	case query.EventTNT:
		if !d.cfg.TickEvents || !ev.HasTSC || ev.TSC == d.tsc {
			return 0, query.CodeBadQuery
		}
		*uev = query.Event{Type: query.EventTick, HasTSC: true, TSC: ev.TSC,
			LostMTC: ev.LostMTC, LostCYC: ev.LostCYC, IP: d.ip}
		d.hasTSC = true
		d.tsc = ev.TSC
		d.lostMTC = ev.LostMTC
		d.lostCYC = ev.LostCYC
		if ev.Size == 0 {
			if c := d.fetchEvent(); c != 0 {
				return 0, c
			}
		}
		return d.proceedTrailingEvent(nil)
	case query.EventEnabled:
		if ev.IP == d.ip {
			ev.Resumed = true
		}
		c = d.processEnabled(ev)
	case query.EventAsyncDisabled:
		if d.ip != ev.From {
			return 0, query.CodeBadQuery
		}
		c = d.processDisabled(ev)
	case query.EventDisabled:
		c = d.processDisabled(ev)
	case query.EventAsyncBranch:
		if d.ip != ev.From {
			return 0, query.CodeBadQuery
		}
		if ev.StatusUpdate || !d.enabled {
			return 0, query.CodeBadContext
		}
		d.ip = ev.IP
	case query.EventAsyncPaging, query.EventPaging:
		if ev.Type == query.EventAsyncPaging && !ev.IPSuppressed && d.ip != ev.IP {
			return 0, query.CodeBadQuery
		}
		d.setCR3(ev.CR3)
	case query.EventAsyncVMCS, query.EventVMCS:
		if ev.Type == query.EventAsyncVMCS && !ev.IPSuppressed && d.ip != ev.IP {
			return 0, query.CodeBadQuery
		}
		d.vmcs = ev.Base
	case query.EventOverflow:
		c = d.processOverflow(ev)
	case query.EventExecMode:
		if !needIP(false) && d.enabled {
			return 0, query.CodeBadQuery
		}
		c = d.processExecMode(ev)
	case query.EventTSX:
		if !ev.IPSuppressed && d.ip != ev.IP {
			return 0, query.CodeBadQuery
		}
		d.speculative = ev.Speculative
	case query.EventStop:
		if ev.StatusUpdate || d.enabled {
			return 0, query.CodeBadContext
		}
	case query.EventExstop, query.EventMwait:
		if !needIP(true) {
			return 0, query.CodeBadQuery
		}
	case query.EventPwre, query.EventPwrx, query.EventPtwrite, query.EventTick, query.EventMNT,
		query.EventIret, query.EventVMEntry, query.EventUiret:
	case query.EventCBR:
		d.hasCBR = true
		d.cbr = uint32(ev.Ratio)
	case query.EventTIP:
		return 0, query.CodeBadQuery
	case query.EventIFlags, query.EventInterrupt, query.EventSMI, query.EventInit, query.EventVMExit,
		query.EventShutdown, query.EventUintr, query.EventTrig, query.EventSwintr, query.EventSyscall:
		if !needIP(true) {
			return 0, query.CodeBadQuery
		}
	case query.EventRSM, query.EventSIPI:
		if !ev.IPSuppressed {
			return 0, query.CodeInternal
		}
	}
	if c != 0 {
		return 0, c
	}
	*uev = *ev
	if c := d.fetchEvent(); c != 0 {
		return 0, c
	}
	return d.proceedTrailingEvent(nil)
}

// setCR3 records a new CR3.
func (d *BlockDecoder) setCR3(cr3 uint64) { d.cr3 = cr3 }

// Resync recovers from an error: it skips to the next event the decoder
// can continue at, or to the next PSB (pt_blk_resync).
func (d *BlockDecoder) Resync() (Status, error) {
	s, c := d.resync()
	if c == codeSyncAgain {
		off := d.evd.SyncOffset()
		s, err := d.SyncSet(off)
		d.resyncedAt = off
		return s, err
	}
	return d.result(s, c)
}

// codeSyncAgain (internal) asks Resync to synchronise at the sync offset.
const codeSyncAgain query.Code = 0xff

func (d *BlockDecoder) resyncAtEvent() (Status, query.Code) {
	if c := d.fetchEvent(); c != 0 {
		return 0, c
	}
	return d.proceedTrailingEvent(nil)
}

func (d *BlockDecoder) resync() (Status, query.Code) {
	d.clearPostponedInsn()
	ev := &d.ev
	pending := func() (Status, query.Code) { return d.statusFlags(StatusEventPending), 0 }
	// setIP moves to the event's IP, enabling or disabling tracing.
	setIPEnable := func() (Status, query.Code) {
		if ev.IPSuppressed {
			d.enabled = false
		} else {
			d.enabled = true
			d.ip = ev.IP
		}
		return pending()
	}
	for {
		if d.status != 0 {
			return 0, d.status
		}
		if ev.StatusUpdate {
			return 0, codeSyncAgain
		}
		switch ev.Type {
		case query.EventEnabled:
			d.enabled = false
			return pending()
		case query.EventDisabled:
			d.enabled = true
			d.ip = 0
			if c := d.processDisabled(ev); c != 0 {
				return 0, c
			}
			return d.resyncAtEvent()
		case query.EventAsyncDisabled:
			d.ip = ev.From
			if d.cfg.Query.Errata.SKD022 && d.handleSKD022(ev) {
				break
			}
			return pending()
		case query.EventAsyncBranch:
			d.ip = ev.From
			return pending()
		case query.EventAsyncPaging, query.EventAsyncVMCS:
			if !ev.IPSuppressed {
				d.ip = ev.IP
				return pending()
			}
			if ev.Type == query.EventAsyncPaging {
				d.setCR3(ev.CR3)
			} else {
				d.vmcs = ev.Base
			}
		case query.EventPaging:
			d.setCR3(ev.CR3)
		case query.EventVMCS:
			d.vmcs = ev.Base
		case query.EventOverflow:
			return pending()
		case query.EventExecMode, query.EventTSX, query.EventIFlags, query.EventInterrupt:
			return setIPEnable()
		case query.EventStop, query.EventPwre, query.EventPwrx, query.EventCBR, query.EventMNT,
			query.EventTNT, query.EventSIPI, query.EventTrig:
		case query.EventExstop, query.EventMwait, query.EventTick, query.EventIret, query.EventSMI,
			query.EventRSM, query.EventInit, query.EventVMExit, query.EventShutdown, query.EventUintr,
			query.EventSwintr, query.EventSyscall:
			if ev.IPSuppressed {
				break
			}
			d.ip = ev.IP
			return pending()
		case query.EventPtwrite:
			if ev.IPSuppressed {
				return 0, query.CodeEventIgnored
			}
			d.ip = ev.IP
			return d.statusFlags(0), 0
		case query.EventVMEntry, query.EventUiret:
			if ev.IPSuppressed {
				break
			}
			d.ip = ev.IP
			return d.statusFlags(0), 0
		case query.EventTIP:
			d.ip = ev.IP
			return d.resyncAtEvent()
		}
		if c := d.fetchEvent(); c != 0 {
			return 0, c
		}
	}
}
