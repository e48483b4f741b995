package record

import (
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record/flow"
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
	every := uint64(opt.AuxSampleEvery)
	if every == 0 {
		every = 10000
	}
	var n uint64
	cut := 0
	for _, ev := range th.Events {
		n += ev.Insns
		if n < every || ev.To == 0 {
			continue
		}
		for cut+1 < len(s.Cuts) && s.Cuts[cut+1].Time <= ev.Time {
			cut++
		}
		end := s.Cuts[cut].Off
		if end == 0 {
			continue
		}
		data := s.Data[max(0, end-opt.AuxSample):end]
		c := sid(th.Pid, th.Tid, ev.Time, id, perfdata.MiscUser)
		add(ev.Time, &perfdata.RecordSample{RecordCommon: c, IP: ev.To, Period: n, Aux: data})
		n = 0
	}
}
