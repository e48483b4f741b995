package runner

import (
	"unsafe"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/symbol"
)

// With more than one worker, the samples that the session delivers on
// Run's goroutine (all of them where it decodes sequentially: timed
// per-CPU queues, branches, ...) are printed on a goroutine of their own;
// chunks decoded by the session's workers are formatted there (segment.go)
// and their text is written once this pipeline has drained. Output is the
// same bytes as with one worker, by construction: one producer, one FIFO,
// one Printer.
//
// The session hands over a sample.Sample of some 400 bytes per sample;
// copying it whole into the queue (as this pipeline first did) cost more
// than printing it. Consecutive samples share almost everything but the
// addresses, time and period: the thread, the event, the map (DSO) of the
// IP and of the branch target. So the producer sends a 64-byte rec per
// sample with what varies, plus the shared context (a sctx or mctx) only
// when it changes; the printer goroutine keeps one Sample that it brings up
// to date from each rec and prints. Samples with more (callchains, synth
// payloads, branch stacks, IPC) go whole, in a side list, in order.

const batchLen = 4096

// rec kinds: what a rec carries besides its own fields (8 bits at most:
// see rec.k).
const (
	recCtx     = 1 << iota // the next sctx of the batch applies from here
	recIPMap               // the next mctx applies to the IP from here
	recAddrMap             // the next mctx applies to the branch target from here
	recAddrOK              // the branch target was resolved
	recInsn                // the next insn of the batch is this sample's
	recFull                // the next full item is printed (not this rec)
	recErr                 // the next error line is printed (not this rec)
	recSide                // the next side-band line is printed (not this rec)
)

// rec is one sample to print, in 64 bytes.
type rec struct {
	ip, addr, time, period uint64
	ev                     *sample.Event
	sym, addrSym           *symbol.Symbol
	flags                  uint32
	// bits 0-7 kind, 8-12 the instruction length, 13-29 the thread-stack
	// depth (deeper samples are sent whole), 30 recIPs, 31 recRaw.
	k uint32
}

const maxDepth = 1<<17 - 1

// recIPs: the rec is the first sample of a straight run (Handler.IPRun),
// printed once for each of the next IPs of the batch (batch.ips up to
// batch.ipsEnd) by Printer.PrintIPs.
const recIPs = 1 << 30

// recRaw: the sample's raw data (a tracepoint's record) is the next one
// of the batch's (batch.raw up to batch.rawEnd).
const recRaw = 1 << 31

// sctx is what a run of samples shares: the thread.
type sctx struct {
	comm     string
	pid, tid int32
	cpu      uint32
	hasTS    bool // HasThreadStack
	useCC    bool
}

// mctx is the map part of a sample.Loc: the same for addresses in one
// mapping. delta is the address minus its map-relative address.
type mctx struct {
	hasMap   bool
	kernel   bool
	dso      string
	mapStart uint64
	delta    uint64
}

// setMctx sets *m to the map part of l, field by field: an mctx built
// aside and copied (to the producer's view, then to the batch) stalled
// on its fresh stores, at every sample whose map changes.
func setMctx(m *mctx, l *sample.Loc, addr uint64) {
	m.hasMap, m.kernel, m.dso, m.mapStart, m.delta = l.HasMap, l.Kernel, l.DSO, l.MapStart, addr-l.Addr
}

func (m *mctx) apply(l *sample.Loc) {
	l.HasMap, l.Kernel, l.DSO, l.MapStart = m.hasMap, m.kernel, m.dso, m.mapStart
}

// full is a sample sent whole.
type full struct {
	useCC  bool
	mem    sample.MemFields
	regs   sample.Regs
	s      sample.Sample
	insn   [16]byte
	br     []sample.BranchEntry
	brLocs []sample.Loc
	raw    []byte // a tracepoint's record
}

type batch struct {
	recs []rec
	ctxs []sctx
	maps []mctx
	insn [][16]byte
	full []full
	errs []sample.ErrorLine
	side []sideLine
	// raw holds the raw data of the recs with recRaw, one after the
	// other; rawEnd[i] is where the i-th ends.
	raw    []byte
	rawEnd []int
	// ips holds the IPs of the recs with recIPs, one run after the
	// other; ipsEnd[i] is where the i-th ends.
	ips    []uint64
	ipsEnd []int
	// frames holds the callchains of full, one after the other.
	frames []sample.Frame
	// fullBytes counts the callchain and branch-stack bytes of full,
	// which can be kilobytes per sample (--itrace=l with brstacksym).
	fullBytes int
}

