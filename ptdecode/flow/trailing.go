package flow

import (
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
)

const bdm64MaxSteps = 0x100

// rangeIsContiguous reports whether end is reached from begin without
// trace within steps instructions.
func (d *BlockDecoder) rangeIsContiguous(begin, end uint64, mode insn.Mode, steps int) (bool, query.Code) {
	in := insn.Insn{IP: begin, Mode: mode}
	var raw [insn.MaxSize]byte
	for in.IP != end {
		if steps == 0 {
			return false, 0
		}
		steps--
		if _, c := decodeInsn(d.img, &in, nil, &raw); c != 0 {
			return false, c
		}
		ip, c := nextIP(&in)
		if c != 0 {
			return false, c
		}
		in = insn.Insn{IP: ip, Mode: mode}
	}
	return true, 0
}

// handleBDM64: a TSX abort may come with a TIP/TNT that belongs after it.
func (d *BlockDecoder) handleBDM64(b *Block, ev *query.Event) (bool, query.Code) {
	if !ev.Aborted || b.NInsn == 0 {
		return false, 0
	}
	in := insn.Insn{IP: b.EndIP, Mode: b.Mode}
	var raw [insn.MaxSize]byte
	if _, c := decodeInsn(d.img, &in, nil, &raw); c != 0 {
		return false, 0
	}
	if !in.IsBranch() {
		return false, 0
	}
	// An error finding the way counts as not contiguous.
	if ok, c := d.rangeIsContiguous(d.ip, ev.IP, d.mode, bdm64MaxSteps); ok && c == 0 {
		return true, 0
	}
	d.ip = ev.IP
	return true, 0
}

// postponeTrailingTSX reports whether a TSX event must wait for the next block.
func (d *BlockDecoder) postponeTrailingTSX(b *Block, ev *query.Event) bool {
	if ev.IPSuppressed {
		return false
	}
	if b != nil && d.cfg.Query.Errata.BDM64 {
		if _, c := d.handleBDM64(b, ev); c != 0 {
			return true
		}
	}
	return d.ip != ev.IP
}

