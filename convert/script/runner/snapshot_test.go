package runner

import (
	"fmt"
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestPTSnapshot compares snapshot-mode recordings (perf record -S): the
// snapshots of the overwritten AUX area overlap (found by TSC, or by the
// bytes without timing, intel_pt_find_overlap) or leave gaps.
func TestPTSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	for _, tc := range []struct {
		pt          synth.Config
		size, every int
	}{
		{synth.Config{TSC: true, MTC: true, MTCPeriod: 3}, 8192, 6000},
		{synth.Config{}, 8192, 6000},
		{synth.Config{TSC: true}, 4096, 10000},
		{synth.Config{}, 4096, 10000},
	} {
		t.Run(fmt.Sprintf("tsc=%v/%d/%d", tc.pt.TSC, tc.size, tc.every), func(t *testing.T) {
			opt := record.Options{WriteOptions: record.WriteOptions{PT: tc.pt, SnapshotSize: tc.size, SnapshotEvery: tc.every}}
			data := recordPT(t, testprog.Path(t, "mix-dyn-O2"), opt)
			compare(t, data)
			compare(t, data, "--itrace=i0ns")
			compare(t, data, "--itrace=be", "-F", "+flags")
		})
	}
}
