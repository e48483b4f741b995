package cli

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkMachineCorpusVsPerf runs perf script and perfpt script, and perf
// report --no-children and perfpt pprof, as processes on each recording of
// testdata/machine, interleaved in the same run, and reports the CPU time
// (user + system) of each per op and the ratio perf/perfpt (above 1:
// perfpt is faster).
func BenchmarkMachineCorpusVsPerf(b *testing.B) {
	for _, tool := range []string{"perf", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s not installed", tool)
		}
	}
	dir, err := filepath.Abs("../../testdata/machine")
	if err != nil {
		b.Fatal(err)
	}
	tmp := b.TempDir()
	bin := filepath.Join(tmp, "perfpt")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/perfpt/perfpt/cmd/perfpt").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	setupMachineCorpus(b, dir)
	cpu := func(b *testing.B, name string, args ...string) time.Duration {
		cmd := exec.Command(name, args...)
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s %v: %v", name, args, err)
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	for _, f := range []string{"cxx-O2", "rust-v0", "c-static", "node-basic-prof", "system-wide"} {
		data := filepath.Join(dir, f+".data")
		b.Run(f+"/script", func(b *testing.B) {
			var perf, ours time.Duration
			for b.Loop() {
				perf += cpu(b, "perf", "script", "-i", data)
				ours += cpu(b, bin, "script", "-i", data)
			}
			reportVsPerf(b, perf, ours)
		})
		b.Run(f+"/pprof", func(b *testing.B) {
			var perf, ours time.Duration
			out := filepath.Join(tmp, "out.pb.gz")
			for b.Loop() {
				perf += cpu(b, "perf", "report", "-i", data, "--no-children", "--stdio")
				ours += cpu(b, bin, "pprof", "-i", data, "-o", out)
			}
			reportVsPerf(b, perf, ours)
		})
	}
}

func reportVsPerf(b *testing.B, perf, ours time.Duration) {
	n := float64(b.N)
	b.ReportMetric(perf.Seconds()/n, "perf-cpu-s/op")
	b.ReportMetric(ours.Seconds()/n, "perfpt-cpu-s/op")
	if ours > 0 {
		b.ReportMetric(float64(perf)/float64(ours), "perf/perfpt")
	}
}
