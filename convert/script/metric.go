package script

import (
	"fmt"
	"strconv"

	"github.com/perfpt/perfpt/convert/sample"
)

// The metric field: perf_sample__fprint_metric of perf 6.1.
//
// With -F metric, perf script feeds each printed sample's value (its
// period times the event's scale) to perf stat's shadow statistics and,
// once it has printed as many samples as the sample's group has members,
// prints perf stat's metric for each member but the leader, each on a line
// of its own after the sample: the sample's start columns, "\tmetric: ",
// the value as "%8.3f" and its unit. What it keeps between samples is one
// struct evsel_script that every event shares (perf_script__setup_per_event_dump
// points them all at es_stdout): one count of samples for all groups, and
// one value, the last sample's, which every member's metric is then
// computed from. A group read whose member had nothing to report (no
// sample for it) leaves the count off for the rest of the run. The
// statistics are perf stat's global ones, reset whenever the count starts
// again.
//
// Only groups of software events are printed here (CheckMetric refuses the
// others): their one metric is the rate of a counting event over the time
// a clock event counted on the same CPU ("/sec", "K/sec", ...), while
// clock events print none (perf stat's "CPUs utilized" needs the wall
// time, which perf script does not have). A clock event's scale is 1e-6
// (evsel__new_idx), and perf truncates period * scale to an integer: a
// clock period under a millisecond counts 0, and the rates then print as 0.

// metricState is what perf_sample__fprint_metric keeps between samples.
type metricState struct {
	gnum  int                 // es_stdout.gnum
	val   uint64              // es_stdout.val
	nsecs map[uint32]*runStat // rt_stat's STAT_NSECS, by sample CPU
}

// runStat is perf's struct stats as update_stats keeps it (n and mean).
type runStat struct {
	n, mean float64
}

func (s *runStat) update(v uint64) {
	s.n++
	delta := float64(v) - s.mean
	s.mean += delta / s.n
}

// isClock mirrors evsel__is_clock: the software cpu-clock and task-clock.
func isClock(e *sample.Event) bool {
	return e.AttrType == perfTypeSoftware && (e.Config == 0 || e.Config == 1)
}

// CheckMetric refuses -F metric for a group with an event that is not a
// software event: perf stat's metrics of hardware events (instructions
// per cycle, miss ratios, ...) cannot be recorded on the machines perfpt
// is checked on, so they are not printed rather than printed unchecked.
func CheckMetric(events []*sample.Event) error {
	for _, e := range events {
		for _, m := range e.Members {
			if m.AttrType != perfTypeSoftware {
				return fmt.Errorf("-F metric: perfpt prints the metrics of groups of software events only, not of group {%s}'s event '%s'",
					e.Name, m.Name)
			}
		}
	}
	return nil
}

// metric mirrors perf_sample__fprint_metric for s, printed with plan pl.
func (p *Printer) metric(b []byte, s *sample.Sample, pl *plan) []byte {
	m := &p.metrics
	if m.nsecs == nil {
		m.nsecs = map[uint32]*runStat{}
	}
	ev := s.Ev
	leader := ev
	if ev.Leader != nil {
		leader = ev.Leader
	}
	if m.gnum == 0 {
		clear(m.nsecs) // perf_stat__reset_shadow_stats
	}
	m.gnum++
	scale := 1.0
	if isClock(ev) {
		scale = 1e-6
	}
	m.val = uint64(float64(s.Period) * scale)
	if isClock(ev) {
		st := m.nsecs[s.CPU]
		if st == nil {
			st = &runStat{}
			m.nsecs[s.CPU] = st
		}
		st.update(m.val)
	}
	// nr_members is 0 for an event in no group.
	if m.gnum != len(leader.Members) {
		return b
	}
	for _, ev2 := range leader.Members[1:] {
		b = p.shadowMetric(b, s, pl, ev2, float64(m.val))
	}
	m.gnum = 0
	return b
}

// shadowMetric mirrors perf_stat__print_shadow_stats for a software event
// ev2 whose value is avg, printed after sample s (script_print_metric).
func (p *Printer) shadowMetric(b []byte, s *sample.Sample, pl *plan, ev2 *sample.Event, avg float64) []byte {
	if isClock(ev2) {
		return b // "CPUs utilized": no wall time, no format, nothing printed
	}
	st := p.metrics.nsecs[s.CPU]
	if st == nil || st.n == 0 {
		return b
	}
	ratio, unit := 0.0, byte(' ')
	if st.mean != 0 {
		ratio, unit = convertUnitDouble(1000000000.0 * avg / st.mean)
	}
	if pl.start {
		// perf_sample__fprintf_start without the script: an empty tod.
		b = p.appendStartOf(b, s, pl, recordSample, false)
	}
	b = append(b, "\tmetric: "...)
	b = appendFloatPad(b, ratio, 3, 8)
	b = append(b, ' ')
	if unit != ' ' {
		b = append(b, unit)
	}
	return append(b, "/sec\n"...)
}

// convertUnitDouble mirrors perf's convert_unit_double.
func convertUnitDouble(v float64) (float64, byte) {
	unit := byte(' ')
	for _, u := range []byte{'K', 'M', 'G'} {
		if v > 1000.0 {
			v /= 1000.0
			unit = u
		}
	}
	return v, unit
}

// appendFloatPad appends v as printf's "%<width>.<prec>f".
func appendFloatPad(b []byte, v float64, prec, width int) []byte {
	var tmp [64]byte
	t := strconv.AppendFloat(tmp[:0], v, 'f', prec, 64)
	for i := len(t); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, t...)
}

// perfTypeSoftware is PERF_TYPE_SOFTWARE.
const perfTypeSoftware = 1
