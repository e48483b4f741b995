package session

import (
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/perfdata"
)

// Stats counts what perf's session counts while it reads a recording
// (evlist->stats), for perf's warnings at the end
// (perf_session__warn_about_errors).
type Stats struct {
	Events      int    // every record read, COMPRESSED ones included (nr_events[0])
	Lost        int    // LOST records
	Samples     int    // SAMPLE records
	LostSamples uint64 // samples the LOST_SAMPLES records say were lost
	UnknownID   int    // values of PERF_SAMPLE_READ samples whose id no event has
	// AuxErrors counts the AUXTRACE_ERROR events delivered to
	// Handler.Error, recorded or synthesised, by type (0 and 1, as
	// perf_session__auxtrace_error_inc counts nr_auxtrace_errors: types
	// from PERF_AUXTRACE_ERROR_MAX on are not counted).
	AuxErrors [2]int
	// Unordered counts the records queued with a time below the last
	// flush of the ordered queue (ordered_events' nr_unordered_events).
	Unordered int
	// Backward: an event writes its ring backward (perf then does not
	// warn about the order: perf_session__warn_order).
	Backward bool
}

// deliverError hands e to h.Error, counting it.
func (s *Session) deliverError(h *Handler, e *sample.ErrorLine) {
	if e.Type < uint32(len(s.stats.AuxErrors)) {
		s.stats.AuxErrors[e.Type]++
	}
	h.Error(e)
}

// miscLostSamplesBPF marks LOST_SAMPLES records of BPF filters, which
// perf does not count as lost.
const miscLostSamplesBPF = 1 << 15

func (st *Stats) count(r perfdata.Record) {
	st.Events++
	switch r := r.(type) {
	case *perfdata.RecordSample:
		st.Samples++
	case *perfdata.RecordLost:
		st.Lost++
	case *perfdata.RecordLostSamples:
		if r.Misc&miscLostSamplesBPF == 0 {
			st.LostSamples += r.Lost
		}
	}
}

// Stats returns the counts of the records Run has read.
func (s *Session) Stats() Stats { return s.stats }

// deliverRead delivers a PERF_SAMPLE_READ sample as perf does
// (perf_evlist__deliver_sample: deliver_sample_group, deliver_sample_value):
// one sample per value read, of the event its id belongs to, whose period
// is the value's growth since that id's last sample; a value that did not
// grow is not delivered, one of an unknown id is counted.
func (s *Session) deliverRead(r *perfdata.RecordSample, smp *sample.Sample, h Handler) {
	vals := r.Read.Values
	if r.Attr.ReadFormat&perfdata.ReadFormatGroup == 0 && len(vals) > 1 {
		vals = vals[:1]
	}
	if s.readPeriod == nil {
		s.readPeriod = map[uint64]uint64{}
	}
	skip := h.Sample == nil || s.filtered(r.PID, r.TID, r.CPU, r.Time) || guestSample(r)
	resolve := s.OnResolve != nil && !s.resolveSkipped(r)
	made := false
	for _, v := range vals {
		a := s.f.AttrByID(v.ID)
		if a == nil {
			s.stats.UnknownID++
			continue
		}
		period := v.Value - s.readPeriod[v.ID]
		s.readPeriod[v.ID] = v.Value
		if period != 0 && resolve {
			s.OnResolve(r)
		}
		if h.SampleTime != nil {
			if period != 0 && !s.opts.TimeRanges.Skip(r.Time) {
				h.SampleTime(r.Time)
			}
			continue
		}
		if period == 0 || skip {
			continue
		}
		if !made {
			s.sample(r, smp)
			made = true
		}
		smp.Ev, smp.Period = s.event(a), period
		s.flushBlocks()
		h.Sample(smp)
	}
}
