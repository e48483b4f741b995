package pprof

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/internal/benchcpu"
	"github.com/perfpt/perfpt/record/testprog"

	"github.com/perfpt/perfpt/convert/session"
)

var (
	benchOnce sync.Once
	benchData string
)

// benchRecording records recurse 25 2 (about 12 M instructions) once.
// The binary is kept beside the recording until TestMain ends: a
// benchmark's TempDir goes when that benchmark ends, and the benchmarks
// after it would decode nothing past the binary's first page.
func benchRecording(b *testing.B) string {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pprofbench")
		if err != nil {
			b.Fatal(err)
		}
		benchData = filepath.Join(dir, "perf.data")
		code, err := os.ReadFile(buildShared(b, "recurse"))
		if err != nil {
			b.Fatal(err)
		}
		bin := filepath.Join(dir, "recurse")
		if err := os.WriteFile(bin, code, 0o755); err != nil {
			b.Fatal(err)
		}
		data, _ := emulatePT(b, bin, "25", "2")
		if err := os.Rename(data, benchData); err != nil {
			b.Fatal(err)
		}
	})
	if benchData == "" {
		b.Skip("no recording")
	}
	return benchData
}

// BenchmarkBareDecode decodes the recording as `perfpt script --itrace=e`
// does: the baseline of issue 7's 1.3x budget.
func BenchmarkBareDecode(b *testing.B) {
	benchDecode(b, benchRecording(b), 0, session.Handler{})
}

