package query

// binding says which packet completes a pending event (libipt's enum
// pt_event_binding); an entry may wait for any of several.
type binding uint8

const (
	bindPSBEnd   binding = 1 << iota // PSBEND (or OVF) ends PSB+
	bindTIP                          // TIP, TIP.PGE or TIP.PGD
	bindFUP                          // a FUP that is not otherwise bound
	bindFUPBound                     // a FUP that belongs to this event
	bindExstop                       // EXSTOP (for MWAIT)
	bindCFE                          // CFE (for EVD)
	bindPwrx                         // PWRX (for PWRE)
	bindAll      binding = 0xff
)

// evqMax is the capacity of the pending-event ring (a power of two). One
// slot stays free so that a just dequeued event is not overwritten.
const evqMax = 16

type evqEntry struct {
	ev  Event
	evb binding
}

// eventQueue holds pending events, each waiting for its binding packet,
// plus one standalone event that is published at once. It is a plain
// value: copying it copies the queue.
type eventQueue struct {
	q          [evqMax]evqEntry
	begin, end uint8
	standalone Event
}

func evqInc(i uint8) uint8 { return (i + 1) % evqMax }
func evqDec(i uint8) uint8 { return (i - 1) % evqMax }

func (q *eventQueue) init() { q.begin, q.end = 0, 0 }

// newStandalone returns the cleared standalone event.
func (q *eventQueue) newStandalone() *Event {
	q.standalone = Event{}
	return &q.standalone
}

// enqueue appends a cleared event waiting for evb; nil when full.
func (q *eventQueue) enqueue(evb binding) *Event {
	idx := q.end
	end := evqInc(idx)
	if q.begin == evqInc(end) {
		return nil
	}
	q.end = end
	e := &q.q[idx]
	e.evb = evb
	e.ev = Event{}
	return &e.ev
}

// requeue appends a copy of ev waiting for evb; nil when full.
func (q *eventQueue) requeue(ev *Event, evb binding) *Event {
	c := *ev
	r := q.enqueue(evb)
	if r != nil {
		*r = c
	}
	return r
}

// dequeue removes and returns the oldest event waiting for any of evb,
// keeping the order of the others; nil if there is none. The returned
// event stays valid until the next enqueue.
func (q *eventQueue) dequeue(evb binding) *Event {
	begin, end := q.begin, q.end
	if begin == end {
		return nil
	}
	if q.q[begin].evb&evb != 0 {
		q.begin = evqInc(begin)
		return &q.q[begin].ev
	}
	idx := begin
	for {
		idx = evqInc(idx)
		if idx == end {
			return nil
		}
		if q.q[idx].evb&evb != 0 {
			break
		}
	}
	// Move the entries before it up by one and put it first.
	found := q.q[idx]
	for {
		prev := evqDec(idx)
		q.q[idx] = q.q[prev]
		if prev == begin {
			break
		}
		idx = prev
	}
	q.begin = idx
	q.q[begin] = found
	return &q.q[begin].ev
}

// pending reports whether an event waits for any of evb.
func (q *eventQueue) pending(evb binding) bool {
	for i := q.begin; i != q.end; i = evqInc(i) {
		if q.q[i].evb&evb != 0 {
			return true
		}
	}
	return false
}

// find returns the first event of type t waiting for any of evb, or nil.
func (q *eventQueue) find(evb binding, t EventType) *Event {
	for i := q.begin; i != q.end; i = evqInc(i) {
		if q.q[i].evb&evb != 0 && q.q[i].ev.Type == t {
			return &q.q[i].ev
		}
	}
	return nil
}

// peek returns the first event waiting for any of evb, or nil.
func (q *eventQueue) peek(evb binding) *Event {
	for i := q.begin; i != q.end; i = evqInc(i) {
		if q.q[i].evb&evb != 0 {
			return &q.q[i].ev
		}
	}
	return nil
}
