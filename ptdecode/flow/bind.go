package flow

import (
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// Binding events to instructions (pt_blk_proceed_event and its helpers).

func predSKL014(in *insn.Insn) bool {
	switch in.Class {
	case insn.ClassJump:
		if in.IClass == insn.IJmpAbs {
			return false
		}
		return in.Direct
	case insn.ClassCall:
		return in.Direct
	case insn.ClassOther:
		return in.ChangesCR3()
	}
	return false
}

// proceedSKL014 finds the instruction a TIP.PGD with suppressed IP binds to
// when SKL014 may have suppressed it for a direct branch out of the filter.
func (d *BlockDecoder) proceedSKL014(b *Block, in *insn.Insn) (bool, query.Code) {
	for {
		reached, c := d.proceedToInsn(b, in, predSKL014)
		if !reached || c != 0 {
			return reached, c
		}
		if in.ChangesCR3() {
			return true, 0
		}
		ip, c := nextIP(in)
		if c != 0 {
			return false, c
		}
		if !d.cfg.Query.Filter.Check(ip) {
			return true, 0
		}
		d.ip = ip
		if d.endsBlockOnUserFlag(in) {
			return true, 0
		}
	}
}

func (d *BlockDecoder) proceedToDisabled(b *Block, in *insn.Insn, ev *query.Event) (bool, query.Code) {
	if ev.IPSuppressed {
		if d.cfg.Query.Filter.Cfg != 0 && d.cfg.Query.Errata.SKL014 {
			return d.proceedSKL014(b, in)
		}
		return d.proceedToInsn(b, in, (*insn.Insn).ChangesCR3)
	}
	return d.proceedToIP(b, in, ev.IP)
}

// setDisableResumeIP guesses where tracing resumes after a synchronous
// disable at in: after a call, the return address; else unknown.
func (d *BlockDecoder) setDisableResumeIP(in *insn.Insn) {
	switch in.Class {
	case insn.ClassCall, insn.ClassFarCall:
		d.ip = in.IP + uint64(in.Size)
	default:
		d.ip = 0
	}
}

// proceedPast proceeds to the instruction pred selects, or at the event's
// IP, and past it (ptwrite, iret, vmentry, uiret).
func (d *BlockDecoder) proceedPast(b *Block, in *insn.Insn, ev *query.Event, pred insnPred) (bool, query.Code) {
	if ev.IPSuppressed {
		return d.proceedToInsn(b, in, pred)
	}
	reached, c := d.proceedToIP(b, in, ev.IP)
	if !reached || c != 0 {
		return reached, c
	}
	return d.proceedOneInsn(b, in)
}

// proceedTo proceeds to the instruction pred selects, or to the event's IP,
// but not past it (swintr, syscall).
func (d *BlockDecoder) proceedTo(b *Block, in *insn.Insn, ev *query.Event, pred insnPred) (bool, query.Code) {
	if ev.IPSuppressed {
		return d.proceedToInsn(b, in, pred)
	}
	return d.proceedToIP(b, in, ev.IP)
}

func (d *BlockDecoder) provideTrigAnchor(ev *query.Event) query.Code {
	if ev.Type != query.EventTrig || ev.IPSuppressed {
		return query.CodeInternal
	}
	if ev.IP != 0 {
		return 0
	}
	if !d.hasICnt || uint32(ev.ICnt) < d.icnt {
		return query.CodeBadPacket
	}
	ev.ICnt -= uint16(d.icnt)
	ev.IP = d.ip
	return 0
}

func (d *BlockDecoder) proceedToTrig(b *Block, in *insn.Insn, ev *query.Event) (bool, query.Code) {
	if ev.IPSuppressed {
		return true, 0
	}
	if c := d.provideTrigAnchor(ev); c != 0 {
		return false, c
	}
	if !d.enabled {
		if ev.ICnt == 0 {
			return false, query.CodeInternal
		}
		return true, 0
	}
	reached, c := d.proceedToIP(b, in, ev.IP)
	if !reached || c != 0 {
		return reached, c
	}
	for ev.ICnt != 0 {
		added, c := d.proceedOneInsn(b, in)
		if !added || c != 0 {
			return false, c
		}
		ip, c := nextIP(in)
		if c != 0 {
			return false, c
		}
		d.ip = ip
		ev.IP = ip
		ev.ICnt--
	}
	return true, 0
}

// handleSKD022 turns an async disable at a VMLAUNCH/VMRESUME into a
// synchronous one (the FUP may be bogus). It reports whether it did.
func (d *BlockDecoder) handleSKD022(ev *query.Event) bool {
	in := insn.Insn{IP: ev.From, Mode: d.mode}
	var raw [insn.MaxSize]byte
	if _, c := decodeInsn(d.img, &in, nil, &raw); c != 0 {
		return false
	}
	if !in.IsVMEntry() {
		return false
	}
	ev.Type = query.EventDisabled
	return true
}

func (d *BlockDecoder) postponeInsn(in *insn.Insn) (Status, query.Code) {
	if d.processInsn {
		return 0, query.CodeInternal
	}
	d.processInsn = true
	d.insn = *in
	return d.statusFlags(StatusEventPending), 0
}

func (d *BlockDecoder) clearPostponedInsn() {
	d.processInsn = false
	d.bound = 0
}

// proceedPostponedInsn steps past a postponed instruction once all events
// binding to it are processed.
func (d *BlockDecoder) proceedPostponedInsn() query.Code {
	if !d.processInsn {
		return 0
	}
	if !d.enabled {
		d.clearPostponedInsn()
		return 0
	}
	ip, c := nextIP(&d.insn)
	if c != 0 {
		if c != query.CodeBadQuery {
			return c
		}
		if c = d.proceedWithTrace(&d.insn); c != 0 {
			return c
		}
	} else {
		d.ip = ip
	}
	d.clearPostponedInsn()
	return 0
}

// proceedEvent proceeds to where the pending event binds.
func (d *BlockDecoder) proceedEvent(b *Block) (Status, query.Code) {
	in := &d.scratchIn
	*in = insn.Insn{}
	ev := &d.ev
	var reached bool
	var c query.Code
	// bindPostpone binds ev to in and postpones stepping past in.
	bindPostpone := func(flag uint8) (Status, query.Code) {
		if !reached || c != 0 {
			return 0, c
		}
		d.bound |= flag
		return d.postponeInsn(in)
	}
	// atIP proceeds to the event's IP unless it has none.
	atIP := func(needEnabled bool) bool {
		if ev.IPSuppressed || (needEnabled && !d.enabled) {
			return true
		}
		reached, c = d.proceedToIP(b, in, ev.IP)
		return reached && c == 0
	}
	switch ev.Type {
	case query.EventEnabled, query.EventOverflow, query.EventStop, query.EventPwre, query.EventPwrx,
		query.EventTick, query.EventCBR, query.EventMNT, query.EventRSM, query.EventSIPI:
	case query.EventDisabled:
		if ev.StatusUpdate {
			break
		}
		reached, c = d.proceedToDisabled(b, in, ev)
		if !reached || c != 0 {
			if c != query.CodeBadQuery {
				return 0, c
			}
			// A synchronous disable also binds to the next branch that
			// would need trace.
			d.setDisableResumeIP(in)
		}
	case query.EventAsyncDisabled:
		reached, c = d.proceedToIP(b, in, ev.From)
		if !reached || c != 0 {
			return 0, c
		}
		if d.cfg.Query.Errata.SKD022 && d.handleSKD022(ev) {
			return d.proceedEvent(b)
		}
	case query.EventAsyncBranch:
		reached, c = d.proceedToIP(b, in, ev.From)
		if !reached || c != 0 {
			return 0, c
		}
	case query.EventPaging:
		if !d.enabled {
			break
		}
		reached, c = d.proceedToInsn(b, in, (*insn.Insn).BindsToPIP)
		return bindPostpone(boundPaging)
	case query.EventVMCS:
		if !d.enabled {
			break
		}
		reached, c = d.proceedToInsn(b, in, (*insn.Insn).BindsToVMCS)
		return bindPostpone(boundVMCS)
	case query.EventPtwrite:
		if !d.enabled {
			break
		}
		reached, c = d.proceedPast(b, in, ev, isPTWrite)
		return bindPostpone(boundPtwrite)
	case query.EventIret:
		if !d.enabled {
			break
		}
		reached, c = d.proceedPast(b, in, ev, (*insn.Insn).IsIret)
		return bindPostpone(boundIret)
	case query.EventVMEntry:
		if !d.enabled {
			break
		}
		reached, c = d.proceedPast(b, in, ev, (*insn.Insn).IsVMEntry)
		return bindPostpone(boundVMEntry)
	case query.EventUiret:
		if !d.enabled {
			break
		}
		reached, c = d.proceedPast(b, in, ev, (*insn.Insn).IsUiret)
		return bindPostpone(boundUiret)
	case query.EventSwintr:
		if !d.enabled {
			break
		}
		reached, c = d.proceedTo(b, in, ev, (*insn.Insn).IsSwInt)
		return bindPostpone(boundSwintr)
	case query.EventSyscall:
		if !d.enabled {
			break
		}
		reached, c = d.proceedTo(b, in, ev, (*insn.Insn).IsSyscall)
		return bindPostpone(boundSyscall)
	case query.EventAsyncPaging, query.EventAsyncVMCS, query.EventExecMode, query.EventTSX,
		query.EventIFlags, query.EventInterrupt, query.EventSMI, query.EventInit, query.EventVMExit,
		query.EventShutdown, query.EventUintr:
		if !atIP(false) {
			return 0, c
		}
	case query.EventExstop, query.EventMwait:
		if !atIP(true) {
			return 0, c
		}
	case query.EventTIP, query.EventTNT:
		return 0, query.CodeInternal
	case query.EventTrig:
		reached, c = d.proceedToTrig(b, in, ev)
		if !reached || c != 0 {
			return 0, c
		}
	}
	return d.statusFlags(StatusEventPending), 0
}

func isPTWrite(in *insn.Insn) bool { return in.Class == insn.ClassPTWrite }
