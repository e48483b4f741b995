package flow

import (
	"sync"
	"sync/atomic"

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
	runLimit    runKind = iota // a run-length or mapping limit: continue after the last insn
	runLimitPTW                // the same, the last insn being a ptwrite
	runCond                    // conditional branch: needs a TNT bit
	runReturn                  // near return: compressed (TNT) or TIP
	runIndJump                 // indirect jump (or jmpabs): needs a TIP
	runFarCall                 // far transfers: need a TIP
	runFarReturn
	runFarJump
	runIndCall // indirect call: push, then TIP
	runCall    // direct call: push, then continue at the target
	runJump    // direct jump: continue at the target
)

// runClass is the class of the last instruction of a run of each kind.
var runClass = [16]insn.Class{
	runLimit: insn.ClassOther, runLimitPTW: insn.ClassPTWrite, runCond: insn.ClassCondJump,
	runReturn: insn.ClassReturn, runIndJump: insn.ClassJump, runFarCall: insn.ClassFarCall,
	runFarReturn: insn.ClassFarReturn, runFarJump: insn.ClassFarJump, runIndCall: insn.ClassCall,
	runCall: insn.ClassCall, runJump: insn.ClassJump,
}

// runEntry is one cached run, 8 bytes so that many fit in the CPU caches.
// It is valid when the size of the last instruction (meta&15) is not 0.
type runEntry struct {
	target int32  // branch displacement of the last instruction
	last   uint16 // offset of the last instruction from the run's start
	ninsn  uint8  // instructions in the run, the last one included
	meta   uint8  // kind<<4 | size of the last instruction
}

func (e *runEntry) kind() runKind { return runKind(e.meta >> 4) }
func (e *runEntry) isize() uint8  { return e.meta & 15 }

const (
	pageBits    = 8
	pageSize    = 1 << pageBits
	maxRunInsns = 255
	maxRunBytes = 0xff00
	maxMappings = 4096 // cached mappings before the cache starts over
)

// pack and unpack store a runEntry in one word, so that decoders sharing a
// cache read and write entries atomically.
func (e *runEntry) pack() uint64 {
	return uint64(uint32(e.target)) | uint64(e.last)<<32 | uint64(e.ninsn)<<48 | uint64(e.meta)<<56
}

func unpack(v uint64) runEntry {
	return runEntry{target: int32(uint32(v)), last: uint16(v >> 32), ninsn: uint8(v >> 48), meta: uint8(v >> 56)}
}

type runPage [pageSize]atomic.Uint64

// mapCache holds the runs of one mapping: in flat, indexed by offset (see
// allocFlat), or in pages allocated on use (one more dependent load per
// run; the fast path does not use them).
type mapCache struct {
	key   uint64 // mapping ID and mode
	flat  []atomic.Uint64
	pages []atomic.Pointer[runPage]
}

func (mc *mapCache) entry(off uint64) *atomic.Uint64 {
	if mc.flat != nil {
		return &mc.flat[off]
	}
	p := off >> pageBits
	pg := mc.pages[p].Load()
	if pg == nil {
		pg = new(runPage)
		if !mc.pages[p].CompareAndSwap(nil, pg) {
			pg = mc.pages[p].Load()
		}
	}
	return &pg[off&(pageSize-1)]
}

// BlockCache caches decoded straight-line runs of code per image mapping
// and execution mode. Decoders may share one (Config.Cache), also from
// several goroutines: then code is decoded once for all of them.
type BlockCache struct {
	mu   sync.Mutex
	maps map[uint64]*mapCache
	seen map[siteKey]struct{} // Config.ColdBlocks: direct calls and backward jumps reached
}

// NewBlockCache returns an empty cache.
func NewBlockCache() *BlockCache { return &BlockCache{maps: map[uint64]*mapCache{}} }

// forMapping returns the runs of m in mode.
func (d *BlockDecoder) forMapping(m *image.Mapping, mode insn.Mode) *mapCache {
	key := m.ID<<2 | uint64(mode&3)
	if mc := d.lastMC; mc != nil && mc.key == key {
		return mc
	}
	c := d.cache
	c.mu.Lock()
	mc := c.maps[key]
	if mc == nil {
		if len(c.maps) >= maxMappings {
			c.maps = map[uint64]*mapCache{}
		}
		mc = &mapCache{key: key}
		if size := m.End - m.Start; !mc.allocFlat(size) {
			mc.pages = make([]atomic.Pointer[runPage], (size+pageSize-1)>>pageBits)
		}
		c.maps[key] = mc
	}
	c.mu.Unlock()
	d.lastMC = mc
	return mc
}

