package record

import (
	"fmt"
	"sort"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record/flow"
	"github.com/perfpt/perfpt/record/synth"
)

// perCPU adds the records of a one-CPU recording of tr: ITRACE_START, the
// SWITCH_CPU_WIDE pairs, and AUX/AUXTRACE for the CPU's stream.
func perCPU(tr *flow.Trace, opt WriteOptions, st *WriteStats, add func(uint64, perfdata.Record),
	sid func(pid, tid int, t, id uint64, misc uint16) perfdata.RecordCommon, ptID, dummyID uint64, sampleIDs []uint64, bufSize int, ref *uint64) error {
	threads := traced(tr)
	if len(threads) == 0 {
		return nil
	}
	s, switches, err := synth.EncodeCPU(threads, opt.PT)
	if err != nil {
		return err
	}
	first := threads[0]
	t0 := tr.ClockStart
	add(t0, &perfdata.RecordItraceStart{RecordCommon: sid(first.Pid, first.Tid, t0, ptID, 0), PID: int32(first.Pid), TID: int32(first.Tid)})
	for _, sw := range switches {
		in := threads[sw.In]
		if sw.Out >= 0 {
			out := threads[sw.Out]
			add(sw.Time, &perfdata.RecordSwitch{RecordCommon: sid(out.Pid, out.Tid, sw.Time, dummyID, perfdata.MiscSwitchOut),
				CPUWide: true, NextPrevPID: int32(in.Pid), NextPrevTID: int32(in.Tid)})
			add(sw.Time, &perfdata.RecordSwitch{RecordCommon: sid(in.Pid, in.Tid, sw.Time, dummyID, 0),
				CPUWide: true, NextPrevPID: int32(out.Pid), NextPrevTID: int32(out.Tid)})
		} else {
			add(sw.Time, &perfdata.RecordSwitch{RecordCommon: sid(in.Pid, in.Tid, sw.Time, dummyID, 0),
				CPUWide: true, NextPrevPID: -1, NextPrevTID: -1})
		}
	}
	if opt.AuxSample > 0 {
		for k, n := range s.Packets {
			st.Packets[k.String()] += n
		}
		st.PTBytes += len(s.Data)
		auxSamplesCPUs(threads, []*synth.Stream{s}, func(int, uint64) int { return 0 }, opt, add, sid, sampleIDs)
		return nil
	}
	snap := snapshotPlan([]*synth.Stream{s}, opt)
	return addBuffers(0, s, bufSize, snap, func(t uint64) perfdata.RecordCommon { return sid(first.Pid, first.Tid, t, ptID, 0) }, add, st, ref)
}

