package ptrace

import (
	"context"
	"testing"

	"github.com/perfpt/perfpt/record/testprog"
)

// BenchmarkTrace traces mix-dyn-O2 (about 115k instructions: the dynamic
// loader, PLT calls, a vdso call, signals) and reports instructions/s.
func BenchmarkTrace(b *testing.B) {
	for _, c := range []struct {
		name string
		opt  Options
	}{
		{"step-pinned", Options{Mode: Step, Pin: true}},
		{"step", Options{Mode: Step}},
		{"fast-pinned", Options{Mode: Fast, Pin: true}},
		{"fast", Options{Mode: Fast}},
		{"fast-pinned-nointerp", Options{Mode: Fast, Pin: true, NoInterp: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			path := testprog.Path(b, "mix-dyn-O2")
			null := devnull(b)
			opt := c.opt
			opt.Stdout, opt.Stderr = null, null
			var insns uint64
			var secs float64
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), []string{path}, opt)
				if err != nil {
					b.Fatal(err)
				}
				insns += res.Stats.Insns
				secs += res.Stats.Elapsed.Seconds()
			}
			b.ReportMetric(float64(insns)/secs, "insns/s")
		})
	}
}
