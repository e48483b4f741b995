package session

import "github.com/perfpt/perfpt/perfdata"

// AUX sampling (perf record --aux-sample): the trace comes in the
// PERF_SAMPLE_AUX data of another event's samples, each the last bytes
// the AUX area held then, and perf decodes those windows as it decodes
// snapshots (intel_pt_sampling_mode: the buffers may overlap).

// noteIDIndex mirrors perf_event__process_id_index: the queue, CPU and
// thread of each sample id.
func (p *ptState) noteIDIndex(r *perfdata.RecordIDIndex) {
	if p.sidIndex == nil {
		p.sidIndex = map[uint64]perfdata.IDIndexEntry{}
	}
	for _, e := range r.Entries {
		p.sidIndex[e.ID] = e
	}
}

// queueSample mirrors intel_pt_queue_data and auxtrace_queues__add_sample
// for a sample with AUX data: a buffer for the queue of the sample's id
// (its mmap index; without an ID_INDEX record perf knows none but 0, on
// CPU 0 for thread 0), whose reference is the sample's time in TSC.
func (p *ptState) queueSample(r *perfdata.RecordSample) {
	c := r.Common()
	if c.ID == 0 || c.Attr == nil {
		return // perf: -EINVAL or -ENOENT, and no data queued
	}
	var idx, tid, cpu int64
	if e, ok := p.sidIndex[c.ID]; ok {
		idx, tid, cpu = int64(e.Idx), int64(e.TID), int64(e.CPU)
	}
	var ts uint64
	if c.Time != 0 && c.Time != ^uint64(0) {
		ts = p.tc.toTSC(c.Time)
	}
	b := &perfdata.RecordAuxtrace{AuxSize: uint64(len(r.Aux)), Reference: ts, Idx: uint32(idx), TID: int32(tid), CPU: int32(cpu),
		Data: r.Aux, DataOffset: -1}
	if !c.Compressed {
		// The AUX data ends the sample record.
		b.DataOffset = c.Offset + int64(c.Size) - int64(len(r.Aux))
	} else {
		b.Data = append([]byte(nil), r.Aux...)
	}
	p.queueBuffer(b)
}

// processTimelessSample mirrors intel_pt_process_timeless_sample: without
// timestamps, each sample with AUX data decodes its queue's next buffer
// (the one it queued) for the sample's thread.
func (p *ptState) processTimelessSample(r *perfdata.RecordSample) {
	c := r.Common()
	if c.ID == 0 || c.Attr == nil {
		return
	}
	var idx uint64
	if e, ok := p.sidIndex[c.ID]; ok {
		idx = e.Idx
	}
	if idx >= uint64(len(p.queues)) {
		return
	}
	q := p.queues[idx]
	if q.dec == nil {
		return
	}
	q.stop = false
	// intel_pt_sample_set_pid_tid_cpu
	q.pid, q.tid, q.cpu = c.PID, c.TID, q.qcpu
	q.thread = nil
	m := p.s.m
	switch {
	case q.tid == -1:
	case q.pid == -1:
		if q.thread = m.FindThread(q.tid); q.thread != nil {
			q.pid = q.thread.PID
		}
	default:
		q.thread = m.FindNewThread(q.pid, q.tid)
	}
	q.rq.lim = 0
	var ts uint64
	p.runDecoder(q, &ts)
}
