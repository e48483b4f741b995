package gcov

import (
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestEmulatedKernelRecording: coverage from kernel+user recordings (the
// stand-in kernel and module of record/ksynth walked at each syscall and
// signal, a perf.data directory with kcore_dir) counts the user lines
// only, as gcov 12 does: every .gcov byte for byte, per-thread and on 2
// CPUs with migrating threads.
func TestEmulatedKernelRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	k := testprog.KernelWithModule(t)
	for _, name := range []string{"recurse", "threads"} {
		dir := t.TempDir()
		bin := buildC(t, dir, name, name, "-g", "-O0")
		args := programInputs(t, name)[0]
		g, text := realGcov(t, name, args)
		for _, mode := range []struct {
			name string
			wo   record.WriteOptions
		}{{"per-thread", record.WriteOptions{}},
			{"2cpus", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}, PerCPU: true, CPUs: 2, Quantum: 300, Seed: 9}}} {
			t.Run(name+"/"+mode.name, func(t *testing.T) {
				wo := mode.wo
				wo.Kernel, wo.KernelSeed = k, 3
				data := emulateWith(t, bin, args, wo)
				rep, progs, err := FromRecording(data, RecordingOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(progs) == 0 {
					t.Fatalf("%s: no program with debug information in the recording", name)
				}
				var a agreement
				a.compare(t, name, args, rep, g)
				if ours := ourText(t, progs[0], rep, name, TextOptions{}); ours != text {
					t.Errorf(".gcov text differs from gcov's:\n%s", firstDiff(ours, text))
				}
				for i, d := range a.diffs {
					if i < 10 {
						t.Log(d)
					}
				}
			})
		}
	}
}
