package pprof

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
)

// TestPTAuxSampleMatchesPerf: a profile of an AUX-sampling recording
// (perf record --aux-sample: each cpu-clock sample carries the last bytes
// of the trace) counts at each address the instructions perf script
// --itrace=i0ns samples there (the cpu-clock samples themselves are not
// instructions), untimed and timed, at -j 1, 2 and 4.
func TestPTAuxSampleMatchesPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
	bin := buildShared(t, "recurse")
	for _, pt := range []synth.Config{{}, {TSC: true, MTC: true, MTCPeriod: 3}} {
		t.Run(fmt.Sprintf("timed=%v", pt.Timing()), func(t *testing.T) {
			opt := record.Options{WriteOptions: record.WriteOptions{PT: pt, AuxSample: 2048, AuxSampleEvery: 3000}}
			data, _ := emulatePTWith(t, opt, bin, "10", "2")
			want := map[uint64]int64{}
			var total int64
			for _, l := range strings.Split(string(perfOutput(t, "script", "-i", data, "--itrace=i0ns", "-F", "event,ip")), "\n") {
				f := strings.Fields(l)
				if len(f) != 2 || !strings.HasPrefix(f[0], "instructions") {
					continue
				}
				a, err := strconv.ParseUint(f[1], 16, 64)
				if err != nil {
					t.Fatalf("perf script line %q: %v", l, err)
				}
				want[a]++
				total++
			}
			if total == 0 {
				t.Fatal("perf script found no instructions")
			}
			for _, j := range []int{1, 2, 4} {
				p, err := Convert(data, Options{Granularity: Address, Workers: j})
				if err != nil {
					t.Fatal(err)
				}
				bad := diffAddrInsns(t, fmt.Sprintf("-j %d: ", j), p, want)
				if j == 1 {
					t.Logf("%d instructions at %d addresses; %d differ", total, len(want), bad)
				}
			}
		})
	}
}
