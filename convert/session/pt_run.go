package session

import (
	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session/ptperf"
	"github.com/perfpt/perfpt/perfdata"
)

// getTrace mirrors intel_pt_get_trace/intel_pt_get_buffer.
func (q *ptQueue) getTrace(b *ptperf.Buffer) error {
	for !q.stop && q.next < len(q.bufs) {
		buf := &q.bufs[q.next]
		q.next++
		b.Data = buf.data
		if q.mapped {
			b.Data = buf.mapped
		} else if buf.data == nil && buf.size > 0 {
			q.rsel ^= 1
			rb := q.rbuf[q.rsel]
			if cap(rb) < buf.size {
				rb = make([]byte, buf.size)
			}
			rb = rb[:buf.size]
			n, _ := q.pt.s.aux.ReadAt(rb, buf.off)
			q.rbuf[q.rsel] = rb
			b.Data = rb[:n]
		}
		b.RefTimestamp = buf.reference
		full := b.Data
		if q.pt.mightOverlap {
			if q.oldBuffer && !buf.overlapDone {
				buf.useOff, buf.consecutive = ptperf.FindOverlap(q.oldData, full, q.pt.haveTSC)
				buf.overlapDone = true
			}
			b.Data = full[min(buf.useOff, len(full)):]
		}
		if !q.oldBuffer || q.pt.mightOverlap && !buf.consecutive {
			b.Consecutive = false
			b.TraceNr = buf.nr + 1
		} else {
			b.Consecutive = true
		}
		q.stop = q.stepThrough
		if len(b.Data) == 0 {
			continue
		}
		if q.pt.mightOverlap {
			q.oldData = append(q.oldData[:0], full...)
		}
		q.oldBuffer = true
		return nil
	}
	b.Data = nil
	return nil
}

// lookahead mirrors intel_pt_lookahead: the buffers after the current one.
func (q *ptQueue) lookahead(f func(*ptperf.Buffer) bool) {
	for i := q.next; i < len(q.bufs); i++ {
		buf := &q.bufs[i]
		b := ptperf.Buffer{Data: buf.data, RefTimestamp: buf.reference, Consecutive: true}
		if buf.data == nil && buf.size > 0 {
			if cap(q.look) < buf.size {
				q.look = make([]byte, buf.size)
			}
			n, _ := q.pt.s.aux.ReadAt(q.look[:buf.size], buf.off)
			b.Data = q.look[:n]
		}
		if q.pt.mightOverlap && buf.overlapDone {
			// (An overlap not found yet is not looked for here: a
			// time range over snapshots may see repeated data.)
			b.Data = b.Data[min(buf.useOff, len(b.Data)):]
		}
		if len(b.Data) == 0 {
			continue
		}
		if f(&b) {
			return
		}
	}
}

// newDecoder mirrors the decoder parameters of intel_pt_alloc_queue.
func (p *ptState) newDecoder(q *ptQueue) *ptperf.Decoder {
	cfg, _ := p.config()
	w := p.walkerFor(q)
	prm := ptperf.Params{
		GetTrace:          q.getTrace,
		Lookahead:         q.lookahead,
		Walker:            w,
		Straight:          w,
		ReturnCompression: p.priv[ptNoRetCompBit] == 0 || cfg&p.priv[ptNoRetCompBit] == 0,
		BranchEnable:      !(cfg&cfgPassThru != 0 && cfg&cfgBranchEn == 0),
		MaxNonTurboRatio:  p.maxNonTurbo,
		Ctl:               cfg,
		// IPC is counted only when it is used (and only branch and
		// instruction samples have it).
		IPC: p.ipc && (p.branchesEv != nil || p.instructionsEv != nil),
	}
	if len(p.priv) > ptCYCBit {
		if bits := p.priv[ptMTCFreqBits]; bits != 0 {
			shift := uint32(0)
			for c := bits; c&1 == 0; c >>= 1 {
				shift++
			}
			prm.MTCPeriod = uint32((cfg & bits) >> shift)
		}
		prm.TSCCTCRatioN = uint32(p.priv[ptTSCCTCN])
		prm.TSCCTCRatioD = uint32(p.priv[ptTSCCTCD])
	}
	prm.PeriodType, prm.Period = p.period()
	prm.Quick = p.opts.Quick
	if prm.BranchEnable && cfg&cfgTNTDis != 0 && prm.Quick == 0 {
		// Without TNT packets the code cannot be walked: perf forces
		// hop mode (intel_pt_alloc_queue), but samples' periods are
		// set to 1 only for --itrace=q.
		prm.Quick = 1
	}
	return ptperf.New(prm)
}