// benchDecode decodes data as `perfpt script --itrace=e` does, with the
// given workers (0: one per CPU) and handler.
func benchDecode(b *testing.B, data string, workers int, h session.Handler) {
	it, err := sample.ParseItrace("e")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := benchcpu.Now()
	defer benchcpu.Report(b, start)
	for b.Loop() {
		s, err := session.Open(data, session.Options{Itrace: it, Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Run(h); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// sumBlocks is a Block handler that only reads each Block.
func sumBlocks(n *uint64) session.Handler {
	return session.Handler{Block: func(bl *session.Block) { *n += bl.NInsn }}
}

// BenchmarkConvertPT is `perfpt pprof` on the recording, without writing.
func BenchmarkConvertPT(b *testing.B) {
	benchConvert(b, benchRecording(b), 0)
}

// TestMain removes the benchmark recording and the test programs.
func TestMain(m *testing.M) {
	code := m.Run()
	testprog.Cleanup()
	if benchData != "" {
		os.RemoveAll(filepath.Dir(benchData))
	}
	os.Exit(code)
}

// BenchmarkDecodeBlocks is the bare decode with the session delivering
// Blocks to an empty handler: what the session's block delivery costs
// before pprof does anything.
func BenchmarkDecodeBlocks(b *testing.B) {
	var n uint64
	benchDecode(b, benchRecording(b), 0, sumBlocks(&n))
}

// largeData returns the recording named by $PERFPT_BENCH_DATA (e.g. the
// ptgen recording of scripts/bench.sh), where decoding dominates.
func largeData(b *testing.B) string {
	data := os.Getenv("PERFPT_BENCH_DATA")
	if data == "" {
		b.Skip("PERFPT_BENCH_DATA not set")
	}
	return data
}

// BenchmarkBareDecodeLarge is BenchmarkBareDecode on $PERFPT_BENCH_DATA
// with one worker.
func BenchmarkBareDecodeLarge(b *testing.B) {
	benchDecode(b, largeData(b), 1, session.Handler{})
}

// BenchmarkConvertPTLarge is BenchmarkConvertPT on $PERFPT_BENCH_DATA with
// one worker.
func BenchmarkConvertPTLarge(b *testing.B) {
	benchConvert(b, largeData(b), 1)
}

// BenchmarkConvertPTLargeParallel is BenchmarkConvertPTLarge with one
// decode worker per CPU (the default of perfpt pprof): compare its ns/op
// (wall) with BenchmarkDecodeRunsLargeParallel's, the parallel decode
// with an empty Runs handler.
func BenchmarkConvertPTLargeParallel(b *testing.B) {
	benchConvert(b, largeData(b), 0)
}

// benchConvert converts data with the given decode workers (0: one per
// CPU), without writing.
func benchConvert(b *testing.B, data string, workers int) {
	b.ReportAllocs()
	start := benchcpu.Now()
	defer benchcpu.Report(b, start)
	for b.Loop() {
		if _, err := Convert(data, Options{Workers: workers}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeRunsLargeParallel is the decode of $PERFPT_BENCH_DATA on
// one worker per CPU, its runs delivered to a handler that only reads
// them: the parallel bare decode (perfpt script --itrace=e decodes on one
// worker).
func BenchmarkDecodeRunsLargeParallel(b *testing.B) {
	var n uint64
	benchDecode(b, largeData(b), 0, sumRuns(&n))
}

// sumRuns is a Runs handler that only reads each run.
func sumRuns(n *uint64) session.Handler {
	return session.Handler{Runs: func(rb *session.RunBatch) {
		for i := range rb.Runs {
			*n += uint64(rb.Runs[i].NInsn)
		}
	}}
}

// BenchmarkDecodeBlocksLarge is BenchmarkDecodeBlocks on $PERFPT_BENCH_DATA
// with one worker.
func BenchmarkDecodeBlocksLarge(b *testing.B) {
	var n uint64
	benchDecode(b, largeData(b), 1, sumBlocks(&n))
}

// BenchmarkPTProfile is the profile building after the decode: the fixed
// cost per conversion (locations, DWARF lookups, samples).
func BenchmarkPTProfile(b *testing.B) {
	data := benchRecording(b)
	o := Options{Workers: 1}
	s, err := session.Open(data, o.session())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	a := newAgg(s, &o)
	if err := s.Run(session.Handler{Runs: a.Runs}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := benchcpu.Now()
	defer benchcpu.Report(b, start)
	for b.Loop() {
		if _, err := profileOf(s, a, Address); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPTRuns replays the recording's decoded runs into the
// aggregation: pprof's own per-run cost, without the decode.
func BenchmarkPTRuns(b *testing.B) {
	benchRuns(b, benchRecording(b))
}

// BenchmarkPTRunsLarge is BenchmarkPTRuns on $PERFPT_BENCH_DATA.
func BenchmarkPTRunsLarge(b *testing.B) {
	benchRuns(b, largeData(b))
}

// benchRuns replays the first 2^14 runs of data 64 times per op: they
// stay in the cache, as the session's batches do, so that the memory
// bandwidth of a long replay is not what is measured.
func benchRuns(b *testing.B, data string) {
	o := Options{Workers: 1}
	s, err := session.Open(data, o.session())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var batches []session.RunBatch
	n := 0
	if err := s.Run(session.Handler{Runs: func(rb *session.RunBatch) {
		if n < 1<<14 {
			c := *rb
			c.Runs, c.Marks = slices.Clone(rb.Runs), slices.Clone(rb.Marks)
			batches = append(batches, c)
			n += len(rb.Runs)
		}
	}}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := benchcpu.Now()
	defer benchcpu.Report(b, start)
	for b.Loop() {
		a := newAgg(s, &o)
		for range 64 {
			for i := range batches {
				a.Runs(&batches[i])
			}
		}
	}
	b.ReportMetric(float64(benchcpu.Now()-start)/float64(b.N)/float64(64*n), "cpu-ns/run")
}

// BenchmarkWritePT is perfpt pprof's writing of the recurse profile
// (~24k samples): the pprof package's encoding, then the compression.
func BenchmarkWritePT(b *testing.B) {
	p, err := Convert(benchRecording(b), Options{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := benchcpu.Now()
	defer benchcpu.Report(b, start)
	for b.Loop() {
		if err := Write(io.Discard, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeRunsLarge is BenchmarkDecodeBlocksLarge with the runs
// delivered in batches (Handler.Runs, as pprof takes them).
func BenchmarkDecodeRunsLarge(b *testing.B) {
	var n uint64
	benchDecode(b, largeData(b), 1, sumRuns(&n))
}
