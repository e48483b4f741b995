package gcov

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfpt/perfpt/record"
)

// emulate records bin with args with the emulated intel_pt//u recorder.
func emulate(t testing.TB, bin string, args []string) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "perf.data")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opt := record.Options{Output: data}
	opt.BuildIDDir = "-"
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	opt.Trace.Stdout = devnull
	if _, err := record.Emulate(ctx, append([]string{bin}, args...), opt); err != nil {
		t.Skipf("emulated recording of %s failed: %v", bin, err)
	}
	return data
}

// TestEmulatedRecordingAgreement is issue 8's check: each test program built
// -g -O0 and recorded with the emulated PT recorder, coverage computed from
// the perf.data, compared with gcov 12 on a --coverage build run with the
// same input.
func TestEmulatedRecordingAgreement(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	for _, name := range testPrograms {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			bin := buildC(t, dir, name, name, "-g", "-O0")
			var a agreement
			for _, args := range programInputs(t, name) {
				data := emulate(t, bin, args)
				rep, progs, err := FromRecording(data, RecordingOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(progs) == 0 {
					t.Fatalf("%s: no program with debug information in the recording", name)
				}
				g, text := realGcov(t, name, args)
				a.compare(t, name, args, rep, g)
				a.texts++
				if ours := ourText(t, progs[0], rep, name, TextOptions{}); ours == text {
					a.textsSame++
				} else if a.texts-a.textsSame == 1 {
					t.Logf("first .gcov text difference:\n%s", firstDiff(ours, text))
				}
			}
			pct := func(n, d int) float64 { return 100 * float64(n) / float64(d) }
			t.Logf("%s: %d line comparisons: executed/never/no-code %.1f%%, exact count %.1f%%; functions called %d/%d",
				name, a.lines, pct(a.status, a.lines), pct(a.exact, a.lines), a.funcsOK, a.funcs)
			t.Logf("%s: .gcov text identical to gcov's for %d of %d inputs", name, a.textsSame, a.texts)
			for i, d := range a.diffs {
				if i >= 10 {
					break
				}
				t.Log(d)
			}
			if pct(a.status, a.lines) < 98 || pct(a.exact, a.lines) < 95 || a.funcsOK != a.funcs {
				t.Errorf("%s: agreement below the bar", name)
			}
		})
	}
}