// period returns the decoders' instruction sampling period.
func (p *ptState) period() (ptperf.PeriodType, uint64) {
	if !p.opts.Instructions {
		return ptperf.PeriodNone, 0
	}
	if p.opts.Period != 0 {
		switch p.opts.PeriodType {
		case sample.PeriodInstructions:
			return ptperf.PeriodInstructions, p.opts.Period
		case sample.PeriodTicks:
			return ptperf.PeriodTicks, p.opts.Period
		case sample.PeriodNanosecs:
			if t := p.tc.nsToTicks(p.opts.Period); t != 0 {
				return ptperf.PeriodTicks, t
			}
		}
	}
	return ptperf.PeriodInstructions, 1
}

// updateQueues mirrors intel_pt_update_queues/intel_pt_setup_queue.
func (p *ptState) updateQueues() {
	if !p.newData {
		return
	}
	p.newData = false
	for _, q := range p.queues {
		if len(q.bufs) == 0 {
			continue
		}
		if q.dec == nil {
			q.dec = p.newDecoder(q)
			q.pid, q.tid, q.cpu = -1, -1, -1
			if q.qcpu != -1 {
				q.cpu = q.qcpu
			}
			q.tid = q.qtid
			q.cbrSeen = ^uint32(0)
			q.syncSwitch, q.nextTID = p.syncSwitch, -1
			q.stepThrough = p.samplingMode && p.priv[ptSnapshotMode] == 0 && p.timeless
			p.setupTimeRange(q)
		}
		if q.onHeap || q.syncSwitch && q.switchState == ssExpectingSwitchEvent || p.timeless {
			continue
		}
		if q.selStart && q.selTimestamp != 0 {
			q.dec.FastForward(q.selTimestamp)
		}
		var st *ptperf.State
		for {
			st = q.dec.Decode()
			if st.Type&ptperf.TypeTraceBegin != 0 {
				q.traceBegan()
			}
			if st.Err != 0 {
				if st.Err == ptperf.ErrNoData {
					break
				}
				continue
			}
			if st.Timestamp != 0 {
				break
			}
		}
		if st.Err == ptperf.ErrNoData {
			continue
		}
		q.setTimestamp(st.Timestamp)
		q.state = st
		q.haveSample = true
		if q.selStart && q.selTimestamp != 0 && q.timestamp < q.selTimestamp {
			q.haveSample = false
		}
		q.sampleFlags()
		p.heapAdd(q.nr, q.timestamp)
		q.onHeap = true
	}
}

func (p *ptState) heapAdd(q int, ordinal uint64) {
	p.heap = append(p.heap, heapItem{})
	pos := len(p.heap) - 1
	for pos > 0 {
		parent := (pos - 1) >> 1
		if p.heap[parent].ordinal <= ordinal {
			break
		}
		p.heap[pos] = p.heap[parent]
		pos = parent
	}
	p.heap[pos] = heapItem{q, ordinal}
}

func (p *ptState) heapPop() {
	n := len(p.heap)
	if n == 0 {
		return
	}
	h := p.heap
	pos := 0
	for {
		left := pos<<1 + 1
		if left >= n {
			break
		}
		right := left + 1
		if right >= n {
			h[pos] = h[left]
			p.heap = h[:n-1]
			return
		}
		if h[left].ordinal < h[right].ordinal {
			h[pos] = h[left]
			pos = left
		} else {
			h[pos] = h[right]
			pos = right
		}
	}
	last := h[n-1]
	p.heap = h[:n-1]
	// heapify last into pos
	for pos > 0 {
		parent := (pos - 1) >> 1
		if p.heap[parent].ordinal <= last.ordinal {
			break
		}
		p.heap[pos] = p.heap[parent]
		pos = parent
	}
	if pos < len(p.heap) {
		p.heap[pos] = last
	}
}

// setPidTidCPU mirrors intel_pt_set_pid_tid_cpu: with switch sideband
// (have_sched_switch) or no thread of its own, a queue decodes for the
// thread the sideband says runs on its CPU (machine__get_current_tid;
// none for a per-thread queue, whose CPU is -1).
func (p *ptState) setPidTidCPU(q *ptQueue) {
	m := p.s.m
	if q.qtid == -1 || p.sched != 0 {
		cur, ok := p.curTID[q.cpu]
		q.tid = -1
		if ok {
			q.tid = cur[1]
		}
		if q.tid == -1 {
			q.pid = -1
		}
		q.thread = nil
	}
	if q.thread == nil && q.tid != -1 {
		q.thread = m.FindThread(q.tid)
	}
	if q.thread != nil {
		q.pid = q.thread.PID
		if q.qcpu == -1 {
			q.cpu = -1
		}
	}
	q.rq.lim = 0 // Runs: check the batch's thread
}

