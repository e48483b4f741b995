package query

import "github.com/perfpt/perfpt/ptdecode/timing"

// Status flags accompany successful Query results (libipt's enum
// pt_status_flag).
type Status uint8

const (
	// StatusEventPending: an event is pending; call Query.Event before
	// the next branch query.
	StatusEventPending Status = 1 << iota
	// StatusIPSuppressed: the IP was suppressed (tracing disabled, or a
	// TIP without IP).
	StatusIPSuppressed
	// StatusEOS: the trace has no more data.
	StatusEOS
)

// eventInvalid marks the query's current event after a decode error, as
// libipt fills it with 0xff: it is reported as pending so that the next
// Event call returns the error.
const eventInvalid EventType = 0xff

// A query that does not match the trace (a conditional-branch query when
// the trace has an indirect branch next, ...) fails with the bare Code
// CodeBadQuery, without allocating: a caller may probe.
//
// Query answers the questions of an instruction-flow decoder about the
// trace (libipt's pt_query_decoder): was this conditional branch taken,
// where did this indirect branch go, what happened in between. It sits on
// a Decoder, caches TNT bits and keeps the next event ready so that it can
// tell when one is pending. It is a plain value like Decoder.
type Query struct {
	dec      Decoder
	tnt      tntCache
	lastTime timing.Time // the time at the last query
	ev       Event       // the next event, read ahead
	status   error       // the error that stopped the event decoder, if any
}

// NewQuery returns a query decoder for buf; synchronise it before use.
func NewQuery(buf []byte, cfg *Config) *Query {
	q := new(Query)
	q.Init(buf, cfg)
	return q
}

// Init prepares q like NewQuery, for decoders embedded by value.
func (q *Query) Init(buf []byte, cfg *Config) {
	*q = Query{}
	q.dec.Init(buf, cfg)
	q.reset()
}

// Decoder returns the underlying event decoder (for Offset, SetEnd, ...).
func (q *Query) Decoder() *Decoder { return &q.dec }

func (q *Query) reset() {
	q.status = &Error{Code: CodeNoSync}
	q.tnt = tntCache{}
	q.lastTime.Reset()
	q.ev = Event{Type: eventInvalid}
}

// SyncForward synchronises at the next PSB and returns the IP at which
// tracing starts, with StatusIPSuppressed if tracing is disabled there
// (libipt's pt_qry_sync_forward). The PSB+ state is then available as
// status-update events.
func (q *Query) SyncForward() (uint64, Status, error) {
	q.reset()
	if err := q.dec.SyncForward(); err != nil {
		return 0, 0, err
	}
	return q.start()
}

// SyncSet synchronises at the PSB at off (libipt's pt_qry_sync_set).
func (q *Query) SyncSet(off uint64) (uint64, Status, error) {
	q.reset()
	if err := q.dec.SyncSet(off); err != nil {
		return 0, 0, err
	}
	return q.start()
}

// SyncBackward synchronises at the previous PSB, skipping PSBs whose
// trace segment is cut short by the end of the trace (libipt's
// pt_qry_sync_backward).
func (q *Query) SyncBackward() (uint64, Status, error) {
	start := q.dec.Pos()
	if !q.dec.synced() {
		start = uint64(len(q.dec.Buffer()))
	}
	sync := start
	for {
		q.reset()
		for {
			if err := q.dec.SyncBackward(); err != nil {
				return 0, 0, err
			}
			if q.dec.Pos() < sync {
				break
			}
		}
		sync = q.dec.Pos()
		ip, st, err := q.start()
		if err != nil {
			// A segment needs a complete PSB+ to start.
			if CodeOf(err) != CodeEOS {
				return 0, 0, err
			}
			continue
		}
		// Starting inside or right after PSB+ we may reach the same PSB
		// again; go further back then.
		if q.dec.Pos() < start {
			return ip, st, nil
		}
	}
}

// start reads the status updates of the PSB+ just synchronised to, on a
// copy of the decoder, to find the start IP, then reads the first event.
func (q *Query) start() (uint64, Status, error) {
	dec := q.dec
	var ev Event
	var ip uint64
	st := StatusIPSuppressed
	for dec.Pos() == q.dec.Pos() {
		if err := dec.Next(&ev); err != nil {
			if CodeOf(err) != CodeEOS {
				return 0, 0, err
			}
			break
		}
		if !ev.StatusUpdate {
			break
		}
		if ev.Type == EventEnabled {
			st &^= StatusIPSuppressed
			ip = ev.IP
			break
		}
	}
	q.status = nil
	q.fetchEvent()
	return ip, st | q.flags(), nil
}

