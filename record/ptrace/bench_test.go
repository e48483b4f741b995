package ptrace

import (
	"context"
	"testing"

	"github.com/perfpt/perfpt/record/testprog"
)

// BenchmarkTrace traces mix-dyn-O2 and reports instructions/s.
func BenchmarkTrace(b *testing.B) {
	for _, mode := range []Mode{Step, Fast} {
		for _, pin := range []bool{true, false} {
			name := mode.String()
			if pin {
				name += "-pinned"
			}
			noInterp := false
			if mode == Fast && !pin {
				name, noInterp = "fast-pinned-nointerp", true
				pin = true
			}
			b.Run(name, func(b *testing.B) {
				path := testprog.Path(b, "mix-dyn-O2")
				null := devnull(b)
				var insns uint64
				var secs float64
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					res, err := Run(context.Background(), []string{path}, Options{Mode: mode, Pin: pin, NoInterp: noInterp, Stdout: null, Stderr: null})
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
}
