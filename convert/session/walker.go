package session

import (
	"sync/atomic"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session/ptperf"
)

// walker reads code for the PT decoders from the DSOs' files.
type walker struct {
	p *ptState
}

// queueWalker walks instructions in one queue's thread
// (intel_pt_walk_next_insn).
type queueWalker struct {
	q *ptQueue
	// the map found last (its own cache: several walkers may share an
	// address space)
	ms   *machine.Maps
	gen  uint64
	last *machine.Map
	cc   *codeCache // last's
}

// findMap is ms.Find with the walker's one-entry cache.
func (w *queueWalker) findMap(ms *machine.Maps, ip uint64) *machine.Map {
	if l := w.last; l != nil && w.ms == ms && w.gen == ms.Gen() && ip >= l.Start && ip < l.End {
		return l
	}
	mp := ms.Find(ip)
	if mp != nil {
		w.ms, w.gen, w.last, w.cc = ms, ms.Gen(), mp, nil
		if mp.DSO != nil {
			w.cc = dsoCodeCache(mp.DSO)
		}
	}
	return mp
}

// codeCache holds a DSO's decoded instructions and straight-line runs, by
// DSO offset (perf's intel_pt_cache). Several decoders may fill it at
// once: pages are published with a compare-and-swap and each slot is
// claimed (state 0 -> 1), written, then published (state 2); a reader
// uses a slot only in state 2, and decodes for itself when the slot is
// being written by another.
type codeCache struct {
	data []byte
	// failed: the DSO's code could not be read (perf's
	// DSO_DATA_STATUS_ERROR once a read was tried). tried and seen are
	// perf's dso->data.status and its DSO_DATA_STATUS_SEEN_ITRACE bit as
	// the sequential decode sets them (see silent).
	failed, tried, seen bool
	// is64 is dso->is_64_bit: perf decodes a 32-bit ELF's code in
	// 32-bit mode.
	is64  bool
	insns []atomic.Pointer[insnPage] // by offset / pageSlots
	runs  []atomic.Pointer[runPage]
}

const pageSlots = 256

const (
	slotEmpty = iota
	slotBusy
	slotReady
)

type insnSlot struct {
	st atomic.Uint32
	in ptperf.Insn
}

type insnPage [pageSlots]insnSlot

type runPage [pageSlots]runEntry

type runEntry struct {
	st         atomic.Uint32
	flags      uint16 // runFlags(&in)
	cnt, bytes uint64
	in         ptperf.Insn
}

func (c *codeCache) run(off uint64) *runEntry {
	i := off / pageSlots
	if i >= uint64(len(c.runs)) {
		return nil
	}
	pg := c.runs[i].Load()
	if pg == nil {
		return nil
	}
	e := &pg[off%pageSlots]
	if e.st.Load() != slotReady {
		return nil
	}
	return e
}

func (c *codeCache) setRun(off, cnt, bytes uint64, in *ptperf.Insn) {
	i := off / pageSlots
	if i >= uint64(len(c.runs)) {
		return
	}
	pg := c.runs[i].Load()
	if pg == nil {
		pg = new(runPage)
		if !c.runs[i].CompareAndSwap(nil, pg) {
			pg = c.runs[i].Load()
		}
	}
	e := &pg[off%pageSlots]
	if !e.st.CompareAndSwap(slotEmpty, slotBusy) {
		return
	}
	e.cnt, e.bytes, e.in, e.flags = cnt, bytes, *in, runFlags(in)
	e.st.Store(slotReady)
}

// dsoCodeCache returns d's code cache, kept in the DSO's decoder slot.
func dsoCodeCache(d *machine.DSO) *codeCache {
	return d.DecoderCache(newCodeCache).(*codeCache)
}

func newCodeCache(d *machine.DSO) any {
	c := &codeCache{data: d.Image(), is64: d.Is64Bit()}
	c.failed = len(c.data) == 0
	n := uint64(len(c.data))/pageSlots + 1
	c.insns = make([]atomic.Pointer[insnPage], n)
	c.runs = make([]atomic.Pointer[runPage], n)
	return c
}