// fullBudget is the callchain and branch-stack bytes a batch may carry
// before it is sent, however few recs it has: it keeps the pipeline's
// memory bounded (4096 samples with 64-entry resolved branch stacks
// would be 50 MB per batch).
const fullBudget = 1 << 20

func (b *batch) reset() {
	b.recs = b.recs[:0]
	b.ctxs = b.ctxs[:0]
	b.maps = b.maps[:0]
	b.insn = b.insn[:0]
	b.full = b.full[:0]
	b.errs = b.errs[:0]
	b.side = b.side[:0]
	b.raw = b.raw[:0]
	b.rawEnd = b.rawEnd[:0]
	b.ips = b.ips[:0]
	b.ipsEnd = b.ipsEnd[:0]
	b.frames = b.frames[:0]
	b.fullBytes = 0
}

type pipeline struct {
	p       *script.Printer
	misc    bool // the misc field is printed: samples with misc bits go whole
	insn    bool // instruction bytes are printed
	addrLoc bool // branch targets are printed with symbol or DSO
	brLocs  bool // branch stacks are printed with symbols or DSOs
	cur     *batch
	ch      chan *batch
	free    chan *batch
	done    chan struct{}

	// The producer's view of the printer's Sample: the contexts it last
	// sent (ok: sent at all).
	ev                   *sample.Event
	evAddr               bool // ev.AddrCorrelatesSym()
	ctx                  sctx
	ipMap, addrMap       mctx
	ctxOK, ipOK, addrMOK bool
}

// pipelineNeeds says what the pipeline must carry or resolve for fields:
// instruction bytes (insn), branch targets (printed with sym or dso, or
// callindent), branch stack locations (brstacksym, brstackoff, or brstack
// with dso).
func pipelineNeeds(fields *script.Fields) (insn, addrLoc, brLocs bool) {
	for ty := script.OutputType(0); ty <= script.TypeOther; ty++ {
		insn = insn || fields.Has(ty, script.FieldInsn)
		addrLoc = addrLoc || fields.Has(ty, script.FieldSym) || fields.Has(ty, script.FieldDSO) ||
			fields.Has(ty, script.FieldCallindent)
		brLocs = brLocs || fields.Has(ty, script.FieldBrstacksym) || fields.Has(ty, script.FieldBrstackoff) ||
			(fields.Has(ty, script.FieldBrstack) && fields.Has(ty, script.FieldDSO))
	}
	return
}

// nbatch is the number of batches in circulation.
const nbatch = 4

func newPipeline(p *script.Printer, insn, addrLoc, brLocs bool) *pipeline {
	pl := &pipeline{p: p, insn: insn, addrLoc: addrLoc, brLocs: brLocs,
		ch: make(chan *batch, nbatch), free: make(chan *batch, nbatch), done: make(chan struct{})}
	for i := 0; i < nbatch; i++ {
		pl.free <- &batch{recs: make([]rec, 0, batchLen)}
	}
	pl.cur = <-pl.free
	go pl.print()
	return pl
}

// next returns the rec to fill, sending the batch when it is full.
func (pl *pipeline) next() *rec {
	b := pl.cur
	if len(b.recs) == cap(b.recs) {
		b = pl.send()
	}
	b.recs = b.recs[:len(b.recs)+1]
	return &b.recs[len(b.recs)-1]
}

// send queues the current batch and returns the next one.
func (pl *pipeline) send() *batch {
	pl.ch <- pl.cur
	b := <-pl.free
	b.reset()
	pl.cur = b
	return b
}

