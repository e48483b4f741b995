package session

import (
	"os"

	"github.com/perfpt/perfpt/convert/session/ptperf"
	"github.com/perfpt/perfpt/ptdecode/insn"
)

// walker reads code for the PT decoders from the DSOs' files.
type walker struct {
	p *ptState
}

// queueWalker walks instructions in one queue's thread
// (intel_pt_walk_next_insn).
type queueWalker struct {
	q *ptQueue
}

// codeCache holds a DSO's decoded instructions and straight-line runs, by
// DSO offset (perf's intel_pt_cache).
type codeCache struct {
	loaded bool
	data   []byte
	insns  []*insnPage // by offset / pageSlots
	runs   []*runPage
}

const pageSlots = 256

type insnPage [pageSlots]struct {
	set bool
	in  ptperf.Insn
}

type runPage [pageSlots]runEntry

type runEntry struct {
	set        bool
	cnt, bytes uint64
	in         ptperf.Insn
}

func (c *codeCache) run(off uint64) *runEntry {
	i := off / pageSlots
	if i >= uint64(len(c.runs)) || c.runs[i] == nil {
		return nil
	}
	e := &c.runs[i][off%pageSlots]
	if !e.set {
		return nil
	}
	return e
}

func (c *codeCache) setRun(off uint64, e runEntry) {
	i := off / pageSlots
	if i >= uint64(len(c.runs)) {
		return
	}
	if c.runs[i] == nil {
		c.runs[i] = new(runPage)
	}
	e.set = true
	c.runs[i][off%pageSlots] = e
}

func (d *DSO) codeCache() *codeCache {
	c := &d.cc
	if c.loaded {
		return c
	}
	c.loaded = true
	if d.Symbols(); d.code != nil {
		c.data = d.code
	} else if f := d.File(); f != "" {
		c.data, _ = os.ReadFile(f)
	}
	n := uint64(len(c.data))/pageSlots + 1
	c.insns = make([]*insnPage, n)
	c.runs = make([]*runPage, n)
	return c
}

// insnAt decodes (or recalls) the instruction at DSO offset off.
func (c *codeCache) insnAt(off uint64, in *ptperf.Insn) bool {
	pi := off / pageSlots
	if pi >= uint64(len(c.insns)) {
		*in = ptperf.Insn{}
		return false
	}
	pg := c.insns[pi]
	if pg == nil {
		pg = new(insnPage)
		c.insns[pi] = pg
	}
	slot := &pg[off%pageSlots]
	if slot.set {
		*in = slot.in
		return slot.in.Length != 0
	}
	var di insn.Insn
	okd := false
	if off < uint64(len(c.data)) {
		end := min(off+16, uint64(len(c.data)))
		b := c.data[off:end]
		if insn.Decode(&di, b, insn.Mode64) == nil {
			ptperf.Classify(&di, in)
			in.Buf = [16]byte{}
			copy(in.Buf[:], b[:di.Size])
			okd = true
		}
	}
	if !okd {
		*in = ptperf.Insn{}
	}
	slot.set, slot.in = true, *in
	return okd
}

func (w *queueWalker) WalkInsn(in *ptperf.Insn, insnCnt *uint64, ip *uint64, toIP, maxInsnCnt uint64, toNR bool) error {
	q := w.q
	p := q.pt
	in.Length = 0
	if toIP != 0 && *ip == toIP {
		return nil
	}
	if q.hasPend {
		q.flushPend(*ip, 0)
	}
	kernel := *ip >= p.kernelStart
	t := q.thread
	if t == nil && !kernel {
		return ptperf.WalkNoInsn
	}
	m := p.s.m
	blocks := p.h.Block != nil
	var cnt uint64
	oneMap := true
	for {
		var mp *Map
		if kernel {
			mp = m.kmaps.Find(*ip)
		} else {
			mp = t.Maps.find(*ip)
		}
		if mp == nil || mp.DSO == nil {
			// perf returns before storing the count: none is added.
			*insnCnt = 0
			return ptperf.WalkNoInsn
		}
		cc := mp.DSO.codeCache()
		off := mp.MapIP(*ip)
		if toIP == 0 && oneMap && maxInsnCnt != 1 {
			if e := cc.run(off); e != nil && (maxInsnCnt == 0 || e.cnt <= maxInsnCnt) {
				start := *ip
				*ip += e.bytes
				*in = e.in
				*insnCnt = e.cnt
				if blocks {
					q.emitBlock(start, *ip, e.cnt, in, true)
				}
				return nil
			}
		}
		startOff, startIP := off, *ip
		bstart, blast := *ip, *ip
		var bn uint64
		for {
			if !cc.insnAt(off, in) {
				*insnCnt = 0
				if blocks && bn != 0 {
					q.emitBlock(bstart, blast, bn, in, true)
				}
				return ptperf.WalkNoInsn
			}
			blast = *ip
			cnt++
			bn++
			if in.Branch != ptperf.BrNone {
				*insnCnt = cnt
				if blocks {
					q.emitBlock(bstart, *ip, bn, in, true)
				}
				if oneMap && cc.run(startOff) == nil {
					cc.setRun(startOff, runEntry{cnt: cnt, bytes: *ip - startIP, in: *in})
				}
				return nil
			}
			if maxInsnCnt != 0 && cnt >= maxInsnCnt {
				*insnCnt = cnt
				if blocks {
					q.emitBlock(bstart, *ip, bn, in, true)
				}
				return nil
			}
			last := *ip
			*ip += uint64(in.Length)
			if toIP != 0 && *ip == toIP {
				in.Length = 0
				*insnCnt = cnt
				if blocks {
					q.emitBlock(bstart, last, bn, in, true)
				}
				return nil
			}
			if *ip >= mp.End {
				if blocks {
					q.emitBlock(bstart, last, bn, in, false)
				}
				break
			}
			off += uint64(in.Length)
		}
		oneMap = false
	}
}

// emitBlock records one straight-line run. The last run of a walk waits
// in q.pend until the decoder knows where execution went next.
func (q *ptQueue) emitBlock(start, last, n uint64, in *ptperf.Insn, pend bool) {
	p := q.pt
	var flags uint32
	if pend && in.Branch != ptperf.BrNone && in.Length != 0 {
		flags = in.Op.Flags()
	}
	b := Block{PID: q.pid, TID: q.tid, CPU: q.cpu, Time: p.perfTime(q.timestamp),
		Start: start, End: last, NInsn: n, Flags: flags}
	if !pend {
		b.To = last + 1 // contiguous: the run continues in the next map
		p.block = b
		p.h.Block(&p.block)
		return
	}
	q.pend, q.hasPend = b, true
}

// flushPend delivers the pending run with the address executed next (0
// when the trace stopped) and extra flags.
func (q *ptQueue) flushPend(to uint64, flags uint32) {
	if !q.hasPend {
		return
	}
	q.hasPend = false
	// The pending Block is delivered in place: no copy per block. The
	// handler may not keep it, as with p.block.
	if h := q.pt.h.Block; h != nil {
		q.pend.To = to
		q.pend.Flags |= flags
		h(&q.pend)
	}
}
