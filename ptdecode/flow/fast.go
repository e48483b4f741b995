package flow

import (
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// The fast path of the block walk: while tracing is enabled, no event is
// pending and the current event is a TNT with bits left or a TIP, a block
// is a walk through cached runs that ends at a branch that consumes the
// TNT bit or the TIP. nextFast does that in one function, without the
// layers of Next (proceed, lookup, forMapping, condBranch, the trailing
// event checks), and falls back to them for everything else. It gives
// exactly the blocks, errors and state of Next.

// fastReady reports whether the next block may take the fast path.
func (d *BlockDecoder) fastReady() bool {
	if d.status != 0 || !d.enabled || d.processInsn || d.fastOff {
		return false
	}
	switch d.ev.Type {
	case query.EventTNT:
		return d.ev.Size != 0
	case query.EventTIP:
		return true
	}
	return false
}

// nextFast is Next for a decoder in the state fastReady accepts.
func (d *BlockDecoder) nextFast(b *Block) (Status, error) {
	ip := d.ip
	mode := d.mode
	*b = Block{IP: ip, Mode: mode, Speculative: d.speculative}
	m := d.msec
	mc := d.lastMC
	if m == nil || d.imgGen != d.img.Generation() || !m.Contains(ip) || mc == nil || mc.key != m.ID<<2|uint64(mode&3) ||
		d.icnt > icntFastMax {
		s, c := d.proceed(b)
		return d.result(s, c)
	}
	b.MapID = m.ID
	start, size := m.Start, m.End-m.Start
	pages := mc.pages
	// The block's instruction count, last IP and class are kept in
	// registers and stored at the end (flush). The instruction count
	// for TRIG (d.icnt) cannot overflow here: a block has at most 0xffff
	// instructions and d.icnt <= icntFastMax.
	var n uint32
	var endIP uint64
	var class insn.Class
	flush := func() {
		b.NInsn, b.EndIP, b.Class = uint16(n), endIP, class
		if d.hasICnt {
			d.icnt += n
		}
	}
	var c query.Code
	for {
		off := ip - start
		if off >= size {
			d.ip = ip // a block does not switch mappings
			flush()
			break
		}
		p := off >> pageBits
		var v uint64
		if p < uint64(len(pages)) {
			if pg := pages[p].Load(); pg != nil {
				v = pg[off&(pageSize-1)].Load()
			}
		}
		if v == 0 || n+uint32(uint8(v>>48)) > 0xffff {
			d.ip = ip
			flush()
			c = d.proceedNoEventCached(b, m)
			break
		}
		e := unpack(v)
		n += uint32(e.ninsn)
		end := ip + uint64(e.last)
		endIP = end
		k := e.kind()
		class = runClass[k&15]
		next := end + uint64(e.isize())
		if k == runCond {
			ev := &d.ev
			if ev.Type != query.EventTNT {
				d.ip = end
				flush()
				c = query.CodeBadQuery
				break
			}
			ev.Size--
			if (ev.Bits>>ev.Size)&1 != 0 {
				next += uint64(int64(e.target))
			}
			d.ip = next
			flush()
			if ev.Size != 0 {
				return 0, nil
			}
			return d.refill(b)
		}
		switch k {
		case runLimit, runLimitPTW:
			ip = next
			continue
		case runCall:
			if e.target != 0 {
				d.ret.push(next)
			}
			ip = next + uint64(int64(e.target))
			continue
		case runJump:
			ip = next + uint64(int64(e.target))
			continue
		}
		flush()
		switch k {
		case runReturn:
			d.ip = end
			ev := &d.ev
			if ev.Type == query.EventTNT {
				ev.Size--
				if (ev.Bits>>ev.Size)&1 == 0 {
					c = query.CodeBadRetcomp
					break
				}
				ret, rc := d.ret.pop()
				if rc != 0 {
					c = rc
					break
				}
				d.ip = ret
				if ev.Size != 0 {
					return 0, nil
				}
				return d.refill(b)
			}
			in := &d.scratchIn
			*in = insn.Insn{IP: end, Size: e.isize(), Class: insn.ClassReturn, Mode: mode}
			c = d.proceedWithTrace(in)
		case runIndCall:
			d.ret.push(next)
			d.ip = end
			c = d.proceedIndirect()
		default: // runIndJump, runFarCall, runFarReturn, runFarJump
			d.ip = end
			c = d.proceedIndirect()
		}
		break
	}
	if c != 0 {
		return d.result(0, c)
	}
	return d.result(d.proceedTrailingEvent(b))
}

// icntFastMax is the largest TRIG instruction count nextFast starts a
// block with: adding a block's instructions cannot overflow it.
const icntFastMax = 1<<32 - 1 - 0xffff

// refill reads the event after a used-up TNT (what proceedTrailingEvent
// does first for it) and ends the block there if it is more branch trace.
func (d *BlockDecoder) refill(b *Block) (Status, error) {
	if c := d.fetchEvent(); c != 0 {
		return d.result(0, c)
	}
	if d.status == 0 {
		switch d.ev.Type {
		case query.EventTNT:
			if d.ev.Size != 0 {
				return 0, nil
			}
		case query.EventTIP:
			return 0, nil
		}
	}
	return d.result(d.proceedTrailingEvent(b))
}