// sampleFlags mirrors intel_pt_sample_flags.
func (q *ptQueue) sampleFlags() {
	st := q.state
	q.insnLen = 0
	if st.Flags&ptperf.FlagAbortTx != 0 {
		q.flags = sample.FlagBranch | sample.FlagTxAbort
	} else if st.Flags&ptperf.FlagAsync != 0 {
		if st.ToIP == 0 {
			q.flags = sample.FlagBranch | sample.FlagTraceEnd
		} else if st.FromNR && !st.ToNR {
			q.flags = sample.FlagBranch | sample.FlagCall | sample.FlagVMExit
		} else {
			q.flags = sample.FlagBranch | sample.FlagCall | sample.FlagAsync | sample.FlagInterrupt
		}
		if st.ToIP == 0 {
			// perf 6.1.y stable: a trace end after an async event is
			// "tr end  async".
			q.flags = sample.FlagBranch | sample.FlagAsync | sample.FlagTraceEnd
		}
	} else {
		if st.FromIP != 0 {
			q.flags = st.InsnOp.Flags()
		} else {
			q.flags = sample.FlagBranch | sample.FlagTraceBegin
		}
		if st.Flags&ptperf.FlagInTx != 0 {
			q.flags |= sample.FlagInTx
		}
		q.insnLen = st.InsnLen
		q.insn = st.Insn
	}
	if st.Type&ptperf.TypeTraceBegin != 0 {
		q.flags |= sample.FlagTraceBegin
	}
	if st.Type&ptperf.TypeTraceEnd != 0 {
		q.flags |= sample.FlagTraceEnd
	}
}

// updateTimestamp is runDecoder's update of the queue's timestamp after
// state st (runSeq's and the chunk decoders' too).
func (p *ptState) updateTimestamp(q *ptQueue, st *ptperf.State) {
	if !p.timeless && (st.FromIP >= p.kernelStart || st.FromIP == 0) && st.ToIP != 0 && st.ToIP < p.kernelStart {
		q.setTimestamp(st.EstTimestamp)
	} else if q.syncSwitch && q.switchState == ssUnknown && q.isSwitchIP(st.ToIP) && q.nextTID == -1 {
		// the estimated TSC in an unknown switch state
		q.setTimestamp(st.EstTimestamp)
	} else if st.Timestamp > q.timestamp {
		q.setTimestamp(st.Timestamp)
	}
}

// runDecoder mirrors intel_pt_run_decoder; it returns true when the
// queue ran out of data.
func (p *ptState) runDecoder(q *ptQueue, timestamp *uint64) bool {
	if q.par != nil {
		return p.parRun(q, timestamp)
	}
	var ff uint64
	p.initKernelStart()
	q.started = true
	q.startBulk(*timestamp) // bulk.go
	defer q.endBulk()
	for {
		if p.tick++; p.tick&0xffff == 0 && p.h.Progress != nil {
			p.progress()
		}
		if p.sample(q) {
			return true // waits for the switch record (sync_switch)
		}
		st := q.dec.Decode()
		if st.Type&ptperf.TypeTraceBegin != 0 {
			q.traceBegan()
		}
		if q.hasPend {
			// The pending run is resolved: the trace stopped (or broke
			// off with an error) after it, or the branch that ended it
			// went to st.ToIP. The run is delivered before the state's
			// sample.
			switch {
			case st.Err != 0:
				q.flushPend(0, 0)
			case st.Type&ptperf.TypeTraceEnd != 0:
				q.flushPend(0, sample.FlagTraceEnd)
			case st.Type&ptperf.TypeBranch != 0 && st.FromIP == q.pend.End:
				if p.h.Runs != nil {
					// flushPend's Runs case, inlined (once per
					// branch; flushPend is too big to inline).
					q.hasPend = false
					q.resolveRun(st.ToIP, 0)
				} else {
					q.flushPend(st.ToIP, 0)
				}
			}
		}
		if st.Err != 0 {
			if st.Err == ptperf.ErrNoData {
				return true
			}
			if q.syncSwitch && st.FromIP >= p.kernelStart {
				q.syncSwitch = false
				p.nextTID(q)
			}
			q.setTimestamp(st.EstTimestamp)
			if p.opts.Errors {
				p.synthError(q, st)
			}
			continue
		}
		q.state = st
		q.haveSample = true
		q.sampleFlags()
		p.updateTimestamp(q, st)
		if q.selTimestamp != 0 && p.timeFilter(q, &ff) {
			return true
		}
		if !p.timeless && q.timestamp >= *timestamp {
			*timestamp = q.timestamp
			return false
		}
	}
}

