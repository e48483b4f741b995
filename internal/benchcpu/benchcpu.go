// Package benchcpu reports CPU-time metrics in benchmarks. On our shared
// 2-core machines wall time swings with the load of other processes; the
// process's own user+system time per op is the steadier figure.
package benchcpu

import (
	"syscall"
	"testing"
	"time"
)

// Now returns the CPU time (user + system) this process has used so far, or
// 0 when the system cannot say.
func Now() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Report adds cpu-ns/op: the CPU time used since start per op (above ns/op
// when several goroutines work at once).
func Report(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(Now()-start)/float64(b.N), "cpu-ns/op")
}

// ReportMB adds cpu-MB/s: bytes per op processed per CPU second since start.
func ReportMB(b *testing.B, start time.Duration, bytes int) {
	if d := Now() - start; d > 0 {
		b.ReportMetric(float64(bytes)*float64(b.N)/d.Seconds()/1e6, "cpu-MB/s")
	}
}
