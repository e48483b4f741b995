package timeline

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestFastSameBytes converts the recordings of testdata with the fast
// paths (quietRuns, fxtFast) and without them: the same bytes in both
// formats, at -j 1 and 2.
func TestFastSameBytes(t *testing.T) {
	r := repo()
	cases := []struct{ data, symfs string }{
		{"testdata/example/primes.perf.data", "testdata/example/symfs"},
		{"testdata/ptwtsx/ptw-cyc.perf.data", "testdata/ptwtsx/symfs"},
		{"testdata/ptwtsx/ptw-fup.perf.data", "testdata/ptwtsx/symfs"},
		{"testdata/ptwtsx/rtmroll.perf.data", "testdata/ptwtsx/symfs"},
		{"testdata/ptwtsx/tsx.perf.data", "testdata/ptwtsx/symfs"},
	}
	convert := func(in, symfs string, f Format, j int) []byte {
		var out bytes.Buffer
		strs := NewStrings()
		w := NewWriter(f, &out, strs)
		if _, err := Convert(in, w, strs, Options{Symfs: symfs, Workers: j}); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	defer func(old bool) { slowOnly = old }(slowOnly)
	for _, c := range cases {
		in, symfs := filepath.Join(r, c.data), filepath.Join(r, c.symfs)
		for _, f := range []Format{FormatFXT, FormatJSON} {
			for _, j := range []int{1, 2} {
				slowOnly = false
				fast := convert(in, symfs, f, j)
				slowOnly = true
				slow := convert(in, symfs, f, j)
				if !bytes.Equal(fast, slow) {
					t.Errorf("%s %v -j %d: %d bytes with the fast paths, %d without, not the same", c.data, f, j, len(fast), len(slow))
				}
			}
		}
	}
}
