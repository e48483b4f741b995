package perfdata

// slotOverhead is what a queued record costs beyond its copied bytes (a
// RawRecord and a heap entry), counted against Records.MaxQueueBytes.
const slotOverhead = 128

// qent is a heap entry of the ordered-events queue; the record itself is
// in orderedQueue.slots.
type qent struct {
	time uint64
	seq  uint64
	// ref is, from 0 up, the record's offset in the mapped data section
	// (orderedQueue.mem), which it is read from again when flushed;
	// below 0, ^ref is its slot.
	ref int64
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
//
// Records mostly come in time order (one buffer's records are in order;
// only the switch from one CPU's buffer to the next goes back in time): a
// record not before the last one of the run is appended to run, a FIFO,
// and only the others go into the heap h. The next record is the lesser
// of run's head and h's top, so the order is the one a single heap gives,
// but a round of a hundred thousand records in order costs no heap walks.
type orderedQueue struct {
	h         []qent
	run       []qent // in order, from runAt on
	runAt     int
	slots     [][]RawRecord // in chunks of slotChunk
	nslots    int32
	free      []int32
	seq       uint64
	nextFlush uint64
	maxTime   uint64
	lastFlush uint64
	bytes     int
	// Pins of the file mapping (pinning): a record queued as a slice
	// of the mapping (not owned) keeps its dropStep region of the data
	// section, and every one after it, from being given back by the
	// reader (rawReader.nextMem), which would map its pages again,
	// behind the reader, when it is decoded. pins[i] counts the queued
	// records that start in region pinBase+i; pinOrigin is the data
	// section's file offset.
	pinning   bool
	pins      []int32
	pinBase   int
	pinOrigin int64
	// Unordered counts records queued with a time below the last flush
	// (perf's "Timestamp below last timeslice flush").
	Unordered int

	// mem is the mapped data section (at file offset pinOrigin), when
	// records are read from a mapping: a record in it is queued by its
	// offset alone, without a slot, and out is the record rebuilt from
	// it when it is flushed.
	mem []byte
	out RawRecord
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
	if q.len() == 0 || t > q.maxTime {
		q.maxTime = t
	}
	ent := qent{time: t, seq: q.seq}
	q.seq++
	q.bytes += slotOverhead
	if pos := raw.Offset - q.pinOrigin; own && q.mem != nil && !raw.Compressed && pos >= 0 &&
		pos+int64(len(raw.Data))+int64(len(raw.AuxData)) <= int64(len(q.mem)) {
		ent.ref = pos
		if q.pinning {
			q.pin(raw.Offset)
		}
		q.add(ent)
		return
	}
	var slot int32
	if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		slot = q.nslots
		if int(slot)%slotChunk == 0 {
			q.slots = append(q.slots, make([]RawRecord, slotChunk))
		}
		q.nslots++
	}
	e := q.slot(slot)
	if own {
		*e = *raw
	} else {
		data, aux := e.Data[:0], e.AuxData[:0]
		if cap(data) < len(raw.Data) {
			// Room for most records of a kind a little bigger later.
			data = make([]byte, 0, max(len(raw.Data), minSlotData))
		}
		*e = *raw
		e.Data = append(data, raw.Data...)
		e.AuxData = nil
		if raw.AuxData != nil {
			e.AuxData = append(aux, raw.AuxData...)
		}
		q.bytes += len(raw.Data) + len(raw.AuxData)
	}
	e.owned = !own
	if own && q.pinning {
		q.pin(raw.Offset)
	}
	ent.ref = ^int64(slot)
	q.add(ent)
}

// add puts ent in the run or the heap.
func (q *orderedQueue) add(ent qent) {
	t := ent.time
	if n := len(q.run); n == q.runAt || t >= q.run[n-1].time {
		if n == cap(q.run) && q.runAt >= n/2 {
			// The queue seldom empties (a round's records wait for
			// the next): move the run down rather than grow it.
			q.run = q.run[:copy(q.run, q.run[q.runAt:])]
			q.runAt = 0
		}
		q.run = append(q.run, ent)
		return
	}
	q.h = append(q.h, ent)
	q.up(len(q.h) - 1)
}

// region returns the dropStep region of the data section that the record
// at file offset off starts in.
func (q *orderedQueue) region(off int64) int { return int((off - q.pinOrigin) / dropStep) }

// pin counts a record at file offset off (records are pushed in file
// order: its region is not below any pinned).
func (q *orderedQueue) pin(off int64) {
	r := q.region(off)
	if len(q.pins) == 0 {
		q.pins, q.pinBase = q.pins[:0], r
	}
	for r-q.pinBase >= len(q.pins) {
		q.pins = append(q.pins, 0)
	}
	q.pins[r-q.pinBase]++
}

