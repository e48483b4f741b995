package record

import (
	"fmt"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record/flow"
	"github.com/perfpt/perfpt/record/synth"
)

// perCPU adds the records of a one-CPU recording of tr: ITRACE_START, the
// SWITCH_CPU_WIDE pairs, and AUX/AUXTRACE for the CPU's stream.
func perCPU(tr *flow.Trace, opt WriteOptions, st *WriteStats, add func(uint64, perfdata.Record),
	sid func(pid, tid int, t, id uint64, misc uint16) perfdata.RecordCommon, ptID, dummyID uint64, bufSize int, ref *uint64) error {
	var threads []*flow.Thread
	for _, th := range tr.Threads {
		if len(th.Events) > 0 {
			threads = append(threads, th)
		}
	}
	if len(threads) == 0 {
		return nil
	}
	s, switches, err := synth.EncodeCPU(threads, opt.PT)
	if err != nil {
		return err
	}
	for k, n := range s.Packets {
		st.Packets[k.String()] += n
	}
	st.PTBytes += len(s.Data)
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
	start := 0
	for start < len(s.Data) {
		end, tm := -1, uint64(0)
		for _, c := range s.Cuts {
			if c.Off > start && c.Off-start <= bufSize {
				end, tm = c.Off, c.Time
			} else if c.Off > start {
				break
			}
		}
		if end < 0 {
			return fmt.Errorf("no packet boundary within %d bytes of offset %d", bufSize, start)
		}
		data := s.Data[start:end]
		add(tm, &perfdata.RecordAux{RecordCommon: sid(first.Pid, first.Tid, tm, ptID, 0), AuxOffset: uint64(start), AuxSize: uint64(len(data))})
		add(tm, &perfdata.RecordAuxtrace{AuxOffset: uint64(start), Reference: *ref, Idx: 0, TID: -1, CPU: 0, Data: data})
		*ref++
		st.Buffers++
		start = end
	}
	return nil
}