// firstReach reports whether the direct call or backward jump at ip in m
// is reached for the first time (Config.ColdBlocks), and remembers it. As
// libipt's block cache belongs to the section (shared by the images that
// map it, kept when a mapping is cut), a site is known by its section and
// offset there. It is called when a run is filled, so rarely.
func (c *BlockCache) firstReach(m *image.Mapping, ip uint64) bool {
	k := siteKey{m.Sec, m.Offset + (ip - m.Start)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.seen[k]; ok {
		return false
	}
	if c.seen == nil {
		c.seen = map[siteKey]struct{}{}
	}
	c.seen[k] = struct{}{}
	return true
}

type siteKey struct {
	sec *image.Section
	off uint64
}

// fillSteps is the number of instructions libipt's block decoder decodes
// into its block cache in one go (bcache_fill_steps): with Config.ColdBlocks,
// the block ends after as many instructions in runs filled one after the
// other, as libipt's does where it puts a trampoline.
const fillSteps = 0x400

// endFill ends b after the nth instruction of the run at d.ip (fillSteps
// reached inside it: not a branch).
func (d *BlockDecoder) endFill(b *Block, m *image.Mapping, n int) query.Code {
	in := &d.scratchIn
	ip := d.ip
	for range n {
		*in = insn.Insn{IP: ip}
		if insn.Decode(in, m.Bytes(ip), d.mode) != nil {
			return query.CodeInternal // the run decoded before
		}
		ip += uint64(in.Size)
	}
	if d.hasICnt {
		if d.icnt+uint32(n) < d.icnt {
			return query.CodeOverflow
		}
		d.icnt += uint32(n)
	}
	b.NInsn += uint16(n)
	b.EndIP, b.Class = in.IP, in.Class
	d.ip = ip
	return 0
}

// fillRun decodes the run starting at ip in m.
func fillRun(m *image.Mapping, ip uint64, mode insn.Mode, e *runEntry) bool {
	var in insn.Insn
	start, prev := ip, ip
	n := 0
	set := func(k runKind, target int64) bool {
		e.target = int32(target)
		e.last = uint16(in.IP - start)
		e.ninsn = uint8(n)
		e.meta = uint8(k)<<4 | in.Size
		return true
	}
	for {
		in.IP = ip
		if insn.Decode(&in, m.Bytes(ip), mode) != nil {
			if n == 0 {
				return false
			}
			// End before the undecodable (or truncated) instruction; the
			// uncached path reports or completes it. in still holds the
			// previous instruction.
			in.IP = prev
			if in.Class == insn.ClassPTWrite {
				return set(runLimitPTW, 0)
			}
			return set(runLimit, 0)
		}
		n++
		prev = ip
		switch in.Class {
		case insn.ClassCondJump:
			return set(runCond, in.Disp)
		case insn.ClassReturn:
			return set(runReturn, 0)
		case insn.ClassCall:
			if in.Direct {
				return set(runCall, in.Disp)
			}
			return set(runIndCall, 0)
		case insn.ClassJump:
			if in.Direct && in.IClass != insn.IJmpAbs {
				return set(runJump, in.Disp)
			}
			return set(runIndJump, 0)
		case insn.ClassFarCall:
			return set(runFarCall, 0)
		case insn.ClassFarReturn:
			return set(runFarReturn, 0)
		case insn.ClassFarJump:
			return set(runFarJump, 0)
		}
		next := ip + uint64(in.Size)
		if n == maxRunInsns || next-start > maxRunBytes || !m.Contains(next) {
			if in.Class == insn.ClassPTWrite {
				return set(runLimitPTW, 0)
			}
			return set(runLimit, 0)
		}
		ip = next
	}
}

// proceedNoEventCached proceeds like proceedNoEventUncached, run by run.
// It is the fast loop's cold path: not inlined there (by profile-guided
// builds), which would make the loop's frame big.
//
//go:noinline
func (d *BlockDecoder) proceedNoEventCached(b *Block, m *image.Mapping) query.Code {
	mc := d.forMapping(m, d.mode)
	fill := 0 // ColdBlocks: instructions in runs filled one after the other
	for {
		if !m.Contains(d.ip) {
			return 0 // a block does not switch mappings
		}
		slot := mc.entry(d.ip - m.Start)
		en := unpack(slot.Load())
		cold := false // ColdBlocks: the block ends after the run
		if en.meta == 0 {
			if !fillRun(m, d.ip, d.mode, &en) {
				return d.proceedNoEventUncached(b)
			}
			slot.Store(en.pack())
			if d.cfg.ColdBlocks && uint32(b.NInsn)+uint32(en.ninsn) <= 0xffff {
				k, n := en.kind(), int(en.ninsn)
				straight := k == runLimit || k == runLimitPTW || k == runJump && en.target >= 0
				switch {
				case k == runCall || k == runJump && en.target < 0:
					cold = d.cache.firstReach(m, d.ip+uint64(en.last))
				case fill+n > fillSteps:
					return d.endFill(b, m, fillSteps-fill)
				case fill+n == fillSteps && straight:
					cold = true
				}
				fill += n
			}
		} else {
			fill = 0
		}
		e := &en
		if uint32(b.NInsn)+uint32(e.ninsn) > 0xffff {
			return d.proceedNoEventUncached(b)
		}
		if d.hasICnt {
			if d.icnt+uint32(e.ninsn) < d.icnt {
				return query.CodeOverflow
			}
			d.icnt += uint32(e.ninsn)
		}
		b.NInsn += uint16(e.ninsn)
		end := d.ip + uint64(e.last)
		b.EndIP = end
		k := e.kind()
		b.Class = runClass[k]
		next := end + uint64(e.isize())
		switch k {
		case runLimit, runLimitPTW:
			d.ip = next
			if cold {
				return 0
			}
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
			in := &d.scratchIn
			*in = insn.Insn{IP: end, Size: e.isize(), Class: insn.ClassReturn, Mode: d.mode}
			return d.proceedWithTrace(in)
		case runIndCall:
			d.ret.push(next)
			d.ip = end
			return d.proceedIndirect()
		case runIndJump, runFarCall, runFarReturn, runFarJump:
			d.ip = end
			return d.proceedIndirect()
		case runCall:
			if e.target != 0 {
				d.ret.push(next)
			}
			d.ip = next + uint64(int64(e.target))
			if d.cfg.EndOnCall || cold {
				return 0
			}
		case runJump:
			d.ip = next + uint64(int64(e.target))
			if d.cfg.EndOnJump || cold {
				return 0
			}
		}
	}
}
