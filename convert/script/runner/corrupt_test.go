package runner

import (
	"os"
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/testprog"
)

// corrupt copies data and overwrites AUX trace bytes: for each pattern, n
// bytes at a fraction of the way into each AUXTRACE buffer.
func corrupt(t *testing.T, data string, fill byte, n int, at float64) string {
	t.Helper()
	return testprog.CorruptAux(t, data, fill, n, at)
}

// deterministicProg, run for one round (argument 1), is the program the
// tests that damage a recording record: its trace is the same on every
// run (mix's is not: its vdso clock_gettime retries when the clock moves
// under it, about 1 run in 5), so the bytes damaged are the same packets
// every time and a difference from perf shows on every run or never.
const deterministicProg = "hot-dyn-O2"

// TestPTCorrupted damages the AUX data of emulated recordings and checks
// that the error lines and the resynchronisation match perf's.
func TestPTCorrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	names := []string{deterministicProg}
	if os.Getenv("PERFPT_FULL") != "" {
		names = append(names, "threads-dyn-O2", "mix-static-O0")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var args []string
			if name == deterministicProg {
				args = []string{"1"}
			}
			data := recordPT(t, testprog.Path(t, name), record.Options{}, args...)
			for _, c := range []struct {
				fill byte
				n    int
				at   float64
			}{
				{0xff, 7, 0.5},  // bad packets
				{0x00, 64, 0.3}, // PADs: flow mismatch
				{0x55, 12, 0.7}, // garbage TNTs
			} {
				bad := corrupt(t, data, c.fill, c.n, c.at)
				compare(t, bad)
				compare(t, bad, "--itrace=be", "-F", "+flags,+addr")
			}
		})
	}
}