// sameStr is a == b, quick when both are the same string header (as a
// thread's comm and a DSO's name are from sample to sample).
func sameStr(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// sameMap reports whether l (of address addr) is in the mapping m.
func sameMap(m *mctx, l *sample.Loc, addr uint64) bool {
	return l.HasMap == m.hasMap && addr-l.Addr == m.delta && l.MapStart == m.mapStart &&
		l.Kernel == m.kernel && sameStr(l.DSO, m.dso)
}

func (pl *pipeline) sample(s *sample.Sample, useCC bool) { pl.put(s, useCC, nil) }

// ipRun queues the samples of a straight run (Handler.IPRun): s with each
// of ips as its IP, printed as PrintIPs prints them.
func (pl *pipeline) ipRun(s *sample.Sample, ips []uint64, useCC bool) { pl.put(s, useCC, ips) }

// put queues s, or with ips the samples of a straight run: s with each of
// ips (the first s.IP) as its IP.
func (pl *pipeline) put(s *sample.Sample, useCC bool, ips []uint64) {
	if s.Ev != pl.ev {
		pl.ev, pl.evAddr = s.Ev, s.Ev.AddrCorrelatesSym()
	}
	// The branch target, resolved now: the session's Resolver (and
	// its Sample, which the pipeline leaves alone) moves on.
	var al *sample.Loc
	switch {
	case s.Res != nil:
		if pl.evAddr && pl.addrLoc {
			// Declared here: a Loc cleared for every sample cost more
			// than the samples with a branch target.
			tmp := s.Res.ResolveAddr(s.Addr)
			al = &tmp
		}
	case s.AddrOK:
		al = &s.AddrLoc
	}
	if (s.Callchain != nil && useCC) || (s.Raw != nil && len(s.Raw) == 0) || s.Mem != nil || s.Regs != nil || (pl.misc && s.Misc != 0) || s.Synth.Kind != sample.SynthNone || s.InsnCnt != 0 || s.CycCnt != 0 || s.BranchStack != nil ||
		s.SrclineOK || len(s.Insn) > 16 || uint(s.Depth) > maxDepth || uint(s.InsnLen) > 16 {
		if ips == nil {
			pl.full(s, al, useCC)
			return
		}
		// A run of samples sent whole: each with its IP (and the
		// map address that moves with it).
		ip0, a0 := s.IP, s.IPLoc.Addr
		for _, ip := range ips {
			s.IP, s.IPLoc.Addr = ip, a0+(ip-ip0)
			pl.full(s, al, useCC)
		}
		s.IP, s.IPLoc.Addr = ip0, a0
		return
	}
	b := pl.cur
	if len(b.recs) == cap(b.recs) {
		b = pl.send()
	}
	b.recs = b.recs[:len(b.recs)+1]
	r := &b.recs[len(b.recs)-1]
	kind := uint32(0)
	if c := &pl.ctx; !pl.ctxOK || s.TID != c.tid || s.PID != c.pid || s.CPU != c.cpu ||
		s.HasThreadStack != c.hasTS || useCC != c.useCC || !sameStr(s.Comm, c.comm) {
		c.comm, c.pid, c.tid, c.cpu, c.hasTS, c.useCC = s.Comm, s.PID, s.TID, s.CPU, s.HasThreadStack, useCC
		pl.ctxOK = true
		b.ctxs = append(b.ctxs, sctx{})
		n := &b.ctxs[len(b.ctxs)-1]
		n.comm, n.pid, n.tid, n.cpu, n.hasTS, n.useCC = s.Comm, s.PID, s.TID, s.CPU, s.HasThreadStack, useCC
		kind |= recCtx
	}
	if !pl.ipOK || !sameMap(&pl.ipMap, &s.IPLoc, s.IP) {
		setMctx(&pl.ipMap, &s.IPLoc, s.IP)
		pl.ipOK = true
		b.maps = append(b.maps, mctx{})
		setMctx(&b.maps[len(b.maps)-1], &s.IPLoc, s.IP)
		kind |= recIPMap
	}
	r.sym, r.addrSym = s.IPLoc.Sym, nil
	if al != nil {
		kind |= recAddrOK
		if !pl.addrMOK || !sameMap(&pl.addrMap, al, s.Addr) {
			setMctx(&pl.addrMap, al, s.Addr)
			pl.addrMOK = true
			b.maps = append(b.maps, mctx{})
			setMctx(&b.maps[len(b.maps)-1], al, s.Addr)
			kind |= recAddrMap
		}
		r.addrSym = al.Sym
	}
	if pl.insn && len(s.Insn) > 0 {
		var in [16]byte
		copy(in[:], s.Insn)
		b.insn = append(b.insn, in)
		kind |= recInsn
	}
	r.ip, r.addr, r.time, r.period = s.IP, s.Addr, s.Time, s.Period
	r.ev, r.flags, r.k = s.Ev, s.Flags, kind|uint32(s.InsnLen)<<8|uint32(s.Depth)<<13
	if s.Raw != nil {
		r.k |= recRaw
		b.raw = append(b.raw, s.Raw...)
		b.rawEnd = append(b.rawEnd, len(b.raw))
		b.fullBytes += len(s.Raw)
		if b.fullBytes >= fullBudget {
			pl.send()
		}
	}
	if ips != nil {
		r.k |= recIPs
		b.ips = append(b.ips, ips...)
		b.ipsEnd = append(b.ipsEnd, len(b.ips))
		b.fullBytes += 8 * len(ips)
		if b.fullBytes >= fullBudget {
			pl.send()
		}
	}
}

// full queues s whole.
func (pl *pipeline) full(s *sample.Sample, al *sample.Loc, useCC bool) {
	r := pl.next()
	r.k = recFull
	b := pl.cur
	if len(b.full) < cap(b.full) {
		b.full = b.full[:len(b.full)+1]
	} else {
		b.full = append(b.full, full{})
	}
	it := &b.full[len(b.full)-1]
	it.useCC = useCC
	it.s = *s
	it.s.Res = nil
	if s.Mem != nil {
		it.mem = *s.Mem
		it.s.Mem = &it.mem
	}
	if s.Regs != nil {
		r := *s.Regs
		r.Intr = append(it.regs.Intr[:0], r.Intr...)
		r.User = append(it.regs.User[:0], r.User...)
		it.regs = r
		it.s.Regs = &it.regs
	}
	it.s.AddrLoc, it.s.AddrOK = sample.Loc{}, al != nil
	if al != nil {
		it.s.AddrLoc = *al
	}
	n := copy(it.insn[:], s.Insn)
	it.s.Insn = it.insn[:n]
	if s.Raw != nil {
		it.raw = append(it.raw[:0], s.Raw...)
		it.s.Raw = it.raw
	}
	if s.Callchain != nil {
		// An empty callchain (perf drops a corrupt one whole) is
		// printed as one, not as a sample without: keep it non-nil.
		// The batch's frames are one slice, kept from batch to batch:
		// no allocation per sample once it has grown.
		if b.frames == nil {
			// Room for the batch's budget at once: grown from a
			// few frames by appends, the copies and the fresh memory
			// were an eighth of perfpt script on a system-wide -g
			// recording.
			b.frames = make([]sample.Frame, 0, fullBudget/int(unsafe.Sizeof(sample.Frame{}))+256)
		}
		start := len(b.frames)
		b.frames = append(b.frames, s.Callchain...)
		it.s.Callchain = b.frames[start:len(b.frames):len(b.frames)]
	}
	if s.BranchStack != nil {
		it.br = append(it.br[:0], s.BranchStack...)
		it.s.BranchStack = it.br
		switch {
		case s.BranchLocs != nil:
			it.brLocs = append(it.brLocs[:0], s.BranchLocs...)
			it.s.BranchLocs = it.brLocs
		case pl.brLocs && s.Res != nil:
			it.brLocs = it.brLocs[:0]
			for _, e := range s.BranchStack {
				it.brLocs = append(it.brLocs, s.Res.ResolveAddr(e.From), s.Res.ResolveAddr(e.To))
			}
			it.s.BranchLocs = it.brLocs
		}
	}
	b.fullBytes += len(it.s.Callchain)*int(unsafe.Sizeof(sample.Frame{})) +
		len(it.s.BranchStack)*int(unsafe.Sizeof(sample.BranchEntry{})) +
		len(it.s.BranchLocs)*int(unsafe.Sizeof(sample.Loc{})) + len(it.s.Raw)
	if b.fullBytes >= fullBudget {
		pl.send()
	}
}

// sideLine is a side-band record to print (script.Printer.PrintSideband).
type sideLine struct {
	useCC    bool
	recType  uint32
	misc     uint16
	ev       *sample.Event
	comm     string
	pid, tid int32
	cpu      uint32
	time     uint64
	text     []byte
}

func (pl *pipeline) sideband(l sideLine) {
	r := pl.next()
	r.k = recSide
	b := pl.cur
	if len(b.side) < cap(b.side) {
		b.side = b.side[:len(b.side)+1]
		it := &b.side[len(b.side)-1]
		l.text = append(it.text[:0], l.text...)
		*it = l
	} else {
		l.text = append([]byte(nil), l.text...)
		b.side = append(b.side, l)
	}
}

func (pl *pipeline) errorLine(e *sample.ErrorLine) {
	r := pl.next()
	r.k = recErr
	pl.cur.errs = append(pl.cur.errs, *e)
}

// drain returns once the printer goroutine has printed everything sent
// (every batch but the current one is back in the free list), so that
// the caller may write to the Printer itself: text formatted by a decode
// worker goes out so, without a copy.
func (pl *pipeline) drain() {
	if len(pl.cur.recs) > 0 {
		pl.send()
	}
	var idle [nbatch - 1]*batch
	for i := range idle {
		idle[i] = <-pl.free
	}
	for _, b := range idle {
		pl.free <- b
	}
}

// close flushes the last batch and waits for the printer.
func (pl *pipeline) close() {
	if len(pl.cur.recs) > 0 {
		pl.ch <- pl.cur
	}
	close(pl.ch)
	<-pl.done
}

// print is the printer goroutine.
func (pl *pipeline) print() {
	defer close(pl.done)
	var s sample.Sample
	useCC := false
	var ipDelta, addrDelta uint64
	var insn [16]byte
	for b := range pl.ch {
		ci, mi, ii, fi, ei, si, ri, rawAt, pi, ipsAt := 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
		for i := range b.recs {
			r := &b.recs[i]
			k := r.k
			if k&(recFull|recErr|recSide) != 0 {
				if k&recSide != 0 {
					l := &b.side[si]
					si++
					pl.p.SetUseCallchain(l.useCC)
					pl.p.PrintSideband(l.ev, l.recType, l.misc, l.comm, l.pid, l.tid, l.cpu, l.time, l.text)
					pl.p.SetUseCallchain(useCC)
					continue
				}
				if k&recErr != 0 {
					pl.p.PrintError(&b.errs[ei])
					ei++
					continue
				}
				f := &b.full[fi]
				fi++
				pl.p.SetUseCallchain(f.useCC)
				pl.p.Print(&f.s)
				pl.p.SetUseCallchain(useCC)
				continue
			}
			if k&recCtx != 0 {
				c := &b.ctxs[ci]
				ci++
				s.Comm, s.PID, s.TID, s.CPU, s.HasThreadStack = c.comm, c.pid, c.tid, c.cpu, c.hasTS
				useCC = c.useCC
				pl.p.SetUseCallchain(useCC)
			}
			if k&recIPMap != 0 {
				m := &b.maps[mi]
				mi++
				m.apply(&s.IPLoc)
				ipDelta = m.delta
			}
			s.AddrOK = k&recAddrOK != 0
			if k&recAddrMap != 0 {
				m := &b.maps[mi]
				mi++
				m.apply(&s.AddrLoc)
				addrDelta = m.delta
			}
			s.Ev, s.IP, s.Addr, s.Time, s.Period, s.Flags = r.ev, r.ip, r.addr, r.time, r.period, r.flags
			s.InsnLen, s.Depth = int(k>>8&31), int(k>>13&maxDepth)
			s.Raw = nil
			if k&recRaw != 0 {
				end := b.rawEnd[ri]
				ri++
				s.Raw = b.raw[rawAt:end:end]
				rawAt = end
			}
			s.IPLoc.Sym, s.IPLoc.Addr = r.sym, r.ip-ipDelta
			if s.AddrOK {
				s.AddrLoc.Sym, s.AddrLoc.Addr = r.addrSym, r.addr-addrDelta
			}
			s.Insn = nil
			if k&recInsn != 0 {
				insn = b.insn[ii]
				ii++
				s.Insn = insn[:]
			}
			if k&recIPs != 0 {
				end := b.ipsEnd[pi]
				pi++
				pl.p.PrintIPs(&s, b.ips[ipsAt:end])
				ipsAt = end
				continue
			}
			pl.p.Print(&s)
		}
		pl.free <- b
	}
}
