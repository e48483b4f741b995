package session

import (
	"sort"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/perfdata"
)

// The thread of a per-CPU queue.
//
// A per-CPU queue decodes for the thread the sideband last put on its CPU
// (ITRACE_START and switch records, intel_pt_set_pid_tid_cpu), read
// where runDecoder starts. Records are processed in time order and a
// queue stops at the first state whose timestamp reaches the next
// record's time, so the runs walked after a state of timestamp ts belong
// to the thread that the records up to ts put on the CPU (sync_switch
// aside, where the thread changes at __switch_to). A chunk decoded ahead
// (pt_par.go) follows that thread by its own timestamp, from the CPU's
// list of thread changes made once from the sideband: so it walks the
// code of the right thread, and with Handler.Runs batches its runs for
// it.
//
// A run that waits for its successor when its CPU's thread changes keeps
// none: the next run walked there is another thread's (setCurTID).

// tidChange is a change of the thread on a CPU: from queue timestamp ts
// (TSC), pid/tid (t: the thread, once resolved).
type tidChange struct {
	ts       uint64
	pid, tid int32
	t        *machine.Thread
}

// setCurTID mirrors machine__set_current_tid for cpu, which also makes
// the thread pid/tid when there is none (machine__findnew_thread): a
// thread that only the switch records name then has their pid, as its
// samples print it. A queue of that CPU whose run waits for its successor
// sees it end there when the thread is another.
func (p *ptState) setCurTID(cpu, pid, tid int32) {
	p.curTID[cpu] = [2]int32{pid, tid}
	if cpu >= 0 {
		p.s.m.FindNewThread(pid, tid)
	}
	for _, q := range p.queues {
		if q.dec != nil && q.qcpu == cpu && q.qcpu != -1 && q.tid != tid && q.hasPend {
			q.flushPend(0, 0)
		}
	}
}

// noteSwitch adds what record r does to its CPU's thread to the CPU's
// list of changes (queueIndex, in file order: a CPU's sideband comes from
// its own ring buffer, in time order; the lists are sorted by time
// again before use). sync_switch does not use them.
func (p *ptState) noteSwitch(r perfdata.Record) {
	if !p.perCPU {
		return
	}
	c := r.Common()
	cpu := int32(c.CPU)
	var pid, tid int32
	switch rr := r.(type) {
	case *perfdata.RecordItraceStart:
		pid, tid = rr.PID, rr.TID
	case *perfdata.RecordSwitch:
		if p.noteTID == nil {
			p.noteTID = map[int32]int32{}
		}
		cur, known := p.noteTID[cpu]
		var set bool
		pid, tid, set, _ = switchTID(p.sched, rr, c, cur, known)
		if !set {
			return
		}
	default:
		return
	}
	if p.noteTID == nil {
		p.noteTID = map[int32]int32{}
	}
	p.noteTID[cpu] = tid
	if p.cpuChanges == nil {
		p.cpuChanges = map[int32][]tidChange{}
	}
	var ts uint64
	if c.Format&perfdata.SampleFormatTime != 0 && c.Time != 0 && c.Time != ^uint64(0) {
		ts = p.tc.toTSC(c.Time)
	}
	p.cpuChanges[cpu] = append(p.cpuChanges[cpu], tidChange{ts: ts, pid: pid, tid: tid})
}

// resolveChanges sorts the CPUs' lists of thread changes by time and finds
// their threads, once every record that makes threads has been processed
// (on the Run goroutine, before chunks read them).
func (p *ptState) resolveChanges() {
	if p.changesResolved {
		return
	}
	p.changesResolved = true
	m := p.s.m
	for _, l := range p.cpuChanges {
		sort.SliceStable(l, func(i, j int) bool { return l[i].ts < l[j].ts })
		for i := range l {
			if l[i].tid != -1 {
				l[i].t = m.FindThread(l[i].tid)
			}
		}
	}
}

// setThread is setPidTidCPU for a per-CPU queue whose CPU runs tid (t: its
// thread, nil if none is known).
func (q *ptQueue) setThread(pid, tid int32, t *machine.Thread) {
	q.tid = tid
	if tid == -1 {
		q.pid = -1
	}
	q.thread = t
	if t != nil {
		q.pid = t.PID
		if q.qcpu == -1 {
			q.cpu = -1
		}
	}
	q.rq.lim = 0
}

// startSwitches gives the copy jq of a per-CPU queue, decoding a chunk
// from timestamp jq.timestamp, the thread its CPU runs then.
func (p *ptState) startSwitches(jq *ptQueue) {
	if jq.qtid != -1 || !p.perCPU {
		return
	}
	l := p.cpuChanges[jq.qcpu]
	i := sort.Search(len(l), func(i int) bool { return l[i].ts > jq.timestamp })
	jq.chg, jq.chgNext, jq.follow = l, i, true
	if i == 0 {
		jq.setThread(-1, -1, nil)
		return
	}
	c := &l[i-1]
	jq.setThread(c.pid, c.tid, c.t)
}

// followSwitches applies the thread changes of the CPU of chunk copy q up
// to its timestamp (after a state where runDecoder may stop): a run
// waiting for its successor ends where the thread changes, and the runs
// so far are a batch of their own, handed over before the replay may
// stop here (pt_par.go).
func (q *ptQueue) followSwitches() {
	for q.chgNext < len(q.chg) && q.chg[q.chgNext].ts <= q.timestamp {
		c := &q.chg[q.chgNext]
		q.chgNext++
		if c.tid == q.tid {
			continue
		}
		if q.hasPend || q.virt {
			q.resolveFrom(0, 0)
		}
		if q.rq.n > 0 {
			q.newRunBatch()
		}
		q.setThread(c.pid, c.tid, c.t)
	}
}
