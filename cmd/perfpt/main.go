// Command perfpt turns Linux perf.data recordings of Intel Processor Trace
// into perf-script text, pprof profiles and gcov coverage.
//
// main stays thin: the commands live in internal/cli, where they are tested.
package main

import (
	"os"

	"github.com/perfpt/perfpt/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
