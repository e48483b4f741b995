package flow

import (
	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// modeOf converts the event layer's execution mode.
func modeOf(m query.ExecMode) insn.Mode { return insn.Mode(m) }

// The block cache remembers, per image mapping and code offset, the run of
// straight-line instructions that starts there: how many, where the last
// one is and what it is. The decoder then walks a block in a few steps per
// run instead of decoding every instruction. It follows the idea of
// libipt's per-section block cache; the entries and their use are our own.

// runKind says how a cached run ends.
type runKind uint8

const (
	runInvalid  runKind = iota
	runLimit            // a run-length or mapping limit: continue after the last insn
	runCond             // conditional branch: needs a TNT bit
	runReturn           // near return: compressed (TNT) or TIP
	runIndirect         // indirect jump, far transfer: needs a TIP
	runIndCall          // indirect call: push, then TIP
	runCall             // direct call: push, then continue at the target
	runJump             // direct jump: continue at the target
)

// runEntry is one cached run (16 bytes).
type runEntry struct {
	last   uint32 // offset of the last instruction from the run's start
	target int32  // branch displacement of the last instruction
	ninsn  uint16 // instructions in the run, the last one included
	isize  uint8  // size of the last instruction
	kind   runKind
	mode   insn.Mode
	class  insn.Class
}

const (
	pageBits    = 8
	pageSize    = 1 << pageBits
	maxRunInsns = 4096
	maxMappings = 4096 // cached mappings before the cache starts over
)

type runPage [pageSize]runEntry

// mapCache holds the runs of one mapping, in pages allocated on use.
type mapCache struct {
	id    uint64
	pages []*runPage
}

func (mc *mapCache) entry(off uint64) *runEntry {
	p := off >> pageBits
	if p >= uint64(len(mc.pages)) {
		return nil
	}
	pg := mc.pages[p]
	if pg == nil {
		pg = new(runPage)
		mc.pages[p] = pg
	}
	return &pg[off&(pageSize-1)]
}

// blockCache is a decoder's cache of runs for the mappings it has seen.
type blockCache struct {
	last *mapCache
	maps map[uint64]*mapCache
}

func (c *blockCache) forMapping(m *image.Mapping) *mapCache {
	if c.last != nil && c.last.id == m.ID {
		return c.last
	}
	mc := c.maps[m.ID]
	if mc == nil {
		if c.maps == nil || len(c.maps) >= maxMappings {
			c.maps = map[uint64]*mapCache{}
		}
		n := (m.End - m.Start + pageSize - 1) >> pageBits
		mc = &mapCache{id: m.ID, pages: make([]*runPage, n)}
		c.maps[m.ID] = mc
	}
	c.last = mc
	return mc
}

// fillRun decodes the run starting at ip in m.
func fillRun(m *image.Mapping, ip uint64, mode insn.Mode, e *runEntry) bool {
	var in insn.Insn
	start := ip
	n := 0
	for {
		in.IP = ip
		if insn.Decode(&in, m.Bytes(ip), mode) != nil {
			if n == 0 {
				return false
			}
			// End before the undecodable (or truncated) instruction; the
			// uncached path reports or completes it.
			e.kind = runLimit
			return true
		}
		n++
		e.last = uint32(ip - start)
		e.ninsn = uint16(n)
		e.isize = in.Size
		e.mode = mode
		e.class = in.Class
		e.target = 0
		switch in.Class {
		case insn.ClassCondJump:
			e.kind, e.target = runCond, int32(in.Disp)
			return true
		case insn.ClassReturn:
			e.kind = runReturn
			return true
		case insn.ClassCall:
			if in.Direct {
				e.kind, e.target = runCall, int32(in.Disp)
			} else {
				e.kind = runIndCall
			}
			return true
		case insn.ClassJump:
			if in.Direct && in.IClass != insn.IJmpAbs {
				e.kind, e.target = runJump, int32(in.Disp)
			} else {
				e.kind = runIndirect
			}
			return true
		case insn.ClassFarCall, insn.ClassFarReturn, insn.ClassFarJump:
			e.kind = runIndirect
			return true
		}
		next := ip + uint64(in.Size)
		if n == maxRunInsns || !m.Contains(next) {
			e.kind = runLimit
			return true
		}
		ip = next
	}
}

// proceedNoEventCached proceeds like proceedNoEventUncached, run by run.
func (d *BlockDecoder) proceedNoEventCached(b *Block, m *image.Mapping) query.Code {
	mc := d.cache.forMapping(m)
	for {
		if !m.Contains(d.ip) {
			return 0 // a block does not switch mappings
		}
		e := mc.entry(d.ip - m.Start)
		if e.kind == runInvalid || e.mode != d.mode {
			if !fillRun(m, d.ip, d.mode, e) {
				e.kind = runInvalid
				return d.proceedNoEventUncached(b)
			}
		}
		if uint32(b.NInsn)+uint32(e.ninsn) > 0xffff {
			return d.proceedNoEventUncached(b)
		}
		if d.hasICnt {
			if d.icnt+uint32(e.ninsn) < d.icnt {
				return query.CodeOverflow
			}
			d.icnt += uint32(e.ninsn)
		}
		b.NInsn += e.ninsn
		end := d.ip + uint64(e.last)
		b.EndIP = end
		b.Class = e.class
		next := end + uint64(e.isize)
		switch e.kind {
		case runLimit:
			d.ip = next
		case runCond:
			d.ip = end
			taken, c := d.condBranch()
			if c != 0 {
				return c
			}
			if taken {
				next += uint64(int64(e.target))
			}
			d.ip = next
			return 0
		case runReturn:
			d.ip = end
			in := insn.Insn{IP: end, Size: e.isize, Class: insn.ClassReturn, Mode: e.mode}
			return d.proceedWithTrace(&in)
		case runIndCall:
			d.ret.push(next)
			d.ip = end
			return d.proceedIndirect()
		case runIndirect:
			d.ip = end
			return d.proceedIndirect()
		case runCall:
			if e.target != 0 {
				d.ret.push(next)
			}
			d.ip = next + uint64(int64(e.target))
			if d.cfg.EndOnCall {
				return 0
			}
		case runJump:
			d.ip = next + uint64(int64(e.target))
			if d.cfg.EndOnJump {
				return 0
			}
		}
	}
}
