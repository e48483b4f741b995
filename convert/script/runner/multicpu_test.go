package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestPTMultiCPU compares per-CPU recordings of 2 to 4 emulated CPUs,
// where every thread migrates between CPUs (a turn ends after a few
// hundred events, on a CPU chosen at random) and the idle task runs
// between turns: each CPU's queue follows the SWITCH_CPU_WIDE sideband
// (intel_pt_set_pid_tid_cpu), and the output is perf's at -j 1, 2 and 4,
// with the binaries present and hidden.
func TestPTMultiCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	empty := t.TempDir()
	for i, name := range ptPrograms {
		cpus := 2 + i%3
		t.Run(fmt.Sprintf("%s/%dcpus", name, cpus), func(t *testing.T) {
			var args []string
			if strings.HasPrefix(name, "forkexec") {
				args = []string{testprog.Path(t, "tiny")}
			}
			pt := synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
			if i%2 == 1 {
				pt.CYC = true
			}
			opt := record.Options{WriteOptions: record.WriteOptions{PT: pt, PerCPU: true, CPUs: cpus, Quantum: 300, Seed: uint32(7 + i)}}
			data := recordPT(t, testprog.Path(t, name), opt, args...)
			compare(t, data)
			compare(t, data, "--itrace=i0ns", "-F", "comm,tid,cpu,time,ip,sym,symoff,dso")
			// Lines that differ only in the IP: straight runs printed
			// in bulk (session/straight.go) at -j 1.
			compare(t, data, "--itrace=i0ns", "-F", "comm,tid,cpu,ip,sym,dso")
			compare(t, data, "--itrace=b", "-F", "+flags,+addr")
			compare(t, data, "--itrace=cr", "-F", "+callindent")
			compare(t, data, "--symfs="+empty, "--itrace=be")
		})
	}
}
