package runner

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// BenchmarkTracepointsVsPerf prints a tracepoint recording with perfpt
// script (-j 1) and with perf script in the same run and reports the CPU
// time of each per sample and their ratio (perf-cpu/perfpt-cpu). The
// recording is $PERFPT_TRACE_BENCH (e.g. a million syscall samples made
// as testdata/tracepoints/README.md says), else syscalls.data.
func BenchmarkTracepointsVsPerf(b *testing.B) {
	if _, err := exec.LookPath("perf"); err != nil {
		b.Skip("perf not installed")
	}
	file := os.Getenv("PERFPT_TRACE_BENCH")
	if file == "" {
		file = "../../../testdata/tracepoints/syscalls.data"
	}
	var perfCPU, ourCPU time.Duration
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("perf", "script", "-i", file)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		perfCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		before := cpuNow()
		if err := Run(Config{Input: file, Workers: 1}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
		ourCPU += cpuNow() - before
	}
	b.ReportMetric(float64(perfCPU)/float64(b.N)/1e9, "perf-cpu-s/op")
	b.ReportMetric(float64(ourCPU)/float64(b.N)/1e9, "perfpt-cpu-s/op")
	b.ReportMetric(float64(perfCPU)/float64(ourCPU), "ratio")
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
