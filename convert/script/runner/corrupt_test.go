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

// TestPTCorrupted damages the AUX data of emulated recordings and checks
// that the error lines and the resynchronisation match perf's.
func TestPTCorrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	names := []string{"mix-static-O0"}
	if os.Getenv("PERFPT_FULL") != "" {
		names = append(names, "threads-dyn-O2")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data := recordPT(t, testprog.Path(t, name), record.Options{})
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