// pinnedFrom returns the offset in the data section from which its pages
// must stay mapped for the records queued (ok false: none).
func (q *orderedQueue) pinnedFrom() (int, bool) {
	n := 0
	for n < len(q.pins) && q.pins[n] == 0 {
		n++
	}
	if n > 0 {
		q.pinBase += n
		q.pins = q.pins[:copy(q.pins, q.pins[n:])]
	}
	if len(q.pins) == 0 {
		return 0, false
	}
	return q.pinBase * dropStep, true
}

// minSlotData is the least room a slot's copy of a record gets.
const minSlotData = 128

// slotChunk is how many slots are allocated at a time: the slots are
// never moved (a round can queue hundreds of thousands of records, which
// a growing slice copied again and again).
const slotChunk = 4096

// slot returns slot i.
func (q *orderedQueue) slot(i int32) *RawRecord { return &q.slots[i/slotChunk][i%slotChunk] }

// len returns how many records are queued.
func (q *orderedQueue) len() int { return len(q.h) + len(q.run) - q.runAt }

// first returns the next record's entry, from the run or the heap; ok is
// false when the queue is empty.
func (q *orderedQueue) first() (e qent, fromRun, ok bool) {
	switch {
	case q.runAt < len(q.run) && (len(q.h) == 0 || q.run[q.runAt].less(q.h[0])):
		return q.run[q.runAt], true, true
	case len(q.h) > 0:
		return q.h[0], false, true
	}
	return qent{}, false, false
}

// pop removes the entry first returned.
func (q *orderedQueue) pop(fromRun bool) {
	if fromRun {
		q.runAt++
		if q.runAt == len(q.run) {
			q.run, q.runAt = q.run[:0], 0
		}
		return
	}
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	if last > 0 {
		q.down(0)
	}
}

// popTo removes the next record if its time is not after limit and
// returns it; it stays valid until the next push.
func (q *orderedQueue) popTo(limit uint64) (*RawRecord, bool) {
	top, fromRun, ok := q.first()
	if !ok || top.time > limit || limit == 0 {
		return nil, false
	}
	q.pop(fromRun)
	q.lastFlush = top.time
	q.bytes -= slotOverhead
	if top.ref >= 0 {
		e := &q.out
		pos := int(top.ref)
		header(e, q.mem[pos:], q.pinOrigin+top.ref)
		e.Data = q.mem[pos : pos+e.Size]
		e.owned = false
		if e.Type == RecordTypeAuxtrace || e.Type == RecordTypeHeaderTracing {
			n, _ := payloadSize(e)
			e.AuxData = q.mem[pos+e.Size : pos+e.Size+int(n)]
		}
		if q.pinning {
			q.pins[q.region(e.Offset)-q.pinBase]--
		}
		return e, true
	}
	slot := int32(^top.ref)
	e := q.slot(slot)
	if e.owned {
		q.bytes -= len(e.Data) + len(e.AuxData)
	} else if q.pinning {
		q.pins[q.region(e.Offset)-q.pinBase]--
	}
	q.free = append(q.free, slot)
	return e, true
}

// flushTo moves every queued record with time <= limit to out, in order.
// Records appended to out stay valid until the next push.
func (q *orderedQueue) flushTo(limit uint64, out []RawRecord) []RawRecord {
	for {
		e, ok := q.popTo(limit)
		if !ok {
			return out
		}
		out = append(out, *e)
	}
}

// roundLimit handles a FINISHED_ROUND: it returns the time up to which
// records are flushed (0: none).
func (q *orderedQueue) roundLimit() uint64 {
	if q.len() == 0 {
		return 0
	}
	limit := q.nextFlush
	q.nextFlush = q.maxTime
	return limit
}

// halfLimit returns the time up to which the older half of the queued
// time range is flushed (perf's OE_FLUSH__HALF, used when the queue grows
// past its memory limit).
func (q *orderedQueue) halfLimit() uint64 {
	top, _, ok := q.first()
	if !ok {
		return 0
	}
	return top.time + (q.maxTime-top.time)/2
}

// round, half and final flush to out as roundLimit, halfLimit and the end
// of the input say.
func (q *orderedQueue) round(out []RawRecord) []RawRecord { return q.flushTo(q.roundLimit(), out) }
func (q *orderedQueue) half(out []RawRecord) []RawRecord  { return q.flushTo(q.halfLimit(), out) }
func (q *orderedQueue) final(out []RawRecord) []RawRecord { return q.flushTo(^uint64(0), out) }
