package runner

import (
	"fmt"
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestPTSnapshot compares snapshot-mode recordings (perf record -S): the
// snapshots of the overwritten AUX area overlap (found by TSC, or by the
// bytes without timing, intel_pt_find_overlap) or leave gaps.
func TestPTSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	for _, tc := range []struct {
		pt          synth.Config
		size, every int
	}{
		{synth.Config{TSC: true, MTC: true, MTCPeriod: 3}, 8192, 6000},
		{synth.Config{}, 8192, 6000},
		{synth.Config{TSC: true}, 4096, 10000},
		{synth.Config{}, 4096, 10000},
	} {
		t.Run(fmt.Sprintf("tsc=%v/%d/%d", tc.pt.TSC, tc.size, tc.every), func(t *testing.T) {
			opt := record.Options{WriteOptions: record.WriteOptions{PT: tc.pt, SnapshotSize: tc.size, SnapshotEvery: tc.every}}
			data := recordPT(t, testprog.Path(t, "mix-dyn-O2"), opt)
			compare(t, data)
			compare(t, data, "--itrace=i0ns")
			compare(t, data, "--itrace=be", "-F", "+flags")
		})
	}
}

// TestPTSnapshotPerCPU compares per-CPU snapshot-mode recordings (perf
// record -S without --per-thread, its default layout): each snapshot
// copies every CPU's overwritten area at once, CPUs that traced nothing
// since the last one give none; 1 and 2 CPUs with migrating threads,
// areas that overlap from one snapshot to the next and areas that leave
// gaps, with and without the kernel; and system-wide (perf record -a -S,
// the kernel's scheduler switching threads and the idle task on 2 and 3
// CPUs).
func TestPTSnapshotPerCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	timed := synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
	for _, tc := range []struct {
		name        string
		prog        string
		cpus        int
		size, every int
		kernel      bool
		system      bool // perf record -a -S
	}{
		{"1cpu-overlap", "mix-dyn-O2", 1, 8192, 6000, false, false},
		{"2cpus-overlap", "threads-dyn-O2", 2, 8192, 6000, false, false},
		{"2cpus-gaps", "mix-dyn-O2", 2, 4096, 12000, false, false},
		{"2cpus-kernel", "mix-dyn-O2", 2, 8192, 10000, true, false},
		{"system-wide-3cpus", "threads-dyn-O2", 3, 8192, 10000, true, true},
		{"system-wide-2cpus-gaps", "mix-dyn-O2", 2, 4096, 16000, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wo := record.WriteOptions{PT: timed, PerCPU: true, CPUs: tc.cpus, Quantum: 300, Seed: 9,
				SnapshotSize: tc.size, SnapshotEvery: tc.every, SystemWide: tc.system}
			comparePerCPU(t, tc.prog, wo, tc.kernel)
		})
	}
}

// comparePerCPU records prog with wo (kernel+user when kernel is set) and
// compares perfpt script with perf script on it: the default output, i0ns
// with the CPU and thread of each instruction, and be with flags.
func comparePerCPU(t *testing.T, prog string, wo record.WriteOptions, kernel bool) {
	t.Helper()
	var data string
	if kernel {
		data = recordKernel(t, testprog.Path(t, prog), wo)
	} else {
		data = recordPT(t, testprog.Path(t, prog), record.Options{WriteOptions: wo})
	}
	compare(t, data)
	compare(t, data, "--itrace=i0ns", "-F", "comm,tid,cpu,ip,sym")
	compare(t, data, "--itrace=be", "-F", "+flags")
}
