package runner

import (
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestPTOverflow compares recordings where the hardware's internal buffer
// overflows now and then (OVF after lost packets, then FUP): perf's
// "Overflow packet" errors and where decoding goes on, untimed, timed and
// per-CPU.
func TestPTOverflow(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	timed := synth.Config{TSC: true, MTC: true, MTCPeriod: 3, OverflowEvery: 3000}
	for _, tc := range []struct {
		name string
		wo   record.WriteOptions
	}{
		{"untimed", record.WriteOptions{PT: synth.Config{OverflowEvery: 2500, OverflowDrop: 5}}},
		{"timed", record.WriteOptions{PT: timed}},
		{"percpu", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 400, Seed: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, prog := range []string{"mix-dyn-O2", "threads-static-O2"} {
				data := recordPT(t, testprog.Path(t, prog), record.Options{WriteOptions: tc.wo})
				compare(t, data)
				compare(t, data, "--itrace=i0ns")
				compare(t, data, "--itrace=be", "-F", "+flags")
			}
		})
	}
}

// TestPTLost compares recordings whose AUX area filled up now and then:
// trace lost up to the PSB that restarts it, the AUX record TRUNCATED
// (perf's "Lost trace data", intel_pt_lost, with the sample's cpu).
func TestPTLost(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	for _, every := range []int{2, 3} {
		wo := record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}, AuxBufSize: 4096, LoseEvery: every}
		data := recordPT(t, testprog.Path(t, "mix-dyn-O2"), record.Options{WriteOptions: wo})
		compare(t, data)
		compare(t, data, "--itrace=i0ns")
		compare(t, data, "--itrace=be", "-F", "+flags")
	}
}