// processQueues mirrors intel_pt_process_queues.
func (p *ptState) processQueues(timestamp uint64) {
	for len(p.heap) > 0 {
		if p.heap[0].ordinal >= timestamp {
			return
		}
		qn := p.heap[0].q
		q := p.queues[qn]
		p.heapPop()
		ts := timestamp
		if len(p.heap) > 0 {
			ts = p.heap[0].ordinal + 1
			if ts > timestamp {
				ts = timestamp
			}
		}
		if p.perCPU && len(p.runQs) != 0 {
			// Runs ended since the last queue decoded (a switch
			// record ended one that waited for its successor:
			// setCurTID) are handed over before this queue decodes
			// its thread's next ones: Handler.Agg's walk counts
			// those at once (edge.go), ahead of what is still in
			// the batches.
			p.flushRuns()
		}
		p.setPidTidCPU(q)
		p.initKernelStart()
		if q.par == nil && p.parallel() && p.queueParallel(q, false) {
			p.startPar(q, false)
		}
		if !p.runDecoder(q, &ts) {
			p.heapAdd(qn, ts)
		} else {
			q.onHeap = false
		}
		if p.perCPU && len(p.runQs) != 0 {
			// A thread's runs may come from several CPUs' queues:
			// hand this queue's over before another queue decodes,
			// so that they arrive in time order.
			p.flushRuns()
		}
	}
}

// processTimeless mirrors intel_pt_process_timeless_queues.
func (p *ptState) processTimeless(tid int32) {
	if p.parallel() {
		p.processTimelessPar(tid)
		return
	}
	for _, q := range p.queues {
		if q.dec == nil {
			continue
		}
		if tid == -1 || q.tid == tid {
			p.setPidTidCPU(q)
			var ts uint64
			p.runDecoder(q, &ts)
		}
	}
}

// setHandler sets the handler and what the walker delivers for it.
func (p *ptState) setHandler(h Handler) {
	p.h = h
	if h.Agg != nil && (p.agg == nil || p.agg.a != h.Agg) && !aggOff {
		p.agg = &aggState{a: h.Agg}
	}
	p.flow = h.Block != nil || h.Blocks != nil || h.Runs != nil
	p.deliverHooks = p.flow || p.useThreadStack
}

// event mirrors intel_pt_process_event, called before each time-ordered
// record is processed.
func (p *ptState) event(r perfdata.Record, h Handler) {
	p.setHandler(h)
	c := r.Common()
	var timestamp uint64
	if c.Format&perfdata.SampleFormatTime != 0 && c.Time != 0 && c.Time != ^uint64(0) {
		timestamp = p.tc.toTSC(c.Time)
	}
	if timestamp != 0 || p.timeless {
		p.updateQueues()
	}
	if p.timeless {
		if p.samplingMode {
			if smp, ok := r.(*perfdata.RecordSample); ok && len(smp.Aux) > 0 {
				p.processTimelessSample(smp)
			}
		} else if c.Type == perfdata.RecordTypeExit {
			if e, ok := r.(*perfdata.RecordExit); ok {
				p.processTimeless(e.TID)
			}
		}
	} else if timestamp != 0 {
		p.processQueues(timestamp)
	}
	if a, ok := r.(*perfdata.RecordAux); ok && a.Flags&perfdata.AuxFlagTruncated != 0 && p.opts.Errors {
		// intel_pt_lost: the sample's cpu, (u32)-1 without one
		cpu := int32(-1)
		if c.Format&perfdata.SampleFormatCPU != 0 {
			cpu = int32(c.CPU)
		}
		p.emitError(nil, ptperf.ErrLost, cpu, c.PID, c.TID, 0, c.Time)
	}
	switch rr := r.(type) {
	case *perfdata.RecordItraceStart:
		if p.perCPU {
			p.setCurTID(int32(c.CPU), rr.PID, rr.TID)
		}
	case *perfdata.RecordSwitch:
		p.contextSwitch(rr, c)
	}
}

// contextSwitch mirrors intel_pt_context_switch (and
// intel_pt_context_switch_in): the CPU's thread follows the switch
// records, but under sync_switch (pt_switch.go), where a switch-out
// record only names the thread the queue takes at __switch_to.
func (p *ptState) contextSwitch(rr *perfdata.RecordSwitch, c *perfdata.RecordCommon) {
	cpu := int32(c.CPU)
	cur, known := p.curTID[cpu]
	pid, tid, set, in := switchTID(p.sched, rr, c, cur[1], known)
	if in {
		p.contextSwitchIn(cpu)
	}
	if !set || !in && !p.syncSwitchEvent(cpu, tid, c.Time) {
		return
	}
	p.setCurTID(cpu, pid, tid)
}

