package perfdata

// slotOverhead is what a queued record costs beyond its copied bytes (a
// RawRecord and a heap entry), counted against Records.MaxQueueBytes.
const slotOverhead = 128

// qent is a heap entry of the ordered-events queue; the record itself is
// in orderedQueue.slots.
type qent struct {
	time uint64
	seq  uint64
	slot int32
}

func (a qent) less(b qent) bool {
	if a.time != b.time {
		return a.time < b.time
	}
	return a.seq < b.seq
}

// orderedQueue mirrors perf's ordered_events (util/ordered-events.c):
// records are kept sorted by time (stable for equal times); a
// FINISHED_ROUND flushes those not after nextFlush and then sets nextFlush
// to the largest time queued so far.
type orderedQueue struct {
	h         []qent
	slots     []RawRecord
	free      []int32
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

func (q *orderedQueue) up(i int) {
	h := q.h
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *orderedQueue) down(i int) {
	h := q.h
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r].less(h[l]) {
			m = r
		}
		if !h[m].less(h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// push queues raw; unless own, its bytes are copied (the copy is owned by
// the queue until the record is flushed).
func (q *orderedQueue) push(t uint64, raw *RawRecord, own bool) {
	if t < q.lastFlush {
		q.Unordered++
	}
	if len(q.h) == 0 || t > q.maxTime {
		q.maxTime = t
	}
	var slot int32
	if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		slot = int32(len(q.slots))
		q.slots = append(q.slots, RawRecord{})
	}
	e := &q.slots[slot]
	if own {
		*e = *raw
	} else {
		data, aux := e.Data[:0], e.AuxData[:0]
		*e = *raw
		e.Data = append(data, raw.Data...)
		e.AuxData = nil
		if raw.AuxData != nil {
			e.AuxData = append(aux, raw.AuxData...)
		}
		q.bytes += len(raw.Data) + len(raw.AuxData)
	}
	e.owned = !own
	q.bytes += slotOverhead
	q.h = append(q.h, qent{time: t, seq: q.seq, slot: slot})
	q.seq++
	q.up(len(q.h) - 1)
}

// flushTo moves every queued record with time <= limit to out, in order.
// Records appended to out stay valid until the next push.
func (q *orderedQueue) flushTo(limit uint64, out []RawRecord) []RawRecord {
	if limit == 0 {
		return out
	}
	for len(q.h) > 0 && q.h[0].time <= limit {
		top := q.h[0]
		last := len(q.h) - 1
		q.h[0] = q.h[last]
		q.h = q.h[:last]
		if last > 0 {
			q.down(0)
		}
		q.lastFlush = top.time
		e := &q.slots[top.slot]
		q.bytes -= slotOverhead
		if e.owned {
			q.bytes -= len(e.Data) + len(e.AuxData)
		}
		out = append(out, *e)
		q.free = append(q.free, top.slot)
	}
	return out
}

// round handles a FINISHED_ROUND.
func (q *orderedQueue) round(out []RawRecord) []RawRecord {
	if len(q.h) == 0 {
		return out
	}
	out = q.flushTo(q.nextFlush, out)
	q.nextFlush = q.maxTime
	return out
}

// half flushes the older half of the queued time range (perf's
// OE_FLUSH__HALF, used when the queue grows past its memory limit).
func (q *orderedQueue) half(out []RawRecord) []RawRecord {
	if len(q.h) == 0 {
		return out
	}
	first := q.h[0].time
	return q.flushTo(first+(q.maxTime-first)/2, out)
}

// final flushes everything.
func (q *orderedQueue) final(out []RawRecord) []RawRecord {
	return q.flushTo(^uint64(0), out)
}
