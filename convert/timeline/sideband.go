package timeline

import (
	"fmt"
	"slices"

	"github.com/perfpt/perfpt/perfdata"
)

// baseMargin is how much earlier than the recording's first time the
// base is: room for the inferred frames of the first thread (1 ns each).
const baseMargin = 1000

// stateTid makes the koid of a thread's state track.
func stateTid(tid int32) int32 { return 1<<30 | tid }

// sideband holds the thread-state tracks: a track per thread beside its
// own, with a slice per state (running on a CPU, runnable when
// preempted, sleeping, ...), from the context-switch records or, without
// them, from sched:sched_switch samples.
type sideband struct {
	c          *converter
	states     map[int32]*stateTrack
	haveSwitch bool // the recording has SWITCH records
	last       uint64
}

// stateTrack is a thread's state track: a complete slice per state,
// written when the next state begins (so that --min-duration can leave
// out the short ones).
type stateTrack struct {
	track Track
	open  bool
	name  Str
	start uint64
	args  [1]Arg
	nargs int
}

// sidebandPass reads the records (not the trace data) before the
// decode: the base time (the earliest time of any record), the execs,
// and the context switches, which become thread-state slices.
func (c *converter) sidebandPass() error {
	f := c.s.File()
	// The base is the earliest time of the records that start or carry
	// what the timeline shows (ITRACE_START, AUX, samples), else of any
	// record.
	minT, minAny := ^uint64(0), ^uint64(0)
	nSwitch := 0
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		cm := rs.Record.Common()
		if cm.Format&perfdata.SampleFormatTime != 0 && cm.Time != 0 {
			minAny = min(minAny, cm.Time)
			switch cm.Type {
			case perfdata.RecordTypeSample, perfdata.RecordTypeItraceStart, perfdata.RecordTypeAux:
				minT = min(minT, cm.Time)
			}
		}
		switch r := rs.Record.(type) {
		case *perfdata.RecordComm:
			if r.Exec() {
				c.execs[r.TID] = append(c.execs[r.TID], r.Time)
			}
		case *perfdata.RecordSwitch:
			nSwitch++
		}
	}
	if err := rs.Err(); err != nil {
		return err
	}
	for _, ex := range c.execs {
		slices.Sort(ex)
	}
	if minT == ^uint64(0) {
		minT = minAny
	}
	if minT != ^uint64(0) {
		c.setBase(minT)
	}
	c.side = &sideband{c: c, states: map[int32]*stateTrack{}, haveSwitch: nSwitch > 0}
	if nSwitch == 0 {
		return nil
	}
	// The switches in time order, the threads named as at the time.
	comm := map[int32]string{}
	pids := map[int32]int32{}
	rs = f.Records(perfdata.TimeOrder)
	for rs.Next() {
		switch r := rs.Record.(type) {
		case *perfdata.RecordComm:
			comm[r.TID], pids[r.TID] = r.Comm, r.PID
		case *perfdata.RecordFork:
			pids[r.TID] = r.PID
			if _, ok := comm[r.TID]; !ok {
				comm[r.TID] = comm[r.PTID]
			}
		case *perfdata.RecordSwitch:
			pid, tid := r.PID, r.TID
			if tid <= 0 {
				continue
			}
			if p, ok := pids[tid]; ok {
				pid = p
			}
			name := comm[tid]
			if name == "" {
				name = fmt.Sprintf(":%d", tid)
			}
			state := "Running"
			cpu := int32(r.CPU)
			if r.Out() {
				state, cpu = "Sleeping", -1
				if r.Preempt() {
					state = "Runnable"
				}
			}
			c.side.set(pid, tid, name, state, cpu, r.Time)
		}
	}
	return rs.Err()
}

// setBase sets the base time from the earliest time t.
func (c *converter) setBase(t uint64) {
	c.baseKnown = true
	c.base = t - min(t, baseMargin)
	c.sum.Base = c.base
}

// set moves thread tid into state (on cpu, or -1) at time t.
func (sb *sideband) set(pid, tid int32, comm, state string, cpu int32, t uint64) {
	c := sb.c
	if c.o.PIDs != nil && !c.o.PIDs[pid] || c.o.TIDs != nil && !c.o.TIDs[tid] {
		return
	}
	if c.o.TimeFrom != 0 && t < c.o.TimeFrom {
		t = c.o.TimeFrom
	}
	if c.o.TimeTo != 0 && t > c.o.TimeTo {
		t = c.o.TimeTo
	}
	t = max(t, c.base) // (switch records before the trace: the state since then)
	st := sb.states[tid]
	if st == nil {
		st = &stateTrack{track: Track(c.ntracks)}
		c.ntracks++
		sb.states[tid] = st
		ps := c.strs.Intern(comm)
		if _, ok := c.procs[pid]; !ok {
			c.procs[pid] = ps
			c.w.Process(pid, ps)
		}
		c.w.Thread(st.track, pid, stateTid(tid), c.strs.Intern(comm+" (state)"))
	}
	t = max(t, st.start)
	sb.end(st, t)
	st.name = c.strs.Intern(state)
	st.nargs = 0
	if cpu >= 0 {
		st.args[0] = Arg{Name: c.argCPU, Kind: ArgUint, U: uint64(cpu)}
		st.nargs = 1
	}
	st.open, st.start = true, t
	sb.last = max(sb.last, t)
}

// end writes st's open state, which lasted until t.
func (sb *sideband) end(st *stateTrack, t uint64) {
	c := sb.c
	if !st.open {
		return
	}
	st.open = false
	if c.o.TimeTo != 0 && t > c.o.TimeTo {
		t = max(c.o.TimeTo, st.start)
	}
	if t-st.start < c.o.MinDuration {
		c.sum.CutShort++
		return
	}
	c.w.Complete(st.track, st.start-c.base, t-c.base, 0, st.name, st.args[:st.nargs])
}

// finish ends the open states at the last time the timeline knows.
func (sb *sideband) finish() {
	tids := make([]int32, 0, len(sb.states))
	for tid := range sb.states {
		tids = append(tids, tid)
	}
	slices.Sort(tids)
	for _, tid := range tids {
		st := sb.states[tid]
		sb.end(st, max(sb.last, st.start))
	}
}
