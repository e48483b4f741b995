// Command perfpt turns Linux perf.data recordings of Intel Processor Trace
// into perf-script text, pprof profiles and gcov coverage.
//
// main stays thin: the commands live in internal/cli, where they are tested.
//
// With PERFPT_CPUPROFILE=FILE set, perfpt writes a CPU profile of its run to
// FILE: how default.pgo (the profile-guided optimisation profile of this
// command) is made: see scripts/pgo.sh.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/perfpt/perfpt/internal/cli"
)

func main() {
	os.Exit(run())
}

func run() int {
	if path := os.Getenv("PERFPT_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "perfpt: %v\n", err)
			return 1
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "perfpt: %s: %v\n", path, err)
			return 1
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	return cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr)
}
