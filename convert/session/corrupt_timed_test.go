package session_test

import (
	"fmt"
	"testing"

	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
)

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
			ats, fills := []float64{0.3, 0.5, 0.7, 0.9}, []byte{0xff, 0x00, 0x55, 0x02}
			if raceOn {
				ats, fills = ats[:2], fills[:2]
			}
			for _, at := range ats {
				for _, fill := range fills {
					t.Run(fmt.Sprintf("%02x@%.1f", fill, at), func(t *testing.T) {
						bad := session.CorruptAux(t, data, fill, 7, at)
						perfCompare(t, bad, 2, "--itrace=i100ie")
						perfCompare(t, bad, 1, "--itrace=be", "--ns")
					})
				}
			}
		})
	}
}
