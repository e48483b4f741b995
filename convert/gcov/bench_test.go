package gcov

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/internal/benchcpu"

	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/record/testprog"
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
// does, with nothing printed: the baseline of issue 8's 1.3x budget. It and
// BenchmarkFromRecording decode with one worker, so that their cpu-ns
// compare the work done, not what parallel chunks add.
func BenchmarkBareDecode(b *testing.B) {
	data := benchRecording(b)
	it, err := sample.ParseItrace("e")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := benchcpu.Now()
	defer benchcpu.Report(b, start)
	for b.Loop() {
		s, err := session.Open(data, session.Options{Itrace: it, Workers: 1})
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
		if _, _, err := FromRecording(data, RecordingOptions{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMain removes the benchmark recording and the test programs.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	testprog.Cleanup()
	os.Exit(code)
}

// BenchmarkLoadReportLarge is gcov's fixed cost on a large program: Load,
// an empty Report and the .gcov text of a generated -g -O0 program of 3000
// functions (about 1.4 MB), which decode and report every function.
func BenchmarkLoadReportLarge(b *testing.B) { benchLoadReport(b, "-O0") }

// BenchmarkLoadReportLargeO2 is BenchmarkLoadReportLarge built -O2, where
// the line model of optimised code reads the source (findRowless).
func BenchmarkLoadReportLargeO2(b *testing.B) { benchLoadReport(b, "-O2") }

// benchLoadReport is BenchmarkLoadReportLarge built with opt.
func benchLoadReport(b *testing.B, opt string) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		b.Skip("gcc not installed")
	}
	dir := b.TempDir()
	src, bin := filepath.Join(dir, "large.c"), filepath.Join(dir, "large")
	if err := os.WriteFile(src, largeProgram(3000), 0o644); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-g", opt, "-o", bin, src).CombinedOutput(); err != nil {
		b.Fatalf("gcc: %v\n%s", err, out)
	}
	b.ReportAllocs()
	start := benchcpu.Now()
	defer benchcpu.Report(b, start)
	for b.Loop() {
		p, err := Load(bin)
		if err != nil {
			b.Fatal(err)
		}
		rep := p.Report(NewCounts(p))
		var buf bytes.Buffer
		for _, f := range rep.Files {
			if err := rep.WriteText(&buf, f, p.SourceLines(f.Name), TextOptions{Branches: true}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// largeProgram returns the C source of n functions with a loop, an
// if/else chain and a switch each, called through a table.
func largeProgram(n int) []byte {
	var w bytes.Buffer
	w.WriteString("#include <stdio.h>\n#include <stdlib.h>\n")
	for i := range n {
		fmt.Fprintf(&w, "int f%d(int x) {\n\tint s = 0;\n\tfor (int j = 0; j < x; j++) {\n", i)
		fmt.Fprintf(&w, "\t\tif (j %% 3 == %d)\n\t\t\ts += j * %d;\n\t\telse if (j %% 5 == 1)\n\t\t\ts -= %d;\n", i%3, i%7+1, i%11)
		w.WriteString("\t\telse\n\t\t\ts ^= j;\n\t}\n\tswitch (x & 3) {\n\tcase 0: s += 1; break;\n")
		w.WriteString("\tcase 1: s += 2; break;\n\tdefault: s += 3; break;\n\t}\n\treturn s;\n}\n")
	}
	w.WriteString("int (*tab[])(int) = {")
	for i := range n {
		fmt.Fprintf(&w, "f%d,", i)
	}
	fmt.Fprintf(&w, "};\nint main(int argc, char **argv) {\n\tint n = argc > 1 ? atoi(argv[1]) : 1, s = 0;\n")
	fmt.Fprintf(&w, "\tfor (int i = 0; i < %d; i += 7)\n\t\ts += tab[i](n);\n\tprintf(\"%%d\\n\", s);\n\treturn 0;\n}\n", n)
	return w.Bytes()
}
