package runner

import (
	"errors"
	"fmt"
	"io"

	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/perftext"
)

// statPrinter prints the counts of a perf stat record file as perf
// script's stat handlers do (builtin-script.c: process_thread_map_event,
// process_cpu_map_event, set_maps, process_stat_config_event,
// perf_event__process_stat_event, process_stat_round_event and
// __process_stat): at each STAT_ROUND, every event's count per thread and
// CPU, as perf_stat_process_counter left them.
type statPrinter struct {
	s       *session.Session
	w       io.Writer
	stderr  io.Writer
	cfg     perftext.StatConfig
	threads []int32 // the THREAD_MAP's pids
	cpus    []int   // the CPU_MAP's CPUs
	haveT   bool
	haveC   bool
	own     map[uint64][]int // EVENT_UPDATE CPU lists by event id (evsel->own_cpus)
	counts  map[*perfdata.Attr]*statCounts
	header  bool
	err     error
}

// statCounts are one event's counts and its previous raw counts
// (prev_raw_counts), by thread and CPU index.
type statCounts struct {
	cpus      []int
	val, prev [][]statValue // [thread][cpu index]
}

type statValue struct{ val, ena, run uint64 }

// newStatPrinter returns the stat printer of a recording: perf script's
// tool has these handlers for every recording (a pipe's features come
// late); only perf stat record writes their records.
func newStatPrinter(s *session.Session, w, stderr io.Writer) *statPrinter {
	return &statPrinter{s: s, w: w, stderr: stderr, own: map[uint64][]int{}}
}

// record handles one record as perf script's tool does; after an error
// (perf's session stops there) it does nothing more.
func (p *statPrinter) record(r perfdata.Record) {
	if p.err != nil {
		return
	}
	switch r := r.(type) {
	case *perfdata.RecordThreadMap:
		if p.haveT {
			fmt.Fprintln(p.stderr, "Extra thread map event, ignoring.")
			return
		}
		p.haveT = true
		for _, e := range r.Entries {
			p.threads = append(p.threads, int32(e.PID))
		}
		p.setMaps()
	case *perfdata.RecordCPUMap:
		if p.haveC {
			fmt.Fprintln(p.stderr, "Extra cpu map event, ignoring.")
			return
		}
		p.haveC = true
		p.cpus = append([]int(nil), r.CPUs...)
		p.setMaps()
	case *perfdata.RecordEventUpdate:
		if r.UpdateType == perfdata.EventUpdateCPUs {
			p.own[r.UpdateID] = append([]int(nil), r.CPUs...)
		}
	case *perfdata.RecordStatConfig:
		p.cfg = perftext.ReadStatConfig(r)
		p.cfg.WarnUnknown(p.stderr)
	case *perfdata.RecordStat:
		p.err = p.stat(r)
	case *perfdata.RecordStatRound:
		p.round(r.RoundTime)
	}
}

// setMaps mirrors set_maps once both maps are known:
// perf_evlist__set_maps gives each event the recording's CPUs (or its
// own, __perf_evlist__propagate_maps) and threads, and
// evlist__alloc_stats their zeroed counts.
func (p *statPrinter) setMaps() {
	if !p.haveT || !p.haveC || p.counts != nil {
		return
	}
	p.counts = map[*perfdata.Attr]*statCounts{}
	empty := len(p.cpus) == 1 && p.cpus[0] == -1 // perf_cpu_map__empty
	for _, a := range p.s.File().Attrs {
		cpus := p.cpus
		for _, id := range a.IDs {
			if own, ok := p.own[id]; ok && !empty {
				cpus = own
				break
			}
		}
		c := &statCounts{cpus: cpus}
		c.val = make([][]statValue, len(p.threads))
		c.prev = make([][]statValue, len(p.threads))
		for t := range c.val {
			c.val[t] = make([]statValue, len(cpus))
			c.prev[t] = make([]statValue, len(cpus))
		}
		p.counts[a] = c
	}
}

// stat mirrors perf_event__process_stat_event: the count of an event on
// a CPU and thread.
func (p *statPrinter) stat(r *perfdata.RecordStat) error {
	a := p.s.File().AttrByID(r.StatID)
	if a == nil {
		return errors.New("Failed to resolve counter for stat event.")
	}
	c := p.counts[a]
	if c == nil {
		// perf writes through the counts set_maps did not allocate.
		return errors.New("stat event before the recording's thread and CPU maps: perf would crash")
	}
	idx := -1
	for i, cpu := range c.cpus {
		if cpu == int(int32(r.StatCPU)) {
			idx = i
			break
		}
	}
	if idx < 0 {
		return fmt.Errorf("Invalid CPU %d for event %s.", int32(r.StatCPU), p.s.EventOf(a).Name)
	}
	if int(r.Thread) >= len(c.val) {
		return fmt.Errorf("stat event for thread %d of %d: perf writes out of bounds", r.Thread, len(c.val))
	}
	c.val[r.Thread][idx] = statValue{r.Val, r.Ena, r.Run}
	return nil
}

// Aggregation modes (enum aggr_mode) that process_counter_values treats
// alike: each CPU's and thread's count made a delta and scaled in place.
var statPerCount = map[int32]bool{0: true, 2: true, 3: true, 4: true, 5: true, 7: true} // none, socket, die, core, thread, node

// round mirrors process_stat_round_event: perf_stat_process_counter, then
// __process_stat for every event in the recording's order.
func (p *statPrinter) round(tstamp uint64) {
	if !p.header {
		fmt.Fprintf(p.w, "%3s %8s %15s %15s %15s %15s %s\n", "CPU", "THREAD", "VAL", "ENA", "RUN", "TIME", "EVENT")
		p.header = true
	}
	for _, a := range p.s.File().Attrs {
		c := p.counts[a]
		if c == nil {
			continue // no maps: perf's thread and CPU maps are empty too
		}
		if statPerCount[p.cfg.AggrMode] {
			for t := range c.val {
				for i := range c.val[t] {
					v := &c.val[t][i]
					// evsel__compute_deltas against
					// prev_raw_counts, then
					// perf_counts_values__scale.
					prev := c.prev[t][i]
					c.prev[t][i] = *v
					v.val -= prev.val
					v.ena -= prev.ena
					v.run -= prev.run
					if p.cfg.Scale {
						if v.run == 0 {
							v.val = 0
						} else if v.run < v.ena {
							v.val = uint64(float64(v.val) * float64(v.ena) / float64(v.run))
						}
					}
				}
			}
		}
		name := p.s.EventOf(a).Name
		for t, pid := range p.threads {
			for i, cpu := range c.cpus {
				v := c.val[t][i]
				fmt.Fprintf(p.w, "%3d %8d %15d %15d %15d %15d %s\n", cpu, pid, v.val, v.ena, v.run, tstamp, name)
			}
		}
	}
}
