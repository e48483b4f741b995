package flow

import (
	"math/bits"

	"github.com/perfpt/perfpt/ptdecode/query"
)

// The fast path of the block walk: while tracing is enabled, no event is
// pending and the current event is a TNT with bits left or a TIP, a block
// is a walk through cached runs that ends at a branch that consumes the
// TNT bit or the TIP. fastBlocks does that for block after block in one
// function, without the layers of Next (proceed, lookup, forMapping,
// condBranch, the trailing event checks), and falls back to them for
// everything else. It gives exactly the blocks, errors and state of Next.

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

// fastBlocks decodes blocks while fastReady holds and hands each to h
// with the trace offset it was decoded at, as walkBlocks does with Next:
// h.Block, then the stall check. It returns after the first block that
// ends with an error or leaves the decoder in a state fastReady rejects,
// with that block's status and error (the block already handed to h).
//
// A block that ends at a conditional branch or a compressed return with
// TNT bits left is the bulk of a trace: the next one starts right there,
// in the same mapping, with the mapping's runs still in registers.
func (d *BlockDecoder) fastBlocks(b *Block, h Handler) (Status, error) {
	off := d.Offset()
	for {
		var s Status
		var err error
		if !d.fastMapped() {
			*b = Block{IP: d.ip, Mode: d.mode, Speculative: d.speculative}
			s, err = d.result(d.proceed(b))
		} else {
			var more bool
			if s, err, off, more = d.fastRuns(b, h, off); more {
				continue // the block went to h; the next one starts anew
			}
		}
		h.Block(b, off)
		if err != nil {
			return s, err
		}
		if err := d.stall.check(off, uint64(b.NInsn)); err != nil {
			return s, err
		}
		if s != 0 || !d.fastReady() {
			return s, nil
		}
		off = d.Offset()
	}
}

// fastMapped reports whether the next block starts in the remembered
// mapping, whose runs in the current mode are in a flat array: fastRuns
// can start it.
func (d *BlockDecoder) fastMapped() bool {
	m, mc := d.msec, d.lastMC
	return m != nil && d.imgGen == d.img.Generation() && m.Contains(d.ip) && mc != nil &&
		mc.key == m.ID<<2|uint64(d.mode&3) && mc.flat != nil && d.icnt <= icntFastMax
}

// How fastRuns' inner loop ended.
const (
	exitMapping    = iota // the next run is outside the mapping
	exitMiss              // no cached run at ip (or the block is full)
	exitBadQuery          // a conditional branch without TNT
	exitRefill            // the branch used the last TNT bit
	exitTIPReturn         // a return without TNT: its target is in a TIP
	exitBadRetcomp        // a compressed return with a not-taken bit
	exitRetEmpty          // a compressed return with no call to return to
	exitIndCall           // an indirect call
	exitIndirect          // an indirect jump or a far transfer
	exitStall             // the stall check failed
	exitMore              // the next block cannot start here
	exitTIPTaken          // the next event was fetched, and is not branch trace (or failed)
)

