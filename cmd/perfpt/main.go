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
	"runtime"
	"runtime/pprof"
	"strconv"

	"github.com/perfpt/perfpt/internal/cli"
)

func main() {
	os.Exit(run())
}

func run() int {
	// A heap floor: a noscan block never touched (no memory is paged in
	// for it) that the collector counts as live, so that the heap grows
	// to twice it before the first collection. perfpt's runs on small
	// recordings allocate their symbol tables early and keep them: without
	// it the collector ran four times in the first 100 ms of a 60 ms run
	// for a fifth of its CPU time; on big inputs it adds a few MB to a
	// goal of hundreds.
	floor := make([]byte, heapFloor())
	defer runtime.KeepAlive(floor)
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

// heapFloor is the heap floor's size: 32 MB, or PERFPT_HEAPFLOOR_MB (for
// measuring it).
func heapFloor() int {
	if mb, err := strconv.Atoi(os.Getenv("PERFPT_HEAPFLOOR_MB")); err == nil && mb >= 0 {
		return mb << 20
	}
	return 32 << 20
}
