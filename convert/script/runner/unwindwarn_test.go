package runner

import (
	"bytes"
	"strings"
	"testing"
)

// TestUnwindWarningsVerbose: DWARF unwinds that stop early (45 samples of
// cpu-clock-dwarf.data reach a module without unwind tables) leave stderr
// as perf 6.1 leaves it, with nothing about them; -v counts them.
func TestUnwindWarningsVerbose(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		cfg := configOf(t, "../../../testdata/perf/cpu-clock-dwarf.data")
		cfg.Verbose = verbose
		var out, errOut bytes.Buffer
		if err := Run(cfg, &out, &errOut); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(errOut.String(), "DWARF unwinds stopped early"); got != verbose {
			t.Errorf("-v %v: stderr %q", verbose, errOut.String())
		}
	}
}