// vdsoMapped mirrors machine__thread_dso_type, which perf calls when it
// maps a [vdso] (machine__findnew_vdso): it opens the data of the
// address space's DSOs that have a path, in address order, until one
// opens. Those that cannot be read get DSO_DATA_STATUS_ERROR then, before
// any PT walk, so that their first walk is already the last reported one
// (codeCache.silent).
func vdsoMapped(ms *machine.Maps) {
	for _, mp := range ms.List() {
		d := mp.DSO
		if d == nil || d.Name == "" || d.Name[0] != '/' {
			continue
		}
		c := dsoCodeCache(d)
		if !c.failed {
			return
		}
		c.tried = true
	}
}

// ScriptFetched mirrors what perf script does to the data status of the
// DSO at a printed sample's IP: process_event (and the branch printer)
// calls perf_sample__fprintf_insn for every sample, whatever the fields,
// and its script_fetch_insn reads the code at the IP of a sample with no
// instruction bytes (insn_len 0; the runner calls this only for a
// recording of this machine's architecture, perf's native_arch) through
// thread__memcpy: the map in the kernel's address space when
// machine__kernel_ip says so, else the thread's. A DSO whose data cannot
// be opened gets DSO_DATA_STATUS_ERROR there, so the next PT walk into it
// is its last reported one (codeCache.silent). Seen on quipper's
// perf.data.intel_pt-4.14: its cycles samples in the kernel come before
// any walk, and perf reports the kernel's first failed walk only. Only a
// recording with Intel PT data keeps code caches: otherwise nothing.
func (s *Session) ScriptFetched(smp *sample.Sample) {
	// Small enough to inline: PT's instruction and branch samples have
	// their instruction's bytes.
	if smp.InsnLen == 0 && s.pt != nil && smp.IP != 0 {
		s.scriptFetch(smp)
	}
}

func (s *Session) scriptFetch(smp *sample.Sample) {
	r, ok := smp.Res.(*machine.Resolver)
	if !ok {
		return
	}
	mp := r.CodeMap(r.KernelIP(smp.IP), smp.IP)
	if mp == nil || mp.DSO == nil {
		return
	}
	if c := dsoCodeCache(mp.DSO); c.failed {
		c.tried = true
	}
}

// silent mirrors the data status test of intel_pt_walk_next_insn for a
// DSO whose code cannot be read: the walk fails without a report (perf's
// -ENOENT, which the decoder passes over) once the status is
// DSO_DATA_STATUS_ERROR and dso__data_status_seen says the itrace walker
// saw it so before. The status becomes an error at the first read, so
// the first two walks into such a DSO are reported (the second one marks
// it seen), later ones are not. Only the sequential decode calls it.
func (c *codeCache) silent() bool {
	if !c.tried {
		c.tried = true
		return false
	}
	if c.seen {
		return true
	}
	c.seen = true
	return false
}

// insnAt decodes (or recalls) the instruction at DSO offset off.
func (c *codeCache) insnAt(off uint64, in *ptperf.Insn) bool {
	pi := off / pageSlots
	if pi >= uint64(len(c.insns)) {
		*in = ptperf.Insn{}
		return false
	}
	pg := c.insns[pi].Load()
	if pg == nil {
		pg = new(insnPage)
		if !c.insns[pi].CompareAndSwap(nil, pg) {
			pg = c.insns[pi].Load()
		}
	}
	slot := &pg[off%pageSlots]
	if slot.st.Load() == slotReady {
		*in = slot.in
		return slot.in.Length != 0
	}
	okd := c.decode(off, in)
	if slot.st.CompareAndSwap(slotEmpty, slotBusy) {
		slot.in = *in
		slot.st.Store(slotReady)
	}
	return okd
}

