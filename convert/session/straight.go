package session

import (
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session/ptperf"
)

// Straight runs (ptperf/straight.go): with every instruction sampled and
// a handler that prints instruction samples as lines that differ only in
// the IP (Handler.IPRun, perf script -F ip,sym and the like), the walker
// takes a run of instructions up to the next branch at once and hands
// their samples over in groups of one symbol: no decoder state, no
// sample made, no symbol looked up per instruction.
//
// The states skipped would each have made one instruction sample and
// nothing else: they are not branches (no thread stack, branch sample,
// switch or switch state), they read no packet (no time, CBR, PSB or
// power event, no transaction or ptwrite), and their time is the state
// before's (ptperf.walkStraight), which leaves the queue's as it is and
// does not make it yield to another queue (WalkStraight checks both).

// straightCap is the most instructions handed over at once.
const straightCap = 1024

// straightOK reports whether the session side allows the states of a
// straight run at time ts to be skipped.
func (q *ptQueue) straightOK(ts uint64) bool {
	p := q.pt
	if !q.straightSeq || q.hasPend || q.thread == nil || q.timestamp < ts || !p.timeless && q.timestamp >= q.bulkLimit {
		return false
	}
	if j := q.job; j != nil {
		return j.rseg.IPRunOK(p.instructionsEv)
	}
	return p.h.IPRun != nil && p.h.IPRunOK(p.instructionsEv)
}

// straightStatic reports whether runDecoder's sequential decodes may walk
// straight runs (straightOK's checks that hold for the whole session).
func (p *ptState) straightStatic() bool {
	return p.straightOpts() && p.h.IPRun != nil && p.h.IPRunOK != nil && !p.flow && !p.deliverHooks && p.h.Sample != nil
}

// straightJob is straightStatic for the decode of chunk j on a worker
// (runJob's, with the handler parallel decoding started with): its
// samples are formatted into its Segment, which must take runs.
func (p *ptState) straightJob(j *job) bool {
	return p.straightOpts() && j.rseg != nil && !p.workFlow && !p.useThreadStack && p.workH.Sample != nil
}

// straightOpts reports whether the session's options allow straight runs.
func (p *ptState) straightOpts() bool {
	return !straightOff && p.synth && p.instructionsEv != nil && !p.ipc && !p.xw && p.opts.InitialSkip == 0 &&
		p.opts.Quick == 0 && !p.s.anyFilter && !p.noIPLoc
}

// straightOff turns straight runs off (tests compare with them off).
var straightOff bool

// WalkStraight implements ptperf.StraightWalker.
func (w *queueWalker) WalkStraight(ip, ts, tot uint64) (n, next uint64) {
	q := w.q
	if !q.straightOK(ts) {
		return 0, ip
	}
	t := q.thread
	l := w.last
	if l == nil || w.ms != t.Maps || w.gen != t.Maps.Gen() || ip < l.Start || ip >= l.End || ip >= q.pt.kernelStart ||
		w.cc == nil || w.cc.failed {
		return 0, ip
	}
	ips := q.straightIPs[:0]
	if ips == nil {
		ips = make([]uint64, 0, straightCap)
	}
	ips, next = w.cc.straightRun(l.MapIP(ip), ip, l.End, ips)
	q.straightIPs = ips
	if len(ips) == 0 {
		return 0, ip
	}
	if j := q.job; j != nil {
		j.straightSamples(q.pt, q, ips, tot)
	} else {
		q.pt.straightSamples(q, ips, tot)
	}
	return uint64(len(ips)), next
}