// switchTID is what switch record rr does to its CPU's thread in
// intel_pt_context_switch and intel_pt_context_switch_in, sync_switch
// aside: set says the thread becomes pid/tid; in, that rr is a switch-in
// with have_sched_switch 3 (cur is the CPU's thread now, if known).
func switchTID(sched uint64, rr *perfdata.RecordSwitch, c *perfdata.RecordCommon, cur int32, known bool) (pid, tid int32, set, in bool) {
	switch {
	case sched == 3 && !rr.Out():
		return c.PID, c.TID, !known || cur != c.TID, true
	case sched == 3 && rr.CPUWide:
		return rr.NextPrevPID, rr.NextPrevTID, true, false
	case sched != 3 && !rr.Out():
		return c.PID, c.TID, true, false
	}
	return 0, 0, false, false
}

// finish mirrors intel_pt_flush.
func (p *ptState) finish(h Handler) error {
	p.setHandler(h)
	p.updateQueues()
	if p.timeless {
		p.processTimeless(-1)
		p.stopWorkers()
		for _, q := range p.queues {
			q.flushPend(0, 0)
		}
		return nil
	}
	p.processQueues(^uint64(0))
	p.stopWorkers()
	for _, q := range p.queues {
		q.flushPend(0, 0)
	}
	return nil
}

func (p *ptState) perfTime(tsc uint64) uint64 {
	if p.timeless {
		return 0
	}
	return p.tc.toPerf(tsc)
}

func (p *ptState) synthError(q *ptQueue, st *ptperf.State) {
	p.emitError(q, st.Err, q.cpu, q.pid, q.tid, st.FromIP, p.perfTime(q.timestamp))
}

// emitError mirrors intel_pt_synth_error.
func (p *ptState) emitError(q *ptQueue, code int, cpu, pid, tid int32, ip, tm uint64) {
	if code == ptperf.ErrOvr && p.opts.ErrorMinusFlags&sample.ErrFlagOverflow != 0 {
		return
	}
	if code == ptperf.ErrLost && p.opts.ErrorMinusFlags&sample.ErrFlagDataLost != 0 {
		return
	}
	if q != nil && q.job != nil {
		if p.workH.Error == nil {
			return
		}
		q.job.addError(sample.ErrorLine{Type: 1, Code: uint32(code), CPU: cpu, PID: pid, TID: tid, IP: ip,
			Time: tm, HasTime: true, Msg: ptperf.ErrMsg(code)})
		return
	}
	if p.h.Error == nil {
		return
	}
	p.flushBlocks()
	p.s.deliverError(&p.h, &sample.ErrorLine{Type: 1, Code: uint32(code), CPU: cpu, PID: pid, TID: tid, IP: ip,
		Time: tm, HasTime: true, Msg: ptperf.ErrMsg(code)})
}

func (p *ptState) skipEvent() bool {
	if p.opts.InitialSkip == 0 {
		return false
	}
	p.numEvents++
	return p.numEvents-1 < p.opts.InitialSkip
}

// sample mirrors intel_pt_sample for the events modelled. Called for
// every state: small enough to inline, the work is in synthSamples.
func (p *ptState) sample(q *ptQueue) bool {
	if !q.haveSample {
		return false
	}
	q.haveSample = false
	// Without synth there is no thread stack either (only
	// stackEventBr, with useThreadStack, makes them): nothing to do.
	if p.synth {
		p.synthSamples(q)
	}
	if q.syncSwitch && q.state.Type&ptperf.TypeBranch != 0 {
		return p.switchState(q, q.state)
	}
	return false
}

