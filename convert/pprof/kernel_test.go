package pprof

import (
	"os/exec"
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestPTKernelMatchesPerf: the profile of a kernel+user recording (the
// stand-in kernel and module of record/ksynth walked at each syscall and
// signal, read from the perf.data directory's kcore_dir) has perf
// script's instructions per function, the kernel's and the module's among
// them, and its kernel frames stand on the user frames that entered the
// kernel: each function's cumulative share is perf report's children.
// Per-thread and per-CPU (one CPU) recordings. On several CPUs perf's
// thread stack is flushed whenever the thread's trace number changes
// (thread_stack__event), which it does at each migration, so perf
// report's children lose the callers there; the profile keeps them.
func TestPTKernelMatchesPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
	k := testprog.KernelWithModule(t)
	bin := buildShared(t, "recurse")
	for _, c := range []struct {
		name string
		wo   record.WriteOptions
	}{{"per-thread", record.WriteOptions{}},
		{"per-cpu", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}, PerCPU: true}}} {
		t.Run(c.name, func(t *testing.T) {
			wo := c.wo
			wo.Kernel, wo.KernelSeed = k, 3
			data, _ := emulatePTWith(t, record.Options{WriteOptions: wo}, bin, "10", "2")
			p, err := Convert(data, Options{Granularity: Function})
			if err != nil {
				t.Fatal(err)
			}
			flat, cum, total := functionInsns(p)
			want := perfFlatInsns(t, data)
			bad := checkFlatInsns(t, flat, want)
			for _, fn := range []string{"entry_SYSCALL_64", "do_syscall_64", "ptmod_ioctl"} {
				if want[fn] == 0 {
					t.Errorf("perf script shows no instruction of %s: the trace does not walk it", fn)
				}
			}
			t.Logf("%d functions, %d instructions; %d flat counts differ from perf script's", len(want), total, bad)
			// Call chains of 64 entries: the kernel's frames above
			// printf's deepest ones pass perf's default of 16.
			children := perfChildrenItrace(t, data, "i0nsg64")
			checkCumShares(t, cum, total, children, []string{"main", "fib", "entry_SYSCALL_64", "do_syscall_64", "helper", "ptmod_ioctl"})
		})
	}
}
