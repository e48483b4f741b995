package session

import (
	"fmt"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/ksynth"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestSyncSwitch: on system-wide kernel+user recordings (ksynth.System),
// whose context switches go through the stand-in kernel's __switch_to,
// the queues change threads the three ways perf's sync_switch does: at
// the branch to __switch_to after the switch-out record, at the record
// after the decode reached the branch first (the queue waits off the
// heap), and at first from an unknown state. The output is compared
// with perf's in the script runner's TestPTSystemWide; this checks that
// the recordings keep reaching every path.
func TestSyncSwitch(t *testing.T) {
	for _, c := range []struct {
		name string
		cpus int
		pt   synth.Config
	}{{"1cpu", 1, synth.Config{TSC: true, MTC: true, MTCPeriod: 3}},
		{"2cpus", 2, synth.Config{TSC: true, MTC: true, MTCPeriod: 3}},
		{"3cpus-cyc", 3, synth.Config{TSC: true, MTC: true, MTCPeriod: 3, CYC: true}}} {
		t.Run(c.name, func(t *testing.T) {
			k, err := ksynth.Load(testprog.Path(t, "kernel"))
			if err != nil {
				t.Fatal(err)
			}
			data := recordPTOpt(t, "threads-static-O2", record.WriteOptions{PT: c.pt, PerCPU: true, CPUs: c.cpus,
				Quantum: 300, Seed: 9, Kernel: k, KernelSeed: 3, SystemWide: true})
			s, err := Open(data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			tids := map[int32]bool{}
			var errs []string
			err = s.Run(Handler{Sample: func(smp *sample.Sample) { tids[smp.TID] = true },
				Error: func(e *sample.ErrorLine) { errs = append(errs, e.Msg) }})
			if err != nil {
				t.Fatal(err)
			}
			p := s.pt
			st := p.switchStats
			t.Logf("switch ip %#x, ptss ip %#x: %+v, threads %v", p.switchIP, p.ptssIP, st, tids)
			if !p.syncSwitch || p.switchIP == 0 || p.ptssIP == 0 {
				t.Fatalf("sync_switch off (switch ip %#x, ptss ip %#x)", p.switchIP, p.ptssIP)
			}
			if st.atIP == 0 || st.waited == 0 || st.resumed == 0 {
				t.Errorf("a way of switching threads was never taken: %+v", st)
			}
			// The emulated clock agrees with the decoder's estimates:
			// every switch is decoded where it happens, with no error.
			if len(errs) != 0 {
				t.Errorf("%d decoder errors, the first: %s", len(errs), errs[0])
			}
			if !tids[0] || len(tids) != 5 {
				t.Errorf("samples of threads %v: want the idle task's and the program's four", tids)
			}
		})
	}
}

// TestWovenKernelSwitches: per-CPU kernel+user recordings that are not
// system-wide (the stand-in kernel woven into the thread's flow at each
// syscall and signal, ksynth.Weave, the threads taking turns on 2 CPUs)
// end turns in every state, right after a return to user space among
// them. Perf's decoder estimates the time there (two ticks an
// instruction since the last timing packet) and applies the CPU's
// sideband up to the estimate: the synthesizer puts each switch after
// it, or the end of the turn would be decoded as the idle task's (pid 0,
// no maps: "Failed to get instruction" and its trace lost). mix is
// single-threaded, so its flow, and each recording, is the same in
// every run.
func TestWovenKernelSwitches(t *testing.T) {
	k := testprog.KernelWithModule(t)
	for _, q := range []int{7, 13, 29} {
		t.Run(fmt.Sprintf("quantum%d", q), func(t *testing.T) {
			data := recordPTOpt(t, "mix-dyn-O0", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3},
				PerCPU: true, CPUs: 2, Quantum: q, Seed: 9, Kernel: k, KernelSeed: 3})
			s, err := Open(data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var errs []string
			samples, idle := 0, 0
			err = s.Run(Handler{Sample: func(smp *sample.Sample) {
				samples++
				if smp.PID == 0 {
					idle++
				}
			}, Error: func(e *sample.ErrorLine) { errs = append(errs, fmt.Sprintf("%s at %#x time %d", e.Msg, e.IP, e.Time)) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(errs) != 0 {
				t.Errorf("%d decoder errors, the first: %s", len(errs), errs[0])
			}
			if samples == 0 || idle != 0 {
				t.Errorf("%d of %d samples the idle task's: want none of some", idle, samples)
			}
		})
	}
}
