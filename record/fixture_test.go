package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPTWTSXFixtures checks that perf decodes the committed PTWRITE/TSX
// recordings (testdata/ptwtsx, made by perfpt record --emulate) to the
// committed --itrace=w and --itrace=x output, so that decoders may be
// compared with them.
func TestPTWTSXFixtures(t *testing.T) {
	needPerf(t)
	dir := filepath.Join("..", "testdata", "ptwtsx")
	golden, err := filepath.Glob(filepath.Join(dir, "*.itrace-*.txt"))
	if err != nil || len(golden) == 0 {
		t.Fatalf("no golden files in %s (%v)", dir, err)
	}
	for _, g := range golden {
		name := filepath.Base(g)
		data, spec, _ := strings.Cut(strings.TrimSuffix(name, ".txt"), ".itrace-")
		args := []string{"--symfs", filepath.Join(dir, "symfs"), "--itrace=" + strings.TrimSuffix(spec, "-ns")}
		if strings.HasSuffix(spec, "-ns") {
			args = append(args, "--ns")
		}
		want, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		if got := perfScript(t, filepath.Join(dir, data+".perf.data"), args...); got != string(want) {
			t.Errorf("%s: perf script %v prints\n%s\nwant\n%s", name, args, got, want)
		}
	}
}
