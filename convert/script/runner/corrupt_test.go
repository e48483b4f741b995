package runner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/testprog"
)

// corrupt copies data and overwrites AUX trace bytes: for each pattern, n
// bytes at a fraction of the way into each AUXTRACE buffer.
func corrupt(t *testing.T, data string, fill byte, n int, at float64) string {
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
	if len(spans) == 0 {
		t.Fatal("the recording has no AUXTRACE record large enough to corrupt")
	}
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
