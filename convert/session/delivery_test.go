package session

import (
	"os"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/internal/benchcpu"
)

// benchDelivery decodes $PERFPT_SESSION_BENCH_DATA (a PT recording, e.g.
// /work/scratch/gcov2/big.data) as `perfpt script --itrace=e` does with
// handler h: the cost of delivering the flow, against h zero (bare).
func benchDelivery(b *testing.B, h func(n *uint64) Handler) {
	data := os.Getenv("PERFPT_SESSION_BENCH_DATA")
	if data == "" {
		b.Skip("PERFPT_SESSION_BENCH_DATA not set")
	}
	it, err := sample.ParseItrace("e")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := benchcpu.Now()
	defer benchcpu.Report(b, start)
	var n uint64
	for b.Loop() {
		s, err := Open(data, Options{Itrace: it, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Run(h(&n)); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	b.ReportMetric(float64(n)/float64(b.N), "insns/op")
}

func BenchmarkDeliveryBare(b *testing.B) {
	benchDelivery(b, func(*uint64) Handler { return Handler{} })
}

func BenchmarkDeliveryBlock(b *testing.B) {
	benchDelivery(b, func(n *uint64) Handler { return Handler{Block: func(bl *Block) { *n += bl.NInsn }} })
}

func BenchmarkDeliveryBlocks(b *testing.B) {
	benchDelivery(b, func(n *uint64) Handler {
		return Handler{Blocks: func(bs []Block) {
			for i := range bs {
				*n += bs[i].NInsn
			}
		}}
	})
}

func BenchmarkDeliveryRuns(b *testing.B) {
	benchDelivery(b, func(n *uint64) Handler {
		return Handler{Runs: func(rb *RunBatch) {
			for i := range rb.Runs {
				*n += uint64(rb.Runs[i].NInsn)
			}
		}}
	})
}

func BenchmarkDeliveryLeanRuns(b *testing.B) {
	benchDelivery(b, func(n *uint64) Handler {
		return Handler{LeanRuns: true, Runs: func(rb *RunBatch) {
			for i := range rb.Runs {
				*n += uint64(rb.Runs[i].NInsn)
			}
		}}
	})
}
