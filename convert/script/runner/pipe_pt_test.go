package runner

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestPTPipe compares a PT recording in pipe mode (perf inject -o -
// writes one), read from a file and as a directory's data, with perf
// script reading it from standard input (perf 6.1 cannot read a piped
// PT file with -i FILE): psb offsets, samples and errors count from the
// stream's AUXTRACE data as in file mode.
func TestPTPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	opt := record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}}}
	data := recordPT(t, testprog.Path(t, "mix-dyn-O2"), opt)
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe.data")
	out, err := exec.Command("perf", "inject", "-i", data, "-o", "-").Output()
	if err != nil || len(out) == 0 {
		t.Skipf("perf inject -o - did not write a pipe-mode file: %v", err)
	}
	if err := os.WriteFile(pipe, out, 0o644); err != nil {
		t.Fatal(err)
	}
	asDir := filepath.Join(dir, "dir")
	if err := os.Mkdir(asDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(asDir, "data"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, inv := range [][]string{{}, {"--itrace=i0ns"}, {"--itrace=be", "-F", "+flags"}} {
		cmd := exec.Command("perf", append([]string{"script", "-i", "-"}, inv...)...)
		cmd.Stdin = bytes.NewReader(out)
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("perf script -i - %v: %v", inv, err)
		}
		cfg := Config{}
		for i := 0; i < len(inv); i++ {
			switch inv[i] {
			case "-F":
				i++
				cfg.Fields = append(cfg.Fields, inv[i])
			default:
				cfg.ItraceSet, cfg.Itrace = true, inv[i][len("--itrace="):]
			}
		}
		for _, in := range []string{pipe, asDir} {
			for _, j := range []int{1, 2} {
				cfg.Input, cfg.Workers = in, j
				var got, stderr bytes.Buffer
				if err := Run(cfg, &got, &stderr); err != nil {
					t.Fatalf("perfpt script -i %s %v: %v\n%s", in, inv, err, stderr.String())
				}
				if n, first := diffLines(got.Bytes(), want); n != 0 {
					t.Errorf("perfpt script -i %s %v -j %d: %d lines differ; %s", in, inv, j, n, first)
				}
			}
		}
	}
}