// decode decodes the instruction at off into in as perf's
// intel_pt_walk_next_insn does (intel_pt_get_insn, in the DSO's mode:
// dso->is_64_bit): false where perf's decoder refuses it, which fails
// the walk as perf's does ("Failed to get instruction" and a resync),
// where libipt, ptxed and ptdecode/insn decode on.
func (c *codeCache) decode(off uint64, in *ptperf.Insn) bool {
	if off < uint64(len(c.data)) {
		end := min(off+16, uint64(len(c.data)))
		return ptperf.Decode(c.data[off:end], c.is64, in)
	}
	*in = ptperf.Insn{}
	return false
}

func (w *queueWalker) WalkInsn(in *ptperf.Insn, insnCnt *uint64, ip *uint64, toIP, maxInsnCnt uint64, toNR bool) error {
	q := w.q
	p := q.pt
	in.Length = 0
	if toIP != 0 && *ip == toIP {
		return nil
	}
	if toNR {
		// VMX non-root (guest) code: perf walks it in a guest machine
		// (--guestkallsyms and the like), which perfpt does not model;
		// without one perf's intel_pt_walk_next_insn fails the same way.
		return ptperf.WalkNoInsn
	}
	if q.hasPend || q.virt {
		if q.own != nil {
			q.resolveFrom(*ip, 0) // a copy's (pt_par.go)
		} else if p.h.Runs != nil {
			q.hasPend = false
			q.resolveRun(*ip, 0)
		} else {
			q.flushPend(*ip, 0)
		}
	} else if o := q.own; o != nil && q.job == nil && o.hasPend {
		o.flushPend(*ip, 0) // a copy that took over a parallel decode
	}
	kernel := *ip >= p.kernelStart
	t := q.thread
	if t == nil && !kernel {
		return ptperf.WalkNoInsn
	}
	if maxInsnCnt == 1 && !kernel {
		// One instruction (sampling every instruction): whatever it
		// is, the walk stops after it, *ip left at it.
		if l := w.last; l != nil && w.ms == t.Maps && w.gen == t.Maps.Gen() && *ip >= l.Start && *ip < l.End &&
			w.cc != nil && !w.cc.failed && (q.job != nil || !p.flow) {
			if !w.cc.insnAt(l.MapIP(*ip), in) {
				*insnCnt = 0
				return ptperf.WalkNoInsn
			}
			*insnCnt = 1
			return nil
		}
	}
	m := p.s.m
	var blocks bool
	if q.job != nil {
		blocks = p.workFlow // p.flow is the Run goroutine's
	} else {
		blocks = p.flow
	}
	var cnt uint64
	oneMap := true
	for {
		var mp *machine.Map
		if kernel {
			mp = m.KernelCodeMap(*ip)
		} else {
			mp = w.findMap(t.Maps, *ip)
		}
		if mp == nil || mp.DSO == nil {
			// perf returns before storing the count: none is added.
			*insnCnt = 0
			return ptperf.WalkNoInsn
		}
		cc := w.cc
		if kernel || mp != w.last {
			cc = dsoCodeCache(mp.DSO)
		}
		if cc.failed {
			*insnCnt = 0
			if j := q.job; j != nil {
				// Whether perf reports this failure depends on the
				// walks before it in the sequential decode: the
				// chunk is decoded again there (pt_par.go).
				j.tainted = true
				return ptperf.WalkNoInsn
			}
			if cc.silent() {
				return ptperf.WalkNoData
			}
			return ptperf.WalkNoInsn
		}
		off := mp.MapIP(*ip)
		if toIP == 0 && oneMap && maxInsnCnt != 1 {
			if e := cc.run(off); e != nil && (maxInsnCnt == 0 || e.cnt <= maxInsnCnt) {
				start := *ip
				*ip += e.bytes
				*in = e.in
				*insnCnt = e.cnt
				if blocks {
					if q.runFits() {
						if !q.rq.fold || !q.foldInto(start, *ip, e.cnt, e.flags, uint64(e.in.Length)) {
							q.appendRun(start, *ip, e.cnt, e.flags, uint64(e.in.Length), true)
						}
					} else {
						q.emitBlock(start, *ip, e.cnt, in, true)
					}
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
					cc.setRun(startOff, cnt, *ip-startIP, in)
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
// in q.pend until the decoder knows where execution went next. The fields
// are written in place (a Block built and then copied would stall the
// handler's reads).
func (q *ptQueue) emitBlock(start, last, n uint64, in *ptperf.Insn, pend bool) {
	p := q.pt
	if q.job != nil {
		// A chunk decoded ahead: the job's batches (pt_par.go).
		q.virt = false
		q.emitRun(q.timestamp, 0, start, last, n, runFlags(in), uint64(in.Length), pend)
		return
	}
	if p.h.Runs != nil {
		var cyc uint64
		if !p.h.LeanRuns {
			cyc = q.dec.TakeCycles()
		}
		// A queue copy that took over a parallel decode delivers
		// into its queue's batch.
		o := q.owner()
		o.emitRun(q.timestamp, cyc, start, last, n, runFlags(in), uint64(in.Length), pend)
		return
	}
	var flags uint32
	if pend && in.Branch != ptperf.BrNone && in.Length != 0 {
		flags = in.Op.Flags()
	}
	var b *Block
	if pend {
		b = &q.pend
		q.hasPend = true
	} else {
		b = p.newBlock()
	}
	b.PID, b.TID, b.CPU = q.pid, q.tid, q.cpu
	b.Time = p.perfTime(q.timestamp)
	b.Start, b.End, b.NInsn, b.Flags, b.To = start, last, n, flags, 0
	b.Cycles = q.dec.TakeCycles()
	if !pend {
		b.To = last + 1 // contiguous: the run continues in the next map
		p.sendBlock(b)
	}
}

// newBlock returns the Block to fill for the next delivery: the batch's
// next one with Handler.Blocks.
func (p *ptState) newBlock() *Block {
	if p.h.Blocks == nil {
		return &p.block
	}
	if len(p.blocks) == cap(p.blocks) {
		p.flushBlocks()
	}
	p.blocks = p.blocks[:len(p.blocks)+1]
	return &p.blocks[len(p.blocks)-1]
}

// sendBlock delivers the Block newBlock gave (batched: once the batch is
// full or something else is delivered).
func (p *ptState) sendBlock(b *Block) {
	if p.h.Blocks == nil {
		p.h.Block(b)
	} else if len(p.blocks) == cap(p.blocks) {
		p.flushBlocks()
	}
}

// flushBlocks hands the batched Blocks (or Runs) over. Called before
// every sample: kept small enough to inline.
func (p *ptState) flushBlocks() {
	if len(p.runQs)|len(p.blocks) != 0 {
		p.flushBatches()
	}
}

func (p *ptState) flushBatches() {
	if len(p.runQs) > 0 {
		p.flushRuns()
	}
	if len(p.blocks) > 0 {
		p.h.Blocks(p.blocks)
		p.blocks = p.blocks[:0]
	}
}

// flushPend delivers the pending run with the address executed next (0
// when the trace stopped) and extra flags.
func (q *ptQueue) flushPend(to uint64, flags uint32) {
	if !q.hasPend {
		return
	}
	q.hasPend = false
	p := q.pt
	if p.h.Runs != nil {
		q.resolveRun(to, flags)
		return
	}
	if p.h.Blocks != nil {
		b := p.newBlock()
		*b = q.pend
		b.To = to
		b.Flags |= flags
		p.sendBlock(b)
		return
	}
	// The pending Block is delivered in place: no copy per block. The
	// handler may not keep it, as with p.block.
	if h := p.h.Block; h != nil {
		q.pend.To = to
		q.pend.Flags |= flags
		h(&q.pend)
	}
}