// synthSamples is sample when the states make samples or feed thread
// stacks.
func (p *ptState) synthSamples(q *ptQueue) {
	st := q.state
	if p.psbEv != nil {
		if st.Type&ptperf.TypePSBEvt != 0 && !p.skipEvent() {
			p.emitSynth(q, p.psbEv, st, sample.Synth{Kind: sample.SynthPSB, Offset: st.PSBOffset})
		}
		if st.CBR != q.cbrSeen {
			q.cbrSeen = st.CBR
			cbr := uint32(st.CBRPayload & 0xff)
			p.emitSynth(q, p.cbrEv, st, sample.Synth{Kind: sample.SynthCBR, CBR: cbr,
				Freq: uint32(uint64(cbr) * p.cbr2khz), MaxNonTurbo: p.maxNonTurbo})
		}
		if st.Type&pwrEvents != 0 {
			p.pwrSamples(q, st)
		}
	}
	if p.instructionsEv != nil && st.Type&ptperf.TypeInstruction != 0 && !p.skipEvent() {
		period := st.TotInsnCnt - q.lastInsn
		if p.opts.Quick != 0 {
			period = 1
		}
		q.lastInsn = st.TotInsnCnt
		if p.ipc {
			q.ipcSample(st, p.opts.ApproxIPC, &q.lastInInsn, &q.lastInCyc)
		}
		p.emitSample(q, p.instructionsEv, st.FromIP, st.ToIP, period, q.flags)
	}
	if p.xw {
		p.xwSamples(q, st)
	}
	if st.Type&ptperf.TypeBranch == 0 {
		return
	}
	p.threadStackEvent(q, st)
	if p.branchesEv == nil {
		return
	}
	if st.FromNR != st.ToNR && st.FromIP != 0 && st.ToIP != 0 {
		// A branch between the host and a VMX guest: one sample
		// cannot have two machines, so perf makes two branches, from
		// the IP to 0 and from 0 to the target (intel_pt_sample).
		p.branchSample(q, st, st.FromIP, 0)
		p.branchSample(q, st, 0, st.ToIP)
		return
	}
	p.branchSample(q, st, st.FromIP, st.ToIP)
}

// branchSample mirrors intel_pt_synth_branch_sample.
func (p *ptState) branchSample(q *ptQueue, st *ptperf.State, from, to uint64) {
	if p.branchesFilter != 0 && p.branchesFilter&q.flags == 0 {
		return
	}
	if p.skipEvent() {
		return
	}
	if p.ipc {
		q.ipcSample(st, p.opts.ApproxIPC, &q.lastBrInsn, &q.lastBrCyc)
	}
	p.emitSample(q, p.branchesEv, from, to, 1, q.flags)
}

// guestAt mirrors intel_pt_cpumode: a sample of state st from ip (its
// from IP, or 0 when it has none) is a VMX guest's (cpumode
// PERF_RECORD_MISC_GUEST_KERNEL or _USER) when the NR bit of that end of
// the branch is set. perf script, having no guest machine (perf_guest is
// off), filters such samples out (thread__find_map sets
// HIST_FILTER__GUEST): they are not delivered.
func guestAt(st *ptperf.State, ip uint64) bool {
	if ip != 0 {
		return st.FromNR
	}
	return st.ToNR
}

// xwSamples delivers the transaction and ptwrite samples of a state
// (intel_pt_synth_transaction_sample, intel_pt_synth_ptwrite_sample).
func (p *ptState) xwSamples(q *ptQueue, st *ptperf.State) {
	if p.txEv != nil && st.Type&ptperf.TypeTransaction != 0 && !p.skipEvent() {
		q.smpInsn, q.smpCyc = 0, 0 // transactions have no IPC
		p.emitSample(q, p.txEv, st.FromIP, st.ToIP, 1, q.flags)
	}
	if p.ptwEv != nil && st.Type&ptperf.TypePTW != 0 && !p.skipEvent() {
		p.emitSynth(q, p.ptwEv, st, sample.Synth{Kind: sample.SynthPTWrite,
			IP: st.Flags&ptperf.FlagFUPIP != 0, Payload: st.PTWPayload})
	}
}

// ipcSample sets the IPC counts of the branch or instruction sample being
// made from state st (intel_pt_sample's ipc_insn_cnt, ipc_cyc_cnt and
// sample_ipc; approx: itrace A), from the counts at that kind's last sample
// with an IPC (updated): cycles only when the state may sample IPC,
// instructions only with cycles (intel_pt_synth_branch_sample,
// intel_pt_synth_instruction_sample).
func (q *ptQueue) ipcSample(st *ptperf.State, approx bool, lastInsn, lastCyc *uint64) {
	insn, cyc, ok := st.TotInsnCnt, st.TotCycCnt, st.Flags&ptperf.FlagSampleIPC != 0
	if approx {
		cyc, ok = st.Cycles, true
	}
	q.smpInsn, q.smpCyc = 0, 0
	if ok {
		q.smpCyc = cyc - *lastCyc
	}
	if q.smpCyc != 0 {
		q.smpInsn = insn - *lastInsn
		*lastInsn, *lastCyc = insn, cyc
	}
}

// emitSample delivers a branch or instruction sample (intel_pt_prep_b_sample).
func (p *ptState) emitSample(q *ptQueue, ev *sample.Event, ip, addr, period uint64, flags uint32) {
	if guestAt(q.state, ip) {
		return
	}
	if q.job != nil {
		q.job.add(p, q, ev, ip, addr, period, flags)
		return
	}
	smp, t, kernel := p.prepSample(q, ev, ip, addr, period, flags)
	if smp == nil {
		return
	}
	if p.noIPLoc {
		smp.IPLoc = sample.Loc{Addr: ip}
	} else {
		p.s.m.ResolveInto(&smp.IPLoc, t, kernel, ip, &q.lc)
	}
	p.deliver(smp, t, kernel)
}

