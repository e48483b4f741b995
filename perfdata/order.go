package perfdata

import "container/heap"

// queued is a record held by the ordered-events queue.
type queued struct {
	time uint64
	seq  uint64
	raw  RawRecord
}

// orderedQueue mirrors perf's ordered_events (util/ordered-events.c):
// records are kept sorted by time (stable for equal times); a
// FINISHED_ROUND flushes those not after nextFlush and then sets nextFlush
// to the largest time queued so far.
type orderedQueue struct {
	h         queueHeap
	seq       uint64
	nextFlush uint64
	maxTime   uint64
	lastFlush uint64
	bytes     int
	// Unordered counts records queued with a time below the last flush
	// (perf's "Timestamp below last timeslice flush").
	Unordered int
}

func newOrderedQueue() *orderedQueue { return &orderedQueue{} }

type queueHeap []*queued

func (h queueHeap) Len() int { return len(h) }
func (h queueHeap) Less(i, j int) bool {
	if h[i].time != h[j].time {
		return h[i].time < h[j].time
	}
	return h[i].seq < h[j].seq
}
func (h queueHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *queueHeap) Push(x any)   { *h = append(*h, x.(*queued)) }
func (h *queueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

// push queues a copy of raw (the copy owns its bytes).
func (q *orderedQueue) push(t uint64, raw *RawRecord, own bool) {
	if t < q.lastFlush {
		q.Unordered++
	}
	if q.h.Len() == 0 || t > q.maxTime {
		q.maxTime = t
	}
	e := &queued{time: t, seq: q.seq, raw: *raw}
	q.seq++
	if !own {
		e.raw.Data = append([]byte(nil), raw.Data...)
		if raw.AuxData != nil {
			e.raw.AuxData = append([]byte(nil), raw.AuxData...)
		}
		q.bytes += len(raw.Data) + len(raw.AuxData)
	}
	heap.Push(&q.h, e)
}

// flushTo moves every queued record with time <= limit to out, in order.
func (q *orderedQueue) flushTo(limit uint64, out []RawRecord) []RawRecord {
	if limit == 0 {
		return out
	}
	for q.h.Len() > 0 && q.h[0].time <= limit {
		e := heap.Pop(&q.h).(*queued)
		q.lastFlush = e.time
		q.bytes -= len(e.raw.Data) + len(e.raw.AuxData)
		if q.bytes < 0 {
			q.bytes = 0
		}
		out = append(out, e.raw)
	}
	return out
}

// round handles a FINISHED_ROUND.
func (q *orderedQueue) round(out []RawRecord) []RawRecord {
	if q.h.Len() == 0 {
		return out
	}
	out = q.flushTo(q.nextFlush, out)
	q.nextFlush = q.maxTime
	return out
}

// half flushes the older half of the queued time range (perf's
// OE_FLUSH__HALF, used when the queue grows past its memory limit).
func (q *orderedQueue) half(out []RawRecord) []RawRecord {
	if q.h.Len() == 0 {
		return out
	}
	first := q.h[0].time
	return q.flushTo(first+(q.maxTime-first)/2, out)
}

// final flushes everything.
func (q *orderedQueue) final(out []RawRecord) []RawRecord {
	return q.flushTo(^uint64(0), out)
}