// perCPUs adds the records of an opt.CPUs-CPU recording of tr (see
// synth.EncodeCPUs): per CPU an ITRACE_START when the traced task first
// runs there, the SWITCH_CPU_WIDE pairs (the idle task, pid 0, between
// turns) and AUX/AUXTRACE for its stream; the records already added
// (COMM, MMAP2, FORK, EXIT) get the CPU their thread ran on then.
func perCPUs(tr *flow.Trace, opt WriteOptions, st *WriteStats, recs []timed, add func(uint64, perfdata.Record),
	sid func(pid, tid int, t, id uint64, misc uint16) perfdata.RecordCommon, ptIDs, dummyIDs, sampleIDs []uint64, bufSize int, ref *uint64) error {
	threads := traced(tr)
	if len(threads) == 0 {
		return nil
	}
	streams, switches, err := synth.EncodeCPUs(threads, opt.PT, synth.Machine{CPUs: opt.CPUs, Quantum: opt.Quantum, Seed: opt.Seed})
	if err != nil {
		return err
	}
	// Where each thread ran: its turns' starts, in time order.
	turns := cpuTurns{}
	started := make([]bool, len(streams))
	at := func(cpu int, pid, tid int, t uint64, misc uint16, id uint64) perfdata.RecordCommon {
		c := sid(pid, tid, t, id, misc)
		c.CPU = uint32(cpu)
		return c
	}
	for _, sw := range switches {
		c := sw.CPU
		if sw.In >= 0 {
			in := threads[sw.In]
			turns[in.Tid] = append(turns[in.Tid], cpuTurn{sw.Time, c})
			if !started[c] {
				started[c] = true
				add(sw.Time, &perfdata.RecordItraceStart{RecordCommon: at(c, in.Pid, in.Tid, sw.Time, 0, ptIDs[c]), PID: int32(in.Pid), TID: int32(in.Tid)})
				add(sw.Time, &perfdata.RecordSwitch{RecordCommon: at(c, in.Pid, in.Tid, sw.Time, 0, dummyIDs[c]),
					CPUWide: true, NextPrevPID: -1, NextPrevTID: -1})
			} else {
				add(sw.Time, &perfdata.RecordSwitch{RecordCommon: at(c, 0, 0, sw.Time, perfdata.MiscSwitchOut, dummyIDs[c]),
					CPUWide: true, NextPrevPID: int32(in.Pid), NextPrevTID: int32(in.Tid)})
				add(sw.Time, &perfdata.RecordSwitch{RecordCommon: at(c, in.Pid, in.Tid, sw.Time, 0, dummyIDs[c]),
					CPUWide: true, NextPrevPID: 0, NextPrevTID: 0})
			}
		} else if sw.Out >= 0 {
			out := threads[sw.Out]
			add(sw.Time, &perfdata.RecordSwitch{RecordCommon: at(c, out.Pid, out.Tid, sw.Time, perfdata.MiscSwitchOut, dummyIDs[c]),
				CPUWide: true, NextPrevPID: 0, NextPrevTID: 0})
			add(sw.Time, &perfdata.RecordSwitch{RecordCommon: at(c, 0, 0, sw.Time, 0, dummyIDs[c]),
				CPUWide: true, NextPrevPID: int32(out.Pid), NextPrevTID: int32(out.Tid)})
		}
	}
	turns.placeSideband(recs, dummyIDs)
	if opt.AuxSample > 0 {
		for _, s := range streams {
			for k, n := range s.Packets {
				st.Packets[k.String()] += n
			}
			st.PTBytes += len(s.Data)
		}
		auxSamplesCPUs(threads, streams, turns.cpuAt, opt, add, sid, sampleIDs)
		return nil
	}
	first := threads[0]
	snap := snapshotPlan(streams, opt)
	for cpu, s := range streams {
		common := func(t uint64) perfdata.RecordCommon { return at(cpu, first.Pid, first.Tid, t, 0, ptIDs[cpu]) }
		if err := addBuffers(cpu, s, bufSize, snap, common, add, st, ref); err != nil {
			return fmt.Errorf("cpu %d: %w", cpu, err)
		}
	}
	return nil
}

// nextBuffer returns where the AUX buffer of s that starts at start ends:
// the last packet boundary at most bufSize bytes on (-1 if there is none),
// and the time there.
func nextBuffer(s *synth.Stream, start, bufSize int) (int, uint64) {
	end, tm := -1, uint64(0)
	for _, c := range s.Cuts {
		if c.Off > start && c.Off-start <= bufSize {
			end, tm = c.Off, c.Time
		} else if c.Off > start {
			break
		}
	}
	return end, tm
}

// traced returns the threads of tr that have a flow.
func traced(tr *flow.Trace) []*flow.Thread {
	var threads []*flow.Thread
	for _, th := range tr.Threads {
		if len(th.Events) > 0 {
			threads = append(threads, th)
		}
	}
	return threads
}

// cpuTurns holds where each thread ran: by TID, the starts of its turns on
// a CPU, in time order.
type cpuTurns map[int][]cpuTurn

type cpuTurn struct {
	t   uint64
	cpu int
}

// cpuAt returns the CPU thread tid ran on at time t (before its first turn,
// that turn's CPU; a thread never switched in, CPU 0).
func (ts cpuTurns) cpuAt(tid int, t uint64) int {
	turns := ts[tid]
	cpu := 0
	for _, tn := range turns {
		if tn.t > t {
			break
		}
		cpu = tn.cpu
	}
	if len(turns) > 0 && turns[0].t > t {
		cpu = turns[0].cpu
	}
	return cpu
}

