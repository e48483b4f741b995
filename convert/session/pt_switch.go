package session

import (
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session/ptperf"
	"github.com/perfpt/perfpt/perfdata"
)

// perf's sync_switch (util/intel-pt.c): in a per-CPU recording of kernel
// code with context-switch sideband, a queue's thread changes where the
// trace branches to __switch_to, not where the switch record's time falls
// between two timing packets. The switch-out record (or sched:sched_switch
// sample) names the next thread; the decoder hands the queue over to it at
// the branch to __switch_to. The state of each queue says which of the two
// came first (enum switch_state).
const (
	ssNotTracing = iota
	ssUnknown
	ssTracing
	ssExpectingSwitchEvent
	ssExpectingSwitchIP
)

// switchStats count how queues changed threads under sync_switch (for
// the tests): at the switch IP after the switch record (atIP), or at the
// record after waiting at the switch IP (waited, resumed).
type switchStats struct{ atIP, waited, resumed int }

// initKernelStart mirrors the start of intel_pt_run_decoder: the first
// time a queue is decoded, sync_switch is turned on when the recording is
// per-CPU with switch sideband (have_sched_switch 1 or 3), timed, of kernel
// code and not sampling-mode, and the kernel map has a global __switch_to
// (intel_pt_switch_ip). It runs before a queue's parallel decode is
// considered, since sync_switch rules that out.
func (p *ptState) initKernelStart() {
	if p.kernelStartDone {
		return
	}
	p.kernelStartDone = true
	if !p.perCPU || p.sched != 1 && p.sched != 3 || p.timeless || !p.tracingKernel() || p.samplingMode {
		return
	}
	p.switchIP, p.ptssIP = p.findSwitchIP()
	if p.switchIP != 0 {
		p.enableSyncSwitch()
	}
}

// tracingKernel mirrors intel_pt_tracing_kernel: an intel_pt event does not
// exclude the kernel.
func (p *ptState) tracingKernel() bool {
	for _, a := range p.s.f.Attrs {
		if uint64(a.Type) == p.priv[ptPMUType] && a.Flags&perfdata.AttrFlagExcludeKernel == 0 {
			return true
		}
	}
	return false
}

// findSwitchIP mirrors intel_pt_switch_ip: the address of the first
// global __switch_to in the kernel map's symbols, and of
// perf_trace_sched_switch (with sched:sched_switch sideband) or
// __perf_event_task_sched_out (context switch records), where a queue in
// an unknown state learns it is tracing. Both must lie in the kernel map;
// no __switch_to means no sync_switch.
func (p *ptState) findSwitchIP() (switchIP, ptssIP uint64) {
	m := p.s.m
	switchIP = m.KernelMapFunc("__switch_to", true)
	if switchIP == 0 {
		return 0, 0
	}
	ptss := "__perf_event_task_sched_out"
	if p.sched == 1 {
		ptss = "perf_trace_sched_switch"
	}
	return switchIP, m.KernelMapFunc(ptss, false)
}

// enableSyncSwitch mirrors intel_pt_enable_sync_switch.
func (p *ptState) enableSyncSwitch() {
	p.syncSwitch = true
	for _, q := range p.queues {
		if q.dec != nil {
			q.syncSwitch = true
		}
	}
}

// isSwitchIP mirrors intel_pt_is_switch_ip: a plain branch (not
// conditional, asynchronous, an interrupt or a transaction abort) to
// __switch_to.
func (q *ptQueue) isSwitchIP(ip uint64) bool {
	return ip == q.pt.switchIP && q.flags&sample.FlagBranch != 0 &&
		q.flags&(sample.FlagConditional|sample.FlagAsync|sample.FlagInterrupt|sample.FlagTxAbort) == 0
}

// nextTID mirrors intel_pt_next_tid: the thread the switch record named
// becomes the CPU's and the queue's.
func (p *ptState) nextTID(q *ptQueue) {
	tid := q.nextTID
	if tid == -1 {
		return
	}
	p.setCurTID(q.cpu, -1, tid)
	p.setPidTidCPU(q)
	q.nextTID = -1
}

// switchState mirrors the end of intel_pt_sample: the queue's switch state
// after branch state st, whose samples are made. It returns true when the
// queue must wait for the switch record (it reached __switch_to first):
// intel_pt_sample's 1, which takes the queue off the heap.
func (p *ptState) switchState(q *ptQueue, st *ptperf.State) bool {
	switch {
	case q.isSwitchIP(st.ToIP):
		switch q.switchState {
		case ssNotTracing, ssUnknown, ssExpectingSwitchIP:
			if q.switchState == ssExpectingSwitchIP {
				p.switchStats.atIP++
			}
			p.nextTID(q)
			q.switchState = ssTracing
		default:
			p.switchStats.waited++
			q.switchState = ssExpectingSwitchEvent
			return true
		}
	case st.ToIP == 0:
		q.switchState = ssNotTracing
	case q.switchState == ssNotTracing:
		q.switchState = ssUnknown
	case q.switchState == ssUnknown && st.ToIP == p.ptssIP && q.flags&sample.FlagCall != 0:
		q.switchState = ssTracing
	}
	return false
}

// cpuQueue mirrors intel_pt_cpu_to_ptq: the queue of cpu, looked for at
// index cpu first, then below, then from the start. A queue that never
// had a buffer has cpu 0, as perf's zeroed auxtrace_queue.
func (p *ptState) cpuQueue(cpu int32) *ptQueue {
	n := len(p.queues)
	if cpu < 0 || n == 0 {
		return nil
	}
	qcpu := func(i int) int32 {
		if !p.queues[i].set {
			return 0
		}
		return p.queues[i].qcpu
	}
	i := int(cpu)
	if i >= n {
		i = n - 1
	}
	if qcpu(i) == cpu {
		return p.queues[i]
	}
	j := 0
	for ; i > 0; j++ {
		i--
		if qcpu(i) == cpu {
			return p.queues[i]
		}
	}
	for ; j < n; j++ {
		if qcpu(j) == cpu {
			return p.queues[j]
		}
	}
	return nil
}

// syncSwitchEvent mirrors intel_pt_sync_switch: a switch record says tid
// runs next on cpu at perf time tm. It returns false when the queue will
// switch threads at __switch_to instead of now.
func (p *ptState) syncSwitchEvent(cpu, tid int32, tm uint64) bool {
	if !p.syncSwitch {
		return true
	}
	q := p.cpuQueue(cpu)
	if q == nil || q.dec == nil || !q.syncSwitch {
		return true
	}
	switch q.switchState {
	case ssUnknown, ssTracing:
		q.nextTID = tid
		q.switchState = ssExpectingSwitchIP
		return false
	case ssExpectingSwitchEvent:
		p.switchStats.resumed++
		if !q.onHeap {
			q.setTimestamp(p.tc.toTSC(tm))
			p.heapAdd(q.nr, q.timestamp)
			q.onHeap = true
		}
		q.switchState = ssTracing
	}
	q.nextTID = -1
	return true
}

// contextSwitchIn mirrors the sync_switch part of
// intel_pt_context_switch_in: a switch-in record ends any wait.
func (p *ptState) contextSwitchIn(cpu int32) {
	if !p.syncSwitch {
		return
	}
	q := p.cpuQueue(cpu)
	if q == nil || q.dec == nil || !q.syncSwitch {
		return
	}
	q.nextTID = -1
	if q.switchState == ssExpectingSwitchEvent || q.switchState == ssExpectingSwitchIP {
		q.switchState = ssTracing
	}
}