// prepSample fills p.smp for emitSample but for the IP's location; nil
// means the sample is not delivered.
func (p *ptState) prepSample(q *ptQueue, ev *sample.Event, ip, addr, period uint64, flags uint32) (*sample.Sample, *machine.Thread, bool) {
	if p.h.Sample == nil {
		return nil, nil, false
	}
	tm := p.perfTime(q.timestamp)
	if p.s.anyFilter && p.s.filtered(q.pid, q.tid, uint32(q.cpu), tm) {
		return nil, nil, false
	}
	m := p.s.m
	t := q.thread
	if t == nil || t.TID != q.tid || t.PID != q.pid {
		t = m.FindNewThread(q.pid, q.tid)
	}
	smp := &p.smp
	kernel := p.fillSample(smp, q, t, ev, ip, addr, period, flags, tm)
	if p.ipc {
		smp.InsnCnt, smp.CycCnt = q.smpInsn, q.smpCyc
	}
	return smp, t, kernel
}

// fillSample sets the fields of a branch or instruction sample that do
// not depend on where it is delivered (sequentially or on a decode
// worker) and says whether it is a kernel sample.
func (p *ptState) fillSample(smp *sample.Sample, q *ptQueue, t *machine.Thread, ev *sample.Event, ip, addr, period uint64, flags uint32, tm uint64) bool {
	smp.Ev, smp.Comm = ev, t.Comm
	smp.PID, smp.TID, smp.CPU, smp.Time = q.pid, q.tid, uint32(q.cpu), tm
	smp.Period, smp.IP, smp.Addr, smp.Flags = period, ip, addr, flags
	smp.InsnLen, smp.Insn = q.insnLen, q.insn[:]
	smp.Callchain = nil
	smp.Synth = sample.Synth{}
	if ip == 0 {
		return addr >= p.kernelStart
	}
	return ip >= p.kernelStart
}

// deliver hands the prepared sample to the handler.
func (p *ptState) deliver(smp *sample.Sample, t *machine.Thread, kernel bool) {
	p.res = p.s.m.Resolver(t, kernel)
	smp.Res = &p.res
	smp.Depth, smp.HasThreadStack = t.StackDepth(int32(smp.CPU))
	if p.deliverHooks { // one test per sample when both are off
		p.attachStacks(smp, t, kernel)
		p.flushBlocks()
	}
	p.h.Sample(smp)
}

// pwrEvents are the state types of the power events but CBR.
const pwrEvents = ptperf.TypeMWaitOp | ptperf.TypePwrEntry | ptperf.TypeExStop | ptperf.TypePwrExit

// pwrSamples delivers the mwait, pwre, exstop and pwrx samples of a state
// (intel_pt_synth_mwait_sample ... intel_pt_synth_pwrx_sample): the
// payloads are perf's raw packet payloads, split as its
// perf_synth_intel_* records do.
func (p *ptState) pwrSamples(q *ptQueue, st *ptperf.State) {
	if st.Type&ptperf.TypeMWaitOp != 0 && !p.skipEvent() {
		pl := st.MWaitPayload
		p.emitSynth(q, p.mwaitEv, st, sample.Synth{Kind: sample.SynthMWait,
			Hints: uint8(pl), Extensions: uint8(pl>>32) & 3})
	}
	if st.Type&ptperf.TypePwrEntry != 0 && !p.skipEvent() {
		pl := st.PwrEPayload
		p.emitSynth(q, p.pwreEv, st, sample.Synth{Kind: sample.SynthPwrE,
			HW: pl&0x80 != 0, SubCState: uint8(pl>>8) & 0xf, CState: uint8(pl>>12) & 0xf})
	}
	if st.Type&ptperf.TypeExStop != 0 && !p.skipEvent() {
		p.emitSynth(q, p.exstopEv, st, sample.Synth{Kind: sample.SynthExStop, IP: st.Flags&ptperf.FlagFUPIP != 0})
	}
	if st.Type&ptperf.TypePwrExit != 0 && !p.skipEvent() {
		pl := st.PwrXPayload
		p.emitSynth(q, p.pwrxEv, st, sample.Synth{Kind: sample.SynthPwrX,
			DeepestCState: uint8(pl) & 0xf, LastCState: uint8(pl>>4) & 0xf, WakeReason: uint8(pl>>8) & 0xf})
	}
}

