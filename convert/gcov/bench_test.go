package gcov

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/perfpt/perfpt/internal/benchcpu"

	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/session"
)

var (
	benchOnce sync.Once
	benchData string
	benchDir  string
)

// benchRecording records recurse 25 2 (about 12 M instructions) once, or
// returns $PERFPT_GCOV_BENCH_DATA (a larger recording of a -g program).
func benchRecording(b *testing.B) string {
	if d := os.Getenv("PERFPT_GCOV_BENCH_DATA"); d != "" {
		return d
	}
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gcovbench")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = dir
		bin := buildC(b, dir, "recurse", "recurse", "-g", "-O0")
		data := emulate(b, bin, []string{"25", "2"})
		benchData = filepath.Join(dir, "perf.data")
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
// does, with nothing printed: the baseline of issue 8's 1.3x budget.
func BenchmarkBareDecode(b *testing.B) {
	data := benchRecording(b)
	it, err := script.ParseItrace("e")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := benchcpu.Now()
	defer benchcpu.Report(b, start)
	for b.Loop() {
		s, err := session.Open(data, session.Options{Itrace: it})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Run(session.Handler{}); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkRunDelivery is the bare decode with a lean Runs handler that
// only counts: the session's cost of delivering the runs, which gcov
// cannot avoid.
func BenchmarkRunDelivery(b *testing.B) {
	data := benchRecording(b)
	b.ReportAllocs()
	start := benchcpu.Now()
	defer benchcpu.Report(b, start)
	var n uint64
	for b.Loop() {
		s, err := session.Open(data, session.Options{Itrace: BareItrace()})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Run(session.Handler{LeanRuns: true, Runs: func(rb *session.RunBatch) { n += uint64(len(rb.Runs)) }}); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	b.ReportMetric(float64(n)/float64(b.N), "blocks/op")
}

// BenchmarkAggregatorRuns replays the recording's runs into an
// Aggregator: gcov's own per-run work, without the decoding.
func BenchmarkAggregatorRuns(b *testing.B) {
	data := benchRecording(b)
	s, err := session.Open(data, session.Options{Itrace: BareItrace(), Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var batches []session.RunBatch
	n := 0
	err = s.Run(session.Handler{LeanRuns: true, Runs: func(rb *session.RunBatch) {
		batches = append(batches, session.RunBatch{PID: rb.PID, TID: rb.TID, Runs: append([]session.Run(nil), rb.Runs...)})
		n += len(rb.Runs)
	}})
	if err != nil {
		b.Fatal(err)
	}
	// The programs are loaded once, outside the timed loop.
	a := NewAggregator(s.Machine())
	for i := range batches {
		a.Runs(&batches[i])
	}
	b.ReportAllocs()
	start := benchcpu.Now()
	defer benchcpu.Report(b, start)
	for b.Loop() {
		for _, t := range a.order {
			t.counts = NewCounts(t.prog)
		}
		a.threads, a.last = map[int32]*threadCache{}, noThread()
		for i := range batches {
			a.Runs(&batches[i])
		}
	}
	b.ReportMetric(float64(benchcpu.Now()-start)/float64(b.N)/float64(n), "cpu-ns/block")
}

// BenchmarkFromRecording is `perfpt gcov` without writing files.
func BenchmarkFromRecording(b *testing.B) {
	data := benchRecording(b)
	b.ReportAllocs()
	start := benchcpu.Now()
	defer benchcpu.Report(b, start)
	for b.Loop() {
		if _, _, err := FromRecording(data, RecordingOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMain removes the benchmark recording.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}
