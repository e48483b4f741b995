package testprog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// CorruptAux copies the recording data and overwrites trace bytes: n bytes
// with fill a fraction at of the way into each AUXTRACE buffer longer than
// 4n. The copy is in a temporary directory of t.
func CorruptAux(t testing.TB, data string, fill byte, n int, at float64) string {
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
		t.Fatal("the recording has no AUXTRACE buffer large enough to corrupt")
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
