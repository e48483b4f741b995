package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
)

// corruptFile copies data with n bytes of fill at a fraction at of the
// way into each AUXTRACE payload.
func corruptFile(t *testing.T, data string, fill byte, n int, at float64) string {
	t.Helper()
	f, err := perfdata.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ off, size int64 }
	var spans []span
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		if r, ok := rs.Record.(*perfdata.RecordAuxtrace); ok && r.AuxSize > uint64(4*n) {
			spans = append(spans, span{r.DataOffset, int64(r.AuxSize)})
		}
	}
	f.Close()
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range spans {
		o := s.off + int64(float64(s.size)*at)
		for i := int64(0); i < int64(n); i++ {
			b[o+i] = fill
		}
	}
	out := filepath.Join(t.TempDir(), "corrupt.data")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCorruptTimedPerf compares the errors and resynchronisation after
// corrupted AUX bytes in timed recordings (TSC, MTC; per-thread and
// per-CPU) with perf's.
func TestCorruptTimedPerf(t *testing.T) {
	for _, c := range []struct {
		name   string
		cfg    synth.Config
		perCPU bool
	}{
		{"tsc-mtc", synth.Config{TSC: true, MTC: true, MTCPeriod: 3}, false},
		{"cyc", synth.Config{TSC: true, MTC: true, MTCPeriod: 3, CYC: true}, false},
		{"percpu-tsc-mtc", synth.Config{TSC: true, MTC: true, MTCPeriod: 3}, true},
		{"percpu-cyc", synth.Config{TSC: true, MTC: true, MTCPeriod: 3, CYC: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := emulateOpt(t, "mix-dyn-O2", record.WriteOptions{PT: c.cfg, PerCPU: c.perCPU})
			for _, at := range []float64{0.3, 0.5, 0.7, 0.9} {
				for _, fill := range []byte{0xff, 0x00, 0x55, 0x02} {
					t.Run(fmt.Sprintf("%02x@%.1f", fill, at), func(t *testing.T) {
						bad := corruptFile(t, data, fill, 7, at)
						perfCompare(t, bad, 2, "--itrace=i100ie")
						perfCompare(t, bad, 1, "--itrace=be", "--ns")
					})
				}
			}
		})
	}
}
