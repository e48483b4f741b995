package runner

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestPTAuxSample compares AUX-sampling recordings (perf record
// --aux-sample): the trace comes only as the PERF_SAMPLE_AUX data of
// cpu-clock samples, queued by the ID_INDEX record's mmap indexes and
// decoded as overlapping windows (intel_pt_sampling_mode), in time order
// with timing packets and one window per sample without
// (intel_pt_process_timeless_sample).
func TestPTAuxSample(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	for _, tc := range []struct {
		prog        string
		pt          synth.Config
		size, every int
	}{
		{"mix-dyn-O2", synth.Config{TSC: true, MTC: true, MTCPeriod: 3}, 4096, 7000},
		{"mix-dyn-O2", synth.Config{}, 1024, 7000},
		{"threads-static-O2", synth.Config{TSC: true}, 16384, 5000},
		{"forkexec-dyn-O2", synth.Config{}, 4096, 3000},
		{"threads-static-O2", synth.Config{TSC: true, MTC: true, CYC: true}, 2048, 9000},
	} {
		t.Run(fmt.Sprintf("%s/timed=%v/%d/%d", tc.prog, tc.pt.Timing(), tc.size, tc.every), func(t *testing.T) {
			var args []string
			if strings.HasPrefix(tc.prog, "forkexec") {
				args = []string{testprog.Path(t, "tiny")}
			}
			opt := record.Options{WriteOptions: record.WriteOptions{PT: tc.pt, AuxSample: tc.size, AuxSampleEvery: tc.every}}
			data := recordPT(t, testprog.Path(t, tc.prog), opt, args...)
			compare(t, data)
			compare(t, data, "--itrace=i0ns")
			compare(t, data, "--itrace=be", "-F", "+flags")
			compare(t, data, "--itrace=cre", "-F", "+callindent")
			// In a pipe (perf inject -o -) perf queues no AUX sample
			// data and warns; the samples show cpu -1 (process_attr
			// checked only the first software event's fields).
			out, err := exec.Command("perf", "inject", "-i", data, "-o", "-").Output()
			if err != nil {
				t.Fatalf("perf inject -o -: %v", err)
			}
			pipe := filepath.Join(t.TempDir(), "pipe.data")
			if err := os.WriteFile(pipe, out, 0o644); err != nil {
				t.Fatal(err)
			}
			compare(t, pipe)
			compare(t, pipe, "--itrace=i0ns")
		})
	}
}

// TestPTAuxSamplePerCPU compares per-CPU AUX-sampling recordings (perf
// record --aux-sample without --per-thread): each cpu-clock sample carries
// the end of the trace of the CPU its thread runs on, queued by the CPU's
// mmap index, the thread known from the context-switch sideband; 1 and 2
// CPUs with migrating threads, with and without timing packets.
func TestPTAuxSamplePerCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	timed := synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
	for _, tc := range []struct {
		prog        string
		cpus        int
		size, every int
		system      bool // perf record -a, kernel+user
	}{
		{"mix-dyn-O2", 1, 4096, 7000, false},
		{"threads-dyn-O2", 2, 4096, 5000, false},
		{"mix-dyn-O2", 2, 1024, 9000, false},
		{"threads-dyn-O2", 2, 4096, 6000, true},
		{"mix-dyn-O2", 3, 2048, 9000, true},
	} {
		t.Run(fmt.Sprintf("%s/%dcpus/%d/%d/system=%v", tc.prog, tc.cpus, tc.size, tc.every, tc.system), func(t *testing.T) {
			wo := record.WriteOptions{PT: timed, PerCPU: true, CPUs: tc.cpus, Quantum: 300, Seed: 9,
				AuxSample: tc.size, AuxSampleEvery: tc.every, SystemWide: tc.system}
			comparePerCPU(t, tc.prog, wo, tc.system)
		})
	}
}