// proceedTrailingEvent checks whether the next event binds where the
// block ended (pt_blk_proceed_trailing_event). b is nil when called after
// an event.
func (d *BlockDecoder) proceedTrailingEvent(b *Block) (Status, query.Code) {
	// Fast path: more branch bits, or an indirect branch target, follow.
	if d.status == 0 && !d.processInsn && !d.cfg.TickEvents {
		switch d.ev.Type {
		case query.EventTNT:
			if d.ev.Size != 0 {
				return d.statusFlags(0), 0
			}
		case query.EventTIP:
			return d.statusFlags(0), 0
		}
	}
	if d.status != 0 {
		if c := d.proceedPostponedInsn(); c != 0 {
			return 0, c
		}
		var flags Status
		if d.status != query.CodeEOS {
			flags |= StatusEventPending
		}
		return d.statusFlags(flags), 0
	}
	ev := &d.ev
	pending := func() (Status, query.Code) { return d.statusFlags(StatusEventPending), 0 }
	// postponed steps past a postponed instruction first.
	postponed := func() query.Code { return d.proceedPostponedInsn() }
	// atIP reports whether the event binds at the current IP.
	atIP := func(needEnabled bool) bool {
		return ev.IPSuppressed || (needEnabled && !d.enabled) || d.ip == ev.IP
	}
	// boundTo checks a synchronous event binding to the postponed insn.
	boundTo := func(flag uint8, pred insnPred, needSuppressed bool) bool {
		if !d.processInsn || d.bound&flag != 0 {
			return false
		}
		if needSuppressed && !ev.IPSuppressed {
			return false
		}
		if !pred(&d.insn) {
			return false
		}
		d.bound |= flag
		return true
	}

	switch ev.Type {
	case query.EventTNT:
		if !d.cfg.TickEvents || b == nil || !ev.HasTSC || ev.TSC == d.tsc {
			if ev.Size != 0 {
				break
			}
			if c := d.fetchEvent(); c != 0 {
				return 0, c
			}
			return d.proceedTrailingEvent(b)
		}
		if b.Class != insn.ClassCondJump && b.Class != insn.ClassReturn {
			break
		}
		return pending()
	case query.EventTIP:
	case query.EventTick, query.EventEnabled, query.EventOverflow, query.EventStop,
		query.EventPwre, query.EventPwrx, query.EventCBR, query.EventMNT:
		if c := postponed(); c != 0 {
			return 0, c
		}
		return pending()
	case query.EventDisabled:
		if !d.processInsn {
			if ev.StatusUpdate {
				return pending()
			}
			break
		}
		if ev.IPSuppressed && d.insn.ChangesCR3() {
			return pending()
		}
		ip, c := nextIP(&d.insn)
		if c != 0 {
			if c != query.CodeBadQuery {
				return 0, c
			}
			d.setDisableResumeIP(&d.insn)
			return pending()
		}
		d.ip = ip
		d.clearPostponedInsn()
		if !ev.IPSuppressed && d.ip == ev.IP {
			return pending()
		}
	case query.EventAsyncDisabled:
		if c := postponed(); c != 0 {
			return 0, c
		}
		if d.ip != ev.From {
			break
		}
		if d.cfg.Query.Errata.SKD022 && d.handleSKD022(ev) {
			break
		}
		return pending()
	case query.EventAsyncBranch:
		if c := postponed(); c != 0 {
			return 0, c
		}
		if d.ip != ev.From {
			break
		}
		return pending()
	case query.EventPaging:
		if !d.enabled {
			return pending()
		}
		if boundTo(boundPaging, (*insn.Insn).BindsToPIP, false) {
			return pending()
		}
	case query.EventVMCS:
		if !d.enabled {
			return pending()
		}
		if boundTo(boundVMCS, (*insn.Insn).BindsToVMCS, false) {
			return pending()
		}
	case query.EventAsyncPaging, query.EventAsyncVMCS:
		if c := postponed(); c != 0 {
			return 0, c
		}
		if !atIP(false) {
			break
		}
		return pending()
	case query.EventExecMode:
		if c := postponed(); c != 0 {
			return 0, c
		}
		if !d.enabled {
			return pending()
		}
		if !atIP(false) {
			break
		}
		return pending()
	case query.EventTSX:
		if c := postponed(); c != 0 {
			return 0, c
		}
		if d.postponeTrailingTSX(b, ev) {
			break
		}
		return pending()
	case query.EventExstop, query.EventMwait, query.EventIFlags, query.EventInterrupt, query.EventSMI,
		query.EventInit, query.EventVMExit, query.EventShutdown, query.EventUintr:
		if c := postponed(); c != 0 {
			return 0, c
		}
		if !atIP(true) {
			break
		}
		return pending()
	case query.EventPtwrite:
		if !d.enabled {
			return pending()
		}
		if boundTo(boundPtwrite, isPTWrite, true) {
			return pending()
		}
	case query.EventIret:
		if !d.enabled {
			return pending()
		}
		if boundTo(boundIret, (*insn.Insn).IsIret, true) {
			return pending()
		}
	case query.EventVMEntry:
		if !d.enabled {
			return pending()
		}
		if boundTo(boundVMEntry, (*insn.Insn).IsVMEntry, true) {
			return pending()
		}
	case query.EventUiret:
		if !d.enabled {
			return pending()
		}
		if boundTo(boundUiret, (*insn.Insn).IsUiret, true) {
			return pending()
		}
	case query.EventSwintr:
		if !d.enabled {
			return pending()
		}
		if boundTo(boundSwintr, (*insn.Insn).IsSwInt, true) {
			return pending()
		}
	case query.EventSyscall:
		if !d.enabled {
			return pending()
		}
		if boundTo(boundSyscall, (*insn.Insn).IsSyscall, true) {
			return pending()
		}
	case query.EventRSM, query.EventSIPI:
		if c := postponed(); c != 0 {
			return 0, c
		}
		if !ev.IPSuppressed {
			return 0, query.CodeInternal
		}
		return pending()
	case query.EventTrig:
		if c := postponed(); c != 0 {
			return 0, c
		}
		if !d.enabled || ev.IPSuppressed {
			return pending()
		}
		if c := d.provideTrigAnchor(ev); c != 0 {
			return 0, c
		}
		if ev.ICnt != 0 {
			break
		}
		if ev.IP != d.ip {
			return 0, query.CodeBadPacket
		}
		return pending()
	}
	if c := d.proceedPostponedInsn(); c != 0 {
		return 0, c
	}
	return d.statusFlags(0), 0
}
