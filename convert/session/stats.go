package session

import "github.com/perfpt/perfpt/perfdata"

// Stats counts what perf's session counts while it reads a recording
// (evlist->stats), for perf's warnings at the end
// (perf_session__warn_about_errors).
type Stats struct {
	Events      int    // every record read, COMPRESSED ones included (nr_events[0])
	Lost        int    // LOST records
	Samples     int    // SAMPLE records
	LostSamples uint64 // samples the LOST_SAMPLES records say were lost
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
