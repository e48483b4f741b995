package record

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/perfpt/perfpt/record/ptrace"
)

// DefaultClockStart is where the emulated recordings' virtual clock starts
// (1000 s, so that perf prints times like 1000.000123).
const DefaultClockStart = 1_000_000_000_000

// Options configure Emulate. The zero value records in fast mode with
// return compression, PSB every 4 KiB and no timing, to "perf.data".
type Options struct {
	Output string // the perf.data path ("" means perf.data)
	// Tracer options: mode, environment, streams, ASLR, pinning, OnInsn.
	Trace ptrace.Options
	WriteOptions
}

// Result says what Emulate recorded.
type Result struct {
	Exit   int // the command's exit status (128+signal when killed)
	Insns  uint64
	Tracer ptrace.Stats
	Write  *WriteStats
	// Trace is the observed flow (what the perf.data encodes).
	Trace *ptrace.Result
}

// Emulate runs argv under ptrace, observes its exact user-space flow and
// writes the perf.data an intel_pt//u recording would have produced. When
// the command cannot be traced to the end (ctx cancelled, a tracer error),
// the flow observed so far is still written, and the error returned.
func Emulate(ctx context.Context, argv []string, opt Options) (*Result, error) {
	out := opt.Output
	if out == "" {
		out = "perf.data"
	}
	if opt.Trace.ClockStart == 0 {
		opt.Trace.ClockStart = DefaultClockStart
	}
	if opt.Cmdline == nil {
		opt.Cmdline = os.Args
	}
	res, terr := ptrace.Run(ctx, argv, opt.Trace)
	if res == nil {
		return nil, terr
	}
	r := &Result{Exit: res.Exit, Insns: res.Stats.Insns, Tracer: res.Stats, Trace: res}
	ws, werr := WriteTrace(out, res.Trace, opt.WriteOptions)
	r.Write = ws
	if werr != nil {
		werr = fmt.Errorf("writing %s: %w", out, werr)
	}
	return r, errors.Join(terr, werr)
}
