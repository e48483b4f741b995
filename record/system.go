package record

import (
	"fmt"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record/flow"
	"github.com/perfpt/perfpt/record/ksynth"
	"github.com/perfpt/perfpt/record/synth"
)

// systemWide adds the records of a system-wide kernel+user recording of
// tr (perf record -a, see ksynth.System): per CPU an ITRACE_START of the
// idle task where its trace starts, the SWITCH_CPU_WIDE records that
// schedule writes, and AUX/AUXTRACE for its stream; the records already
// added (COMM, MMAP2, FORK, EXIT) get the CPU their thread ran on then.
func systemWide(tr *flow.Trace, opt WriteOptions, st *WriteStats, recs []timed, add func(uint64, perfdata.Record),
	sid func(pid, tid int, t, id uint64, misc uint16) perfdata.RecordCommon, ptIDs, dummyIDs, sampleIDs []uint64, bufSize int, ref *uint64) error {
	threads := traced(tr)
	// Two MTC periods, in TSC ticks, or 64.
	delay := uint64(64)
	if opt.PT.MTC {
		num, den := uint64(opt.PT.CTCNum), uint64(opt.PT.CTCDen)
		if num == 0 || den == 0 {
			num, den = 2, 1
		}
		delay = max(delay, 2*(uint64(1)<<opt.PT.MTCPeriod)*num/den)
	}
	cpus, switches, err := opt.Kernel.System(threads, ksynth.SystemOptions{CPUs: max(opt.CPUs, 1), Quantum: opt.Quantum,
		Seed: opt.Seed, Start: tr.ClockStart, RngSeed: opt.KernelSeed, SwitchDelay: delay})
	if err != nil {
		return err
	}
	at := func(cpu int, pid, tid int, t uint64, misc uint16, id uint64) perfdata.RecordCommon {
		c := sid(pid, tid, t, id, misc)
		c.CPU = uint32(cpu)
		return c
	}
	ids := func(i int) (int, int) {
		if i < 0 {
			return 0, 0 // the idle task
		}
		return threads[i].Pid, threads[i].Tid
	}
	turns := cpuTurns{}
	for c := range cpus {
		add(tr.ClockStart, &perfdata.RecordItraceStart{RecordCommon: at(c, 0, 0, tr.ClockStart, 0, ptIDs[c])})
	}
	for _, sw := range switches {
		pid, tid := ids(sw.Task)
		opid, otid := ids(sw.Other)
		misc := uint16(0)
		if sw.Out {
			misc = perfdata.MiscSwitchOut
		} else if sw.Task >= 0 {
			turns[tid] = append(turns[tid], cpuTurn{sw.Time, sw.CPU})
		}
		add(sw.Time, &perfdata.RecordSwitch{RecordCommon: at(sw.CPU, pid, tid, sw.Time, misc, dummyIDs[sw.CPU]),
			CPUWide: true, NextPrevPID: int32(opid), NextPrevTID: int32(otid)})
	}
	turns.placeSideband(recs, dummyIDs)
	streams := make([]*synth.Stream, len(cpus))
	for cpu, th := range cpus {
		s, err := synth.Encode(th, opt.PT)
		if err != nil {
			return fmt.Errorf("cpu %d: %w", cpu, err)
		}
		streams[cpu] = s
	}
	if opt.AuxSample > 0 {
		for _, s := range streams {
			for k, n := range s.Packets {
				st.Packets[k.String()] += n
			}
			st.PTBytes += len(s.Data)
		}
		auxSamplesSystem(cpus, streams, switches, ids, opt, add, sid, sampleIDs)
		return nil
	}
	// In snapshot mode (-S), every CPU's area is copied at once, as per
	// CPU (snapshotPlan).
	snap := snapshotPlan(streams, opt)
	for cpu, s := range streams {
		common := func(t uint64) perfdata.RecordCommon { return at(cpu, 0, 0, t, 0, ptIDs[cpu]) }
		if err := addBuffers(cpu, s, bufSize, snap, common, add, st, ref); err != nil {
			return fmt.Errorf("cpu %d: %w", cpu, err)
		}
	}
	return nil
}
