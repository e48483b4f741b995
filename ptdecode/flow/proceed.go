package flow

import (
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// The proceed functions follow libipt's pt_block_decoder.c: they move
// d.ip through the code without trace as far as they can, adding the
// instructions they pass to the block, and use trace (TNT, TIP) for one
// last step. They return (reached, code): code is non-zero on error;
// reached says whether the instruction or IP looked for was reached (false
// also when the block is full or would switch mappings).

// insnPred selects the instruction an event binds to.
type insnPred func(*insn.Insn) bool

func predFalse(*insn.Insn) bool { return false }

// endsBlockOnUserFlag reports a direct call/jump the user wants blocks to end at.
func (d *BlockDecoder) endsBlockOnUserFlag(in *insn.Insn) bool {
	return (d.cfg.EndOnCall && in.Class == insn.ClassCall) || (d.cfg.EndOnJump && in.Class == insn.ClassJump)
}

// logCall pushes the return address of near calls (but not of calls to the
// next instruction, used by position independent code to read the IP).
func (d *BlockDecoder) logCall(in *insn.Insn) {
	if in.Class != insn.ClassCall {
		return
	}
	if in.Direct && in.Disp == 0 {
		return
	}
	d.ret.push(in.IP + uint64(in.Size))
}

// nextIP returns the IP after in when it does not need trace.
func nextIP(in *insn.Insn) (uint64, query.Code) {
	ip, ok := in.NextIP()
	if ok {
		return ip, 0
	}
	if in.Class == insn.ClassUnknown {
		return 0, query.CodeBadInsn
	}
	return 0, query.CodeBadQuery
}

// proceedOneInsn decodes the instruction at d.ip and adds it to b
// (pt_blk_proceed_one_insn). added is false when b is full, holds a
// truncated instruction, or the instruction is in another mapping.
func (d *BlockDecoder) proceedOneInsn(b *Block, in *insn.Insn) (added bool, c query.Code) {
	if b.NInsn == 0xffff || b.Truncated {
		return false, 0
	}
	*in = insn.Insn{IP: d.ip, Mode: d.mode}
	m, c := decodeInsn(d.img, in, d.curMsec(), &b.Raw)
	if c != 0 {
		return false, c
	}
	d.msec = m
	if m.ID != b.MapID {
		if b.NInsn != 0 {
			return false, 0
		}
		b.MapID = m.ID
	}
	if in.Truncated {
		b.RawSize = in.Size
		b.Truncated = true
	}
	d.logCall(in)
	b.Class = in.Class
	b.EndIP = in.IP
	b.NInsn++
	if d.hasICnt {
		d.icnt++
		if d.icnt == 0 {
			return false, query.CodeOverflow
		}
	}
	return true, 0
}

// proceedToInsn proceeds until an instruction satisfying pred; d.ip is
// left at that instruction (pt_blk_proceed_to_insn).
func (d *BlockDecoder) proceedToInsn(b *Block, in *insn.Insn, pred insnPred) (bool, query.Code) {
	for {
		added, c := d.proceedOneInsn(b, in)
		if !added || c != 0 {
			return false, c
		}
		if pred(in) {
			return true, 0
		}
		ip, c := nextIP(in)
		if c != 0 {
			return false, c
		}
		d.ip = ip
		if d.endsBlockOnUserFlag(in) {
			return false, 0
		}
	}
}

// proceedToIP proceeds until d.ip == ip (pt_blk_proceed_to_ip).
func (d *BlockDecoder) proceedToIP(b *Block, in *insn.Insn, ip uint64) (bool, query.Code) {
	for {
		if d.ip == ip {
			return true, 0
		}
		added, c := d.proceedOneInsn(b, in)
		if !added || c != 0 {
			return false, c
		}
		nip, c := nextIP(in)
		if c != 0 {
			return false, c
		}
		d.ip = nip
		if d.endsBlockOnUserFlag(in) {
			return d.ip == ip, 0
		}
	}
}

// condBranch takes the next bit of the current TNT event.
func (d *BlockDecoder) condBranch() (taken bool, c query.Code) {
	ev := &d.ev
	if ev.Type != query.EventTNT {
		return false, query.CodeBadQuery
	}
	if ev.Size == 0 {
		return false, query.CodeInternal
	}
	ev.Size--
	return (ev.Bits>>ev.Size)&1 != 0, 0
}

// tick turns the consumed TIP/TNT event into a tick event if the time
// changed and the user asked for ticks; otherwise it fetches the next event.
func (d *BlockDecoder) tick(ip uint64) query.Code {
	if d.cfg.TickEvents && d.ev.TSC != d.tsc {
		d.ev.Type = query.EventTick
		d.ev.IP = ip
		return 0
	}
	return d.fetchEvent()
}

// proceedIndirect takes the target of an indirect branch from a TIP event.
// It is not inlined: its read-ahead copies the event decoder, which would
// make the fast loop's frame big (profile-guided builds would inline it).
//
//go:noinline
func (d *BlockDecoder) proceedIndirect() query.Code {
	ev := &d.ev
	switch ev.Type {
	case query.EventTIP:
		if ev.IPSuppressed {
			return query.CodeBadPacket
		}
		ip := d.ip
		d.ip = ev.IP
		return d.tick(ip)
	case query.EventTNT:
		// A deferred TIP may hide behind an in-progress TNT: read ahead
		// and put the TNT back.
		saved := *d.evd
		tnt := *ev
		err := d.evd.Next(ev)
		if err != nil || ev.Type != query.EventTIP {
			*d.evd = saved
			*ev = tnt
			return query.CodeBadQuery
		}
		d.ip = ev.IP
		*ev = tnt
		return 0
	}
	return query.CodeBadQuery
}

// proceedWithTrace uses trace to step past in, which needs it
// (pt_blk_proceed_with_trace).
func (d *BlockDecoder) proceedWithTrace(in *insn.Insn) query.Code {
	switch in.Class {
	case insn.ClassCondJump:
		ip := in.IP + uint64(in.Size)
		taken, c := d.condBranch()
		if c != 0 {
			return c
		}
		if taken {
			ip += uint64(in.Disp)
		}
		d.ip = ip
		return 0
	case insn.ClassReturn:
		taken, c := d.condBranch()
		if c == query.CodeBadQuery {
			break
		}
		if c != 0 {
			return c
		}
		if !taken {
			return query.CodeBadRetcomp
		}
		ip, c := d.ret.pop()
		if c != 0 {
			return c
		}
		d.ip = ip
		return 0
	case insn.ClassJump:
		if in.IClass != insn.IJmpAbs && in.Direct {
			return query.CodeInternal
		}
	case insn.ClassCall:
		if in.Direct {
			return query.CodeInternal
		}
	case insn.ClassFarCall, insn.ClassFarReturn, insn.ClassFarJump:
	case insn.ClassUnknown:
		return query.CodeBadInsn
	default:
		return query.CodeInternal
	}
	return d.proceedIndirect()
}

// proceedNoEventUncached proceeds instruction by instruction as far as it
// gets without trace, then one step with trace.
func (d *BlockDecoder) proceedNoEventUncached(b *Block) query.Code {
	in := &d.scratchIn
	*in = insn.Insn{}
	_, c := d.proceedToInsn(b, in, predFalse)
	if c != 0 {
		if c != query.CodeBadQuery {
			return c
		}
		return d.proceedWithTrace(in)
	}
	return 0
}

// proceedNoEvent proceeds with no event pending: through the block cache
// when the code is mapped.
func (d *BlockDecoder) proceedNoEvent(b *Block) query.Code {
	m := d.lookup(d.ip)
	if m == nil {
		return d.proceedNoEventUncached(b)
	}
	if m.ID != b.MapID {
		if b.NInsn != 0 {
			return 0
		}
		b.MapID = m.ID
	}
	return d.proceedNoEventCached(b, m)
}

// proceed moves to the next decision point: the next event or the next
// branch that needs trace (pt_blk_proceed).
func (d *BlockDecoder) proceed(b *Block) (Status, query.Code) {
	if d.status != 0 {
		if d.status != query.CodeEOS {
			return 0, d.status
		}
		if !d.enabled {
			return 0, query.CodeEOS
		}
		if c := d.proceedNoEvent(b); c != 0 {
			return 0, c
		}
		return StatusEOS, 0
	}
	switch d.ev.Type {
	case query.EventTNT, query.EventTIP:
		if !d.enabled {
			return 0, query.CodeNoEnable
		}
		if c := d.proceedNoEvent(b); c != 0 {
			return 0, c
		}
		return d.proceedTrailingEvent(b)
	}
	return d.proceedEvent(b)
}

// Next decodes the next block into b. Blocks may be empty (NInsn 0) when
// an event is pending. After an error, b holds the instructions decoded up
// to it.
func (d *BlockDecoder) Next(b *Block) (Status, error) {
	*b = Block{IP: d.ip, Mode: d.mode, Speculative: d.speculative}
	s, c := d.proceed(b)
	return d.result(s, c)
}