// straightRun appends to ips the addresses of the instructions from ip
// (at DSO offset off) that are not branches, up to end or ips' capacity,
// and returns them with the address after the last.
func (c *codeCache) straightRun(off, ip, end uint64, ips []uint64) ([]uint64, uint64) {
	var in ptperf.Insn
	for ip < end && len(ips) < cap(ips) {
		pi := off / pageSlots
		if pi >= uint64(len(c.insns)) {
			break
		}
		var br ptperf.Branch
		var n int
		if pg := c.insns[pi].Load(); pg != nil && pg[off%pageSlots].st.Load() == slotReady {
			s := &pg[off%pageSlots].in
			br, n = s.Branch, s.Length
		} else {
			if !c.insnAt(off, &in) {
				break
			}
			br, n = in.Branch, in.Length
		}
		if br != ptperf.BrNone || n == 0 {
			break
		}
		ips = append(ips, ip)
		ip += uint64(n)
		off += uint64(n)
	}
	return ips, ip
}

// straightSamples delivers the instruction samples of a straight run at
// ips (emitSample's, for states that are not branches), one IPRun per
// stretch of the same symbol and period; tot is the decoder's instruction
// count before them.
func (p *ptState) straightSamples(q *ptQueue, ips []uint64, tot uint64) {
	if old := p.tick; p.h.Progress != nil {
		if p.tick += uint64(len(ips)); old>>16 != p.tick>>16 {
			p.progress()
		}
	}
	// The period of each is 1 (TotInsnCnt moves by one a state) but the
	// first's, which counts from the last instruction sample (the
	// instructions of a failed walk are counted without one).
	period := tot + 1 - q.lastInsn
	q.lastInsn = tot + uint64(len(ips))
	smp, t, kernel := p.prepSample(q, p.instructionsEv, ips[0], 0, period, 0)
	if smp == nil {
		return
	}
	// IPRun's samples carry no instruction bytes or flags (it prints
	// neither).
	smp.InsnLen, smp.Insn = 0, nil
	p.res = p.s.m.Resolver(t, kernel)
	smp.Res = &p.res
	smp.Depth, smp.HasThreadStack = t.StackDepth(int32(smp.CPU))
	for len(ips) > 0 {
		ip := ips[0]
		p.s.m.ResolveInto(&smp.IPLoc, t, kernel, ip, &q.lc)
		k := 1
		if lo, hi := q.lc.Span(&smp.IPLoc); lo < hi && smp.Period == 1 {
			for k < len(ips) && ips[k] >= lo && ips[k] < hi {
				k++
			}
		}
		smp.IP = ip
		p.h.IPRun(smp, ips[:k])
		ips = ips[k:]
		smp.Period = 1
	}
}

// straightSamples is ptState.straightSamples for the decode of chunk j
// (on a worker): format's samples, handed to its RunSegment.
func (j *job) straightSamples(p *ptState, q *ptQueue, ips []uint64, tot uint64) {
	period := tot + 1 - q.lastInsn
	q.lastInsn = tot + uint64(len(ips))
	t := q.thread
	smp := &j.smp
	kernel := p.fillSample(smp, q, t, p.instructionsEv, ips[0], 0, period, 0, p.perfTime(q.timestamp))
	smp.InsnLen, smp.Insn = 0, nil
	m := p.s.m
	j.res.m, j.res.t, j.res.kernel = m, t, kernel
	smp.Res = &j.res
	smp.HasThreadStack, smp.Depth = false, 0
	l := &smp.IPLoc
	for len(ips) > 0 {
		ip := ips[0]
		k := 1
		if mp, sym, a := m.ResolveRO(&j.ro, t, kernel, ip); mp != nil {
			l.HasMap, l.DSO, l.Kernel, l.MapStart, l.Addr, l.Ref = true, p.s.m.DSOName(mp.DSO), mp.DSO.Kernel, mp.Start, a, mp
			l.Sym = sym
			if lo, hi := j.ro.Span(mp, sym); lo < hi && smp.Period == 1 {
				for k < len(ips) && ips[k] >= lo && ips[k] < hi {
					k++
				}
			}
		} else {
			*l = sample.Loc{Addr: a}
		}
		smp.IP = ip
		j.rseg.IPRun(smp, ips[:k])
		ips = ips[k:]
		smp.Period = 1
	}
}