// fastRuns decodes blocks from d.ip in d.msec, whose runs are d.lastMC,
// through the cached runs. Every block but the last is handed to h here
// (after the stall check), and the next one follows at once while it
// starts in the same mapping and may take the fast path; the last block
// is left in b with its status and error for fastBlocks to hand on, with
// the trace offset it was decoded at (off is that of the first block).
// more says that the last block went to h too and that the next one does
// not start in the mapping: fastBlocks starts it, at offset off.
//
// The inner loop, from run to run and from block to block while the TNT
// bits last, keeps the block and the TNT bits in registers; the cold work
// after it (refilling TNT, taking a TIP, the uncached path) is done by
// the general functions. Only IP, NInsn, EndIP and Class change from one
// block to the next there: the handler must not modify the block.
//
//lint:ignore ST1008 err comes second as in the other block walkers' (Status, error) pairs; two results follow
func (d *BlockDecoder) fastRuns(b *Block, h Handler, off uint64) (s Status, err error, _ uint64, more bool) {
	m := d.msec
	start := m.Start
	flat := d.lastMC.flat // as long as the mapping
	ip := d.ip
	ev := &d.ev
	// The block's instruction count is kept in a register (the count for
	// TRIG, d.icnt, cannot overflow here: a block has at most 0xffff
	// instructions and d.icnt <= icntFastMax); its EndIP and Class are
	// stored with every run, off the path from one run to the next. ip
	// is where the next run starts. The run entries are read with shifts
	// (see pack), which keeps them in one register.
	//
	// The TNT bits left are kept with the next one in bit 63, followed
	// by a 1: tnt is tntEmpty when they are used up, and 0 for a TIP
	// (conditional branches fail then; returns take it).
	var n uint32
	var tnt uint64
	var exit int
	nextEv := false
	for {
		*b = Block{IP: ip, Mode: d.mode, Speculative: d.speculative, MapID: m.ID}
		tnt = 0
		if ev.Type == query.EventTNT {
			tnt = tntBits(ev.Bits, ev.Size)
		}
		n = 0
	loop:
		for {
			o := ip - start
			if o >= uint64(len(flat)) {
				exit = exitMapping
				break
			}
			v := flat[o].Load()
			ni := uint32(v>>48) & 0xff
			if v == 0 || n+ni > 0xffff {
				exit = exitMiss
				break
			}
			n += ni
			end := ip + (v>>32)&0xffff
			k := runKind(v >> 60)
			b.EndIP, b.Class = end, runClass[k]
			ip = end + (v>>56)&15
			switch k {
			case runCond:
				if tnt == 0 {
					exit = exitBadQuery
					break loop
				}
				if int64(tnt) < 0 {
					ip += uint64(int64(int32(v)))
				}
				tnt <<= 1
				if tnt == tntEmpty {
					// The next event, in the loop.
					d.ip, ev.Size = ip, 0
					nextEv = true
					// the next event: after the switch
				}
			case runLimit, runLimitPTW:
				continue
			case runCall:
				if int32(v) != 0 {
					d.ret.push(ip)
				}
				ip += uint64(int64(int32(v)))
				continue
			case runJump:
				ip += uint64(int64(int32(v)))
				continue
			case runReturn:
				if tnt == 0 {
					exit = exitTIPReturn
					if ev.Type != query.EventTIP || ev.IPSuppressed {
						break loop
					}
					// A return to the TIP's target, in the loop.
					d.ip = ev.IP
					nextEv = true
					break // the next event: after the switch
				}
				taken := int64(tnt) < 0
				tnt <<= 1
				if !taken {
					exit = exitBadRetcomp
					break loop
				}
				ret, rc := d.ret.pop()
				if rc != 0 {
					exit = exitRetEmpty
					break loop
				}
				ip = ret
				if tnt == tntEmpty {
					d.ip, ev.Size = ip, 0
					nextEv = true
					// the next event: after the switch
				}
			case runIndCall:
				exit = exitIndCall
				if tnt != 0 || ev.Type != query.EventTIP || ev.IPSuppressed {
					break loop
				}
				d.ret.push(ip)
				d.ip = ev.IP
				nextEv = true // the next event: after the switch
			default: // runIndJump, runFarCall, runFarReturn, runFarJump
				exit = exitIndirect
				if tnt != 0 || ev.Type != query.EventTIP || ev.IPSuppressed {
					break loop
				}
				d.ip = ev.IP
				nextEv = true // the next event: after the switch
			}
			if nextEv {
				// The branch took the last TNT bit or the TIP's target
				// (d.ip): the block ends, the next event follows, as
				// the general tail does at exitRefill and
				// proceedIndirect at an indirect branch (the TRIG
				// instruction count starts anew at the event, as in
				// findTrigAnchor). When the event is more
				// branch trace (proceedTrailingEvent's fast path), the
				// block goes to h here and the next one starts at d.ip
				// in the loop, with the event's TNT bits (0 for a TIP).
				// (Inline: a function of its own cost 10% of the walk
				// on the indirect-branch-heavy benchmark streams.)
				nextEv = false
				b.NInsn = uint16(n)
				d.tsc, d.hasTSC, d.lostMTC, d.lostCYC = ev.TSC, ev.HasTSC, ev.LostMTC, ev.LostCYC
				d.hasICnt, d.icnt = true, 0 // (the block's count is forgotten at once)
				tnt = 0
				ip = d.ip
				if !d.evd.NextBranch(ev) {
					if d.fetchBranchNext(); d.status != 0 {
						exit = exitTIPTaken
						break
					}
				}
				if ev.Type == query.EventTNT && ev.Size != 0 {
					tnt = tntBits(ev.Bits, ev.Size)
				} else if ev.Type != query.EventTIP {
					exit = exitTIPTaken
					break
				}
				if d.stall.add(off, uint64(n)) {
					tnt, exit = 0, exitStall
					break
				}
				h.Block(b, off)
				off = d.Offset()
				if d.msec != m || d.icnt > icntFastMax || ip-start >= uint64(len(flat)) {
					tnt, exit = 0, exitMore
					break
				}
				b.IP = ip
				n = 0
				continue
			}
			// The block ended at a branch, with TNT bits left: hand it on
			// and start the next one at its target.
			b.NInsn = uint16(n)
			if d.hasICnt {
				d.icnt += n
			}
			if d.stall.add(off, uint64(n)) {
				exit = exitStall
				break
			}
			h.Block(b, off)
			if d.msec != m || d.icnt > icntFastMax || ip-start >= uint64(len(flat)) {
				exit = exitMore
				break
			}
			b.IP = ip
			n = 0
		}
		if tnt != 0 {
			ev.Size = tntLeft(tnt)
		}
		if exit == exitMore {
			d.ip = ip
			return 0, nil, d.Offset(), true
		}
		// The last block.
		if exit != exitStall && exit != exitTIPTaken {
			b.NInsn = uint16(n)
			if n == 0 {
				b.EndIP, b.Class = 0, 0
			}
			if d.hasICnt {
				d.icnt += n
			}
		}
		var c query.Code
		switch exit {
		case exitMapping:
			d.ip = ip // a block does not switch mappings
		case exitMiss:
			d.ip = ip
			c = d.proceedNoEventCached(b, m)
		case exitBadQuery:
			d.ip = b.EndIP
			c = query.CodeBadQuery
		case exitBadRetcomp:
			d.ip = b.EndIP
			c = query.CodeBadRetcomp
		case exitRetEmpty:
			d.ip = b.EndIP
			c = query.CodeRetstackEmpty // what retstack.pop reports
		case exitRefill:
			// The next event (proceedTrailingEvent then ends the block
			// at once if it is more branch trace).
			d.ip = ip
			c = d.fetchEvent()
		case exitTIPReturn, exitIndirect:
			// proceedWithTrace takes the TIP for a return (no TNT).
			d.ip = b.EndIP
			c = d.proceedIndirect()
		case exitIndCall:
			d.ret.push(ip)
			d.ip = b.EndIP
			c = d.proceedIndirect()
		case exitStall:
			d.ip = ip
			return 0, query.CodeBadQuery, off, false // what stall.check reports
		case exitTIPTaken:
			// (The loop did the rest.)
		}
		if c != 0 {
			s, err = d.result(0, c)
		} else {
			s, err = d.result(d.proceedTrailingEvent(b))
		}
		// Hand the block on here if the next one can go on in the loop
		// (fastBlocks would do the same).
		if err != nil || s != 0 || !d.fastReady() {
			return s, err, off, false
		}
		if d.stall.add(off, uint64(b.NInsn)) {
			return 0, query.CodeBadQuery, off, false // what stall.check reports
		}
		h.Block(b, off)
		off = d.Offset()
		ip = d.ip
		if d.msec != m || d.lastMC.flat == nil || &d.lastMC.flat[0] != &flat[0] || !d.fastMapped() {
			return 0, nil, d.Offset(), true
		}
	}
}

// tntBits returns the size TNT bits (the next one in bit size-1) in the
// form fastRuns keeps them: the next one in bit 63, followed by a 1.
func tntBits(bits uint64, size uint8) uint64 {
	return bits<<(64-size) | 1<<(63-size)
}

// tntEmpty is what tntBits gives when no bits are left.
const tntEmpty = 1 << 63

// tntLeft returns the number of bits left in tnt.
func tntLeft(tnt uint64) uint8 { return uint8(63 - bits.TrailingZeros64(tnt)) }

// icntFastMax is the largest TRIG instruction count a fast block starts
// with: adding a block's instructions cannot overflow it.
const icntFastMax = 1<<32 - 1 - 0xffff