// placeSideband gives each COMM, MMAP2, FORK and EXIT record of recs the
// CPU its thread ran on at its time, and that CPU's dummy event id, as a
// CPU-wide recording's per-CPU buffers hold them.
func (ts cpuTurns) placeSideband(recs []timed, dummyIDs []uint64) {
	for i := range recs {
		c := recs[i].rec.Common()
		switch recs[i].rec.(type) {
		case *perfdata.RecordComm, *perfdata.RecordMmap2, *perfdata.RecordFork, *perfdata.RecordExit:
			cpu := ts.cpuAt(int(c.TID), c.Time)
			c.CPU, c.ID = uint32(cpu), dummyIDs[cpu]
		}
	}
}

// snapPlan says when a per-CPU snapshot-mode recording copies its CPUs'
// AUX areas of size bytes: at each of times, all at once.
type snapPlan struct {
	size  int
	times []uint64
}

// snapshotPlan is the snapshots of the CPUs' streams (nil without
// opt.SnapshotSize): one each time opt.SnapshotEvery (0: the size) more
// bytes of trace were written on all the CPUs together, and one at the
// end.
func snapshotPlan(streams []*synth.Stream, opt WriteOptions) *snapPlan {
	if opt.SnapshotSize <= 0 {
		return nil
	}
	every := opt.SnapshotEvery
	if every <= 0 {
		every = opt.SnapshotSize
	}
	type piece struct {
		time  uint64
		bytes int
	}
	var ps []piece
	for _, s := range streams {
		for k := 1; k < len(s.Cuts); k++ {
			ps = append(ps, piece{s.Cuts[k].Time, s.Cuts[k].Off - s.Cuts[k-1].Off})
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].time < ps[j].time })
	plan := &snapPlan{size: opt.SnapshotSize}
	sum, next := 0, every
	for i, p := range ps {
		sum += p.bytes
		if sum < next && i != len(ps)-1 {
			continue
		}
		if n := len(plan.times); n == 0 || plan.times[n-1] != p.time {
			plan.times = append(plan.times, p.time)
		}
		for next <= sum {
			next += every
		}
	}
	return plan
}

// addBuffers adds CPU cpu's packet stream s to the recording: its packet
// counts to st, and its data cut at packet boundaries into AUX buffers of
// at most bufSize bytes, each an AUX record (with the common fields common
// gives for its time) and its AUXTRACE data; or, with a snapshot plan,
// the snapshots of its area: at each of the plan's times when the CPU
// wrote trace since the last one, the area's last size bytes (from
// mid-packet when it wrapped) as an AUX record with the overwrite flag
// and its AUXTRACE data.
func addBuffers(cpu int, s *synth.Stream, bufSize int, snap *snapPlan, common func(t uint64) perfdata.RecordCommon,
	add func(uint64, perfdata.Record), st *WriteStats, ref *uint64) error {
	for k, n := range s.Packets {
		st.Packets[k.String()] += n
	}
	st.PTBytes += len(s.Data)
	if snap != nil {
		last, k := 0, 0
		for _, tm := range snap.times {
			for k+1 < len(s.Cuts) && s.Cuts[k+1].Time <= tm {
				k++
			}
			to := s.Cuts[k].Off
			if to == last {
				continue // nothing new on this CPU: no copy
			}
			last = to
			from := max(0, to-snap.size)
			data := s.Data[from:to]
			add(tm, &perfdata.RecordAux{RecordCommon: common(tm), AuxOffset: uint64(from), AuxSize: uint64(len(data)),
				Flags: perfdata.AuxFlagOverwrite})
			add(tm, &perfdata.RecordAuxtrace{AuxOffset: uint64(from), Reference: *ref, Idx: uint32(cpu), TID: -1, CPU: int32(cpu), Data: data})
			*ref++
			st.Buffers++
		}
		return nil
	}
	for start := 0; start < len(s.Data); {
		end, tm := nextBuffer(s, start, bufSize)
		if end < 0 {
			return fmt.Errorf("no packet boundary within %d bytes of offset %d", bufSize, start)
		}
		data := s.Data[start:end]
		add(tm, &perfdata.RecordAux{RecordCommon: common(tm), AuxOffset: uint64(start), AuxSize: uint64(len(data))})
		add(tm, &perfdata.RecordAuxtrace{AuxOffset: uint64(start), Reference: *ref, Idx: uint32(cpu), TID: -1, CPU: int32(cpu), Data: data})
		*ref++
		st.Buffers++
		start = end
	}
	return nil
}
