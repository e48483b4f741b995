package record_test

import (
	"context"
	"fmt"
	"log"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/ptrace"
	"github.com/perfpt/perfpt/record/synth"
)

// Make an emulated intel_pt//u recording of a program, as a test fixture:
// per CPU with timing (what perf record writes by default), the vdso not
// saved anywhere.
func ExampleEmulate() {
	res, err := record.Emulate(context.Background(), []string{"./prog", "arg"}, record.Options{
		Output: "/tmp/prog.data",
		Trace:  ptrace.Options{Mode: ptrace.Fast},
		WriteOptions: record.WriteOptions{
			PT:         synth.Config{TSC: true, MTC: true, MTCPeriod: 3},
			PerCPU:     true,
			BuildIDDir: "-",
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Insns, "instructions in", len(res.Trace.Trace.Threads), "threads; exit status", res.Exit)
}