// fetchEvent reads the next event ahead, or records the error.
func (q *Query) fetchEvent() {
	if err := q.dec.Next(&q.ev); err != nil {
		q.status = err
		q.ev = Event{Type: eventInvalid}
	}
}

// flags computes the status flags. Events are only announced once the
// cached TNT bits are used up: the packets that produced them may come
// after those branches.
func (q *Query) flags() Status {
	if !q.tnt.empty() {
		return 0
	}
	if q.status != nil && CodeOf(q.status) == CodeEOS {
		return StatusEOS
	}
	if q.ev.Type != EventTNT && q.ev.Type != EventTIP {
		return StatusEventPending
	}
	return 0
}

// cacheTNT moves the bits of a TNT event into the cache.
func (q *Query) cacheTNT() error {
	if q.status != nil {
		return q.status
	}
	if q.ev.Type != EventTNT {
		return nil
	}
	if c := q.tnt.add(q.ev.Bits, q.ev.Size); c != CodeOK {
		return &Error{Code: c, Offset: q.dec.Offset()}
	}
	q.fetchEvent()
	return nil
}

// CondBranch returns whether the next conditional branch was taken
// (libipt's pt_qry_cond_branch). It fails with CodeBadQuery if the trace
// has an indirect branch or event next.
func (q *Query) CondBranch() (bool, Status, error) {
	taken, ok := q.tnt.take()
	if !ok {
		q.lastTime = q.dec.clock.t
		if err := q.cacheTNT(); err != nil {
			return false, 0, err
		}
		taken, ok = q.tnt.take()
		if !ok {
			// Errors found while reading ahead are reported once the
			// cached bits are used up.
			if q.status != nil {
				return false, 0, q.status
			}
			return false, 0, CodeBadQuery
		}
	}
	return taken, q.flags(), nil
}

// IndirectBranch returns the target of the next indirect branch (libipt's
// pt_qry_indirect_branch); with StatusIPSuppressed the target is not
// known. It fails with CodeBadQuery if the trace has a conditional branch
// or event next.
func (q *Query) IndirectBranch() (uint64, Status, error) {
	if q.status != nil {
		return 0, 0, q.status
	}
	if q.ev.Type != EventTIP {
		if err := q.cacheTNT(); err != nil {
			return 0, 0, err
		}
		if q.ev.Type != EventTIP {
			if q.status != nil {
				return 0, 0, q.status
			}
			return 0, 0, CodeBadQuery
		}
	}
	var st Status
	var ip uint64
	if q.ev.IPSuppressed {
		st = StatusIPSuppressed
	} else {
		ip = q.ev.IP
	}
	q.lastTime = q.dec.clock.t
	q.fetchEvent()
	return ip, st | q.flags(), nil
}

// Event returns the pending event in *ev (libipt's pt_qry_event). It
// fails with CodeBadQuery while TNT bits are cached or if a branch comes
// next, and reports errors found while reading ahead.
func (q *Query) Event(ev *Event) (Status, error) {
	if !q.tnt.empty() {
		return 0, CodeBadQuery
	}
	if q.status != nil {
		return 0, q.status
	}
	if q.ev.Type == EventTNT || q.ev.Type == EventTIP {
		return 0, CodeBadQuery
	}
	*ev = q.ev
	q.lastTime = q.dec.clock.t
	q.fetchEvent()
	return q.flags(), nil
}

// Time returns the time at the last query (libipt's pt_qry_time): the TSC
// and the number of MTC and CYC packets lost since the last TSC. The
// error wraps CodeNoTime if no TSC has been seen; tsc is an estimate then.
func (q *Query) Time() (tsc uint64, lostMTC, lostCYC uint32, err error) {
	tsc, lostMTC, lostCYC, err = q.lastTime.TSC()
	if err != nil {
		err = CodeNoTime
	}
	return
}

// CoreBusRatio returns the core:bus ratio at the last query (libipt's
// pt_qry_core_bus_ratio), or CodeNoCBR.
func (q *Query) CoreBusRatio() (uint32, error) {
	cbr, err := q.lastTime.CBR()
	if err != nil {
		return 0, CodeNoCBR
	}
	return uint32(cbr), nil
}

// Offset returns the trace offset of the decoder (libipt's
// pt_qry_get_offset).
func (q *Query) Offset() uint64 { return q.dec.Offset() }

// SyncOffset returns the offset of the last synchronisation point.
func (q *Query) SyncOffset() uint64 { return q.dec.SyncOffset() }
