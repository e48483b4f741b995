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
// record is appended to a run, a FIFO in order, whose last record is not
// after it (the run used last first), or starts a new run (a CPU's
// buffer); only when maxRuns runs are in use does it go into the heap h.
// The next record is the least of the runs' heads and h's top, so the
// order is the one a single heap gives (records are ordered by time and
// sequence, and each run is), but a round of a hundred thousand records
// from a few CPUs costs no heap walks, and the runs' arrays are reused
// from round to round.
type orderedQueue struct {
	h          []qent
	runs       []qrun
	freeChunks [][]qent
	lastRun    int           // the run appended to last
	n          int           // records queued
	slots      [][]RawRecord // in chunks of slotChunk
	nslots     int32
	free       []int32
	seq        uint64
	nextFlush  uint64
	maxTime    uint64
	lastFlush  uint64
	bytes      int
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
	// offset alone, without a slot, and rebuilt from it when it is
	// flushed.
	mem []byte
}

func newOrderedQueue() *orderedQueue { return &orderedQueue{} }

// qrun is one run of entries in order: in chunks of runChunk entries
// (taken from and given back to orderedQueue.freeChunks, so that a queue
// of a million records is neither copied as it grows nor allocated again
// round after round), from at in the first.
type qrun struct {
	chunks [][]qent
	at     int
}

// maxRuns bounds the runs (the heads compared for each record flushed).
const maxRuns = 8

// runChunk is the number of entries in a chunk of a run.
const runChunk = 4096

func (r *qrun) empty() bool {
	return len(r.chunks) == 0 || len(r.chunks) == 1 && r.at == len(r.chunks[0])
}

// tail returns the run's last entry; ok is false when it is empty.
func (r *qrun) tail() (qent, bool) {
	if r.empty() {
		return qent{}, false
	}
	c := r.chunks[len(r.chunks)-1]
	return c[len(c)-1], true
}

// head returns the run's first entry (the run is not empty).
func (r *qrun) head() *qent { return &r.chunks[0][r.at] }

// put appends e to the run.
func (q *orderedQueue) put(r *qrun, e qent) {
	if n := len(r.chunks); n == 0 || len(r.chunks[n-1]) == runChunk {
		var c []qent
		if k := len(q.freeChunks); k > 0 {
			c = q.freeChunks[k-1][:0]
			q.freeChunks = q.freeChunks[:k-1]
		} else {
			c = make([]qent, 0, runChunk)
		}
		r.chunks = append(r.chunks, c)
	}
	c := &r.chunks[len(r.chunks)-1]
	*c = append(*c, e)
}

// drop removes the run's first entry.
func (q *orderedQueue) drop(r *qrun) {
	r.at++
	if r.at < len(r.chunks[0]) {
		return
	}
	r.at = 0
	if len(r.chunks) == 1 {
		r.chunks[0] = r.chunks[0][:0]
		return
	}
	q.freeChunks = append(q.freeChunks, r.chunks[0])
	r.chunks = r.chunks[:copy(r.chunks, r.chunks[1:])]
}

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
	if pos := raw.Offset - q.pinOrigin; own && q.mem != nil && !raw.Compressed && raw.Source == 0 && pos >= 0 &&
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

// add puts ent in a run or the heap.
func (q *orderedQueue) add(ent qent) {
	q.n++
	if q.lastRun < len(q.runs) {
		if r := &q.runs[q.lastRun]; r.empty() || ent.time >= r.chunks[len(r.chunks)-1][len(r.chunks[len(r.chunks)-1])-1].time {
			q.put(r, ent)
			return
		}
	}
	// The run whose last record is latest but not after ent (which
	// keeps the runs few), else an empty one, else a new one.
	best, empty := -1, -1
	var bestTime uint64
	for i := range q.runs {
		last, ok := q.runs[i].tail()
		switch {
		case !ok:
			if empty < 0 {
				empty = i
			}
		case last.time <= ent.time && (best < 0 || last.time > bestTime):
			best, bestTime = i, last.time
		}
	}
	switch {
	case best >= 0:
	case empty >= 0:
		best = empty
	case len(q.runs) < maxRuns:
		q.runs = append(q.runs, qrun{})
		best = len(q.runs) - 1
	default:
		q.h = append(q.h, ent)
		q.up(len(q.h) - 1)
		return
	}
	q.lastRun = best
	q.put(&q.runs[best], ent)
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
func (q *orderedQueue) len() int { return q.n }

// first returns the next record's entry, from run src or, with src -1,
// the heap; ok is false when the queue is empty.
func (q *orderedQueue) first() (e qent, src int, ok bool) {
	src = -2
	for i := range q.runs {
		r := &q.runs[i]
		if !r.empty() && (src == -2 || r.head().less(e)) {
			e, src = *r.head(), i
		}
	}
	if len(q.h) > 0 && (src == -2 || q.h[0].less(e)) {
		e, src = q.h[0], -1
	}
	return e, src, src != -2
}

// pop removes the entry first returned.
func (q *orderedQueue) pop(src int) {
	q.n--
	if src >= 0 {
		q.drop(&q.runs[src])
		return
	}
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	if last > 0 {
		q.down(0)
	}
}

// popInto removes the next record if its time is not after limit and
// sets *dst to it (its bytes valid until the next push).
func (q *orderedQueue) popInto(limit uint64, dst *RawRecord) bool {
	top, src, ok := q.first()
	if !ok || top.time > limit || limit == 0 {
		return false
	}
	q.pop(src)
	q.lastFlush = top.time
	q.bytes -= slotOverhead
	if top.ref >= 0 {
		// Rebuilt in *dst field by field (a record built aside and
		// copied stalled on its fresh stores).
		pos := int(top.ref)
		header(dst, q.mem[pos:], q.pinOrigin+top.ref)
		dst.Data = q.mem[pos : pos+dst.Size]
		dst.owned, dst.Source = false, 0
		if dst.Type == RecordTypeAuxtrace || dst.Type == RecordTypeHeaderTracing {
			n, _ := payloadSize(dst)
			dst.AuxData = q.mem[pos+dst.Size : pos+dst.Size+int(n)]
		}
		if q.pinning {
			q.pins[q.region(dst.Offset)-q.pinBase]--
		}
		return true
	}
	slot := int32(^top.ref)
	e := q.slot(slot)
	if e.owned {
		q.bytes -= len(e.Data) + len(e.AuxData)
	} else if q.pinning {
		q.pins[q.region(e.Offset)-q.pinBase]--
	}
	q.free = append(q.free, slot)
	*dst = *e
	return true
}

// flushTo moves every queued record with time <= limit to out, in order.
// Records appended to out stay valid until the next push.
func (q *orderedQueue) flushTo(limit uint64, out []RawRecord) []RawRecord {
	for {
		out = append(out, RawRecord{})
		if !q.popInto(limit, &out[len(out)-1]) {
			return out[:len(out)-1]
		}
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
