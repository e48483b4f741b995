package script

import "github.com/perfpt/perfpt/convert/sample"

// PrintSideband prints the line of a side-band record as perf script's
// print_event_with_time does with --show-*-events: the sample columns
// (perf_sample__fprintf_start) of ev's output type when ev is not nil,
// then text, the record as perf_event__fprintf prints it (newline
// included).
// misc and recType are the record's header misc and type, for the misc
// column.
func (p *Printer) PrintSideband(ev *sample.Event, recType uint32, misc uint16, comm string, pid, tid int32, cpu uint32, t uint64, text []byte) {
	b := p.out
	if ev != nil {
		pl := p.planOf(ev)
		if pl.start {
			s := sample.Sample{Ev: ev, Comm: comm, PID: pid, TID: tid, CPU: cpu, Time: t, Misc: misc}
			b = p.appendStartOf(b, &s, pl, recType, true)
		}
	}
	b = append(b, text...)
	p.out = b
	if len(b) >= flushSize {
		p.flush()
	}
}
