package runner

import (
	"io"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSampledVsPerf prints sampled recordings made here with perf
// record (cpu-clock of a small C program: with -g, without, and system-wide
// with -g) with perf script and with perfpt script, each a process of its
// own (the command users run, start-up included), in the same run, and
// reports the CPU time of each per op and their ratio perf/perfpt.
func BenchmarkSampledVsPerf(b *testing.B) {
	for _, tool := range []string{"perf", "gcc", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s not installed", tool)
		}
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "perfpt")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/perfpt/perfpt/cmd/perfpt").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	prog := buildProg(b, dir)
	for _, rec := range []struct {
		name string
		args []string
	}{
		{"fp", []string{"-g", "-e", "cpu-clock", "-c", "20000"}},
		{"flat", []string{"-e", "cpu-clock", "-c", "20000"}},
		{"syswide", []string{"-a", "-g", "-e", "cpu-clock", "-c", "20000"}},
	} {
		data := filepath.Join(dir, rec.name+".data")
		args := append(append([]string{"record", "-q", "-o", data}, rec.args...), prog, "3000")
		if out, err := exec.Command("perf", args...).CombinedOutput(); err != nil {
			b.Logf("perf record %s: %v\n%s", rec.name, err, out)
			continue
		}
		b.Run(rec.name, func(b *testing.B) {
			var perfCPU, ourCPU time.Duration
			cpu := func(name string, args ...string) time.Duration {
				cmd := exec.Command(name, args...)
				cmd.Stdout = io.Discard
				if err := cmd.Run(); err != nil {
					b.Fatalf("%s %v: %v", name, args, err)
				}
				return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			for i := 0; i < b.N; i++ {
				perfCPU += cpu("perf", "script", "-i", data)
				ourCPU += cpu(bin, "script", "-i", data)
			}
			b.ReportMetric(float64(perfCPU)/float64(b.N)/1e6, "perf-cpu-ms/op")
			b.ReportMetric(float64(ourCPU)/float64(b.N)/1e6, "perfpt-cpu-ms/op")
			b.ReportMetric(float64(perfCPU)/float64(ourCPU), "ratio")
		})
	}
}
