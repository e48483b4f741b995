package record

import (
	"sort"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record/flow"
	"github.com/perfpt/perfpt/record/ksynth"
	"github.com/perfpt/perfpt/record/synth"
)

// auxSamples adds the samples of a --aux-sample recording of thread th
// (perf record --aux-sample=SIZE -e '{intel_pt//u,cpu-clock:u}'): one
// cpu-clock sample every opt.AuxSampleEvery instructions of the thread,
// at the end of a branch (its IP is the branch's target), carrying the
// last opt.AuxSample bytes of the thread's trace written by then
// (PERF_SAMPLE_AUX, as the kernel copies them from the AUX area). The
// trace is not written otherwise: perf decodes these windows
// (intel_pt_sampling_mode).
func auxSamples(th *flow.Thread, s *synth.Stream, opt WriteOptions, add func(uint64, perfdata.Record),
	sid func(pid, tid int, t, id uint64, misc uint16) perfdata.RecordCommon, id uint64) {
	auxSamplesOn(th, func(*flow.Event) (*synth.Stream, perfdata.RecordCommon) {
		return s, sid(th.Pid, th.Tid, 0, id, perfdata.MiscUser)
	},
		opt, add)
}

// auxSamplesOn adds the --aux-sample samples of thread th, whose trace at
// time t is in the stream where returns it (the thread's, or in a per-CPU
// recording that of the CPU it ran on then), with the sample's common
// fields (its time set here).
func auxSamplesOn(th *flow.Thread, where func(ev *flow.Event) (*synth.Stream, perfdata.RecordCommon), opt WriteOptions,
	add func(uint64, perfdata.Record)) {
	every := uint64(opt.AuxSampleEvery)
	if every == 0 {
		every = 10000
	}
	var n uint64
	for i := range th.Events {
		ev := &th.Events[i]
		n += ev.Insns
		if n < every || ev.To == 0 {
			continue
		}
		s, c := where(ev)
		// the last cut at or before the event's time
		cut := sort.Search(len(s.Cuts), func(i int) bool { return s.Cuts[i].Time > ev.Time }) - 1
		if cut < 0 {
			continue
		}
		end := s.Cuts[cut].Off
		if end == 0 {
			continue
		}
		data := s.Data[max(0, end-opt.AuxSample):end]
		c.Time = ev.Time
		add(ev.Time, &perfdata.RecordSample{RecordCommon: c, IP: ev.To, Period: n, Aux: data})
		n = 0
	}
}

// auxSamplesCPUs adds the --aux-sample samples of a per-CPU recording:
// each thread's, taken from the stream of the CPU it ran on at the time
// (cpuAt), with that CPU's sample id.
func auxSamplesCPUs(threads []*flow.Thread, streams []*synth.Stream, cpuAt func(tid int, t uint64) int, opt WriteOptions,
	add func(uint64, perfdata.Record), sid func(pid, tid int, t, id uint64, misc uint16) perfdata.RecordCommon, sampleIDs []uint64) {
	for _, th := range threads {
		auxSamplesOn(th, func(ev *flow.Event) (*synth.Stream, perfdata.RecordCommon) {
			cpu := cpuAt(th.Tid, ev.Time)
			c := sid(th.Pid, th.Tid, ev.Time, sampleIDs[cpu], perfdata.MiscUser)
			c.CPU = uint32(cpu)
			return streams[cpu], c
		}, opt, add)
	}
}

// auxSamplesSystem adds the --aux-sample samples of a system-wide
// recording: every opt.AuxSampleEvery instructions of each CPU's flow,
// carrying the end of that CPU's trace, as the task switched in last on
// it (the idle task before any), in the kernel's cpumode at a kernel IP.
func auxSamplesSystem(cpus []*flow.Thread, streams []*synth.Stream, switches []ksynth.SwitchRecord, ids func(int) (int, int),
	opt WriteOptions, add func(uint64, perfdata.Record), sid func(pid, tid int, t, id uint64, misc uint16) perfdata.RecordCommon,
	sampleIDs []uint64) {
	for cpu, th := range cpus {
		var ins []ksynth.SwitchRecord
		for _, sw := range switches {
			if sw.CPU == cpu && !sw.Out {
				ins = append(ins, sw)
			}
		}
		auxSamplesOn(th, func(ev *flow.Event) (*synth.Stream, perfdata.RecordCommon) {
			task := -1
			for _, sw := range ins {
				if sw.Time > ev.Time {
					break
				}
				task = sw.Task
			}
			pid, tid := ids(task)
			misc := uint16(perfdata.MiscUser)
			if ev.To >= 1<<63 {
				misc = perfdata.MiscKernel
			}
			c := sid(pid, tid, ev.Time, sampleIDs[cpu], misc)
			c.CPU = uint32(cpu)
			return streams[cpu], c
		}, opt, add)
	}
}