// emitSynth delivers a sample of a PERF_TYPE_SYNTH event (psb, cbr,
// ptwrite and the power events; intel_pt_prep_p_sample): at the state's
// from IP, with the queue's flags unless that IP is 0 (a PSB has none).
func (p *ptState) emitSynth(q *ptQueue, ev *sample.Event, st *ptperf.State, sy sample.Synth) {
	h := p.h
	if h.Sample == nil || ev == nil || guestAt(st, st.FromIP) {
		return
	}
	tm := p.perfTime(q.timestamp)
	if p.s.filtered(q.pid, q.tid, uint32(q.cpu), tm) {
		return
	}
	m := p.s.m
	t := m.FindNewThread(q.pid, q.tid)
	smp := &p.smp
	ip := st.FromIP
	flags := q.flags
	if ip == 0 || sy.Kind == sample.SynthPSB {
		flags = 0
	}
	// intel_pt_prep_b_sample: the address is the state's to IP for
	// every synth event, psb and cbr too (a PSB+ FUP's IP at a sync).
	*smp = sample.Sample{Ev: ev, Comm: t.Comm, PID: q.pid, TID: q.tid, CPU: uint32(q.cpu), Time: tm,
		Period: 1, IP: ip, Addr: st.ToIP, Flags: flags, InsnLen: q.insnLen, Insn: q.insn[:], Synth: sy}
	kernel := ip >= p.kernelStart
	if p.noIPLoc {
		smp.IPLoc = sample.Loc{Addr: ip}
	} else {
		smp.IPLoc = m.Resolve(t, kernel, ip)
	}
	p.deliver(smp, t, kernel)
}

// progress reports the AUX bytes decoded so far.
func (p *ptState) progress() {
	var done, total int64
	for _, q := range p.queues {
		for i := range q.bufs {
			total += int64(len(q.bufs[i].data) + q.bufs[i].size)
		}
		if q.dec != nil {
			done += int64(max(q.dec.Pos(), q.doneAt))
		}
	}
	p.flushBlocks()
	p.h.Progress(done, total)
}

// tscRange is a --time range in TSC ticks, 0 for an open end.
type tscRange struct{ start, end uint64 }

// setupTimeRange mirrors intel_pt_setup_time_range.
func (p *ptState) setupTimeRange(q *ptQueue) {
	if len(p.timeRanges) == 0 {
		return
	}
	q.selIdx = 0
	q.selTimestamp = p.timeRanges[0].start
	if q.selTimestamp != 0 {
		q.selStart = true
	} else {
		q.selTimestamp = p.timeRanges[0].end
		q.selStart = false
	}
}

// nextTime mirrors intel_pt_next_time: the end of the current range after
// its start, then the start of the next range.
func (q *ptQueue) nextTime() bool {
	r := q.pt.timeRanges
	if q.selStart {
		q.selStart = false
		q.selTimestamp = r[q.selIdx].end
		return true
	}
	if q.selIdx+1 < len(r) {
		q.selStart = true
		q.selIdx++
		q.selTimestamp = r[q.selIdx].start
		return true
	}
	return false
}

// timeFilter mirrors intel_pt_time_filter; true means stop decoding.
func (p *ptState) timeFilter(q *ptQueue, ff *uint64) bool {
	for {
		if q.selStart {
			if q.timestamp >= q.selTimestamp {
				q.nextTime()
				if q.selTimestamp == 0 {
					return false
				}
				continue
			}
			q.haveSample = false
			if q.selTimestamp > *ff {
				if q.syncSwitch {
					p.nextTID(q)
					q.switchState = ssUnknown
				}
				*ff = q.selTimestamp
				q.dec.FastForward(q.selTimestamp)
			}
			return false
		} else if q.timestamp > q.selTimestamp {
			if !q.nextTime() {
				q.haveSample = false
				q.switchState = ssNotTracing
				return true
			}
			continue
		}
		return false
	}
}

// tscStart mirrors intel_pt_tsc_start: the least TSC at or after ns.
func (tc *timeConv) tscStart(ns uint64) uint64 {
	tsc := tc.toTSC(ns)
	var tm uint64
	for {
		tm = tc.toPerf(tsc)
		if tm < ns {
			break
		}
		tsc--
	}
	for tm < ns {
		tsc++
		tm = tc.toPerf(tsc)
	}
	return tsc
}

// tscEnd mirrors intel_pt_tsc_end: the greatest TSC at or before ns.
func (tc *timeConv) tscEnd(ns uint64) uint64 {
	tsc := tc.toTSC(ns)
	var tm uint64
	for {
		tm = tc.toPerf(tsc)
		if tm > ns {
			break
		}
		tsc++
	}
	for tm > ns {
		tsc--
		tm = tc.toPerf(tsc)
	}
	return tsc
}
