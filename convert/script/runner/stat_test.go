package runner

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/perftext"
)

// TestStatRecordPerf compares perfpt script (and perfpt dump) with perf on
// perf stat record files: one count per event at the end, counts every
// interval per CPU (-a -A -I, whose counts perf script makes deltas), and
// a pipe. perf script prints their counts at each STAT_ROUND; perf report
// -D prints the stat records' fields and, as the events have no
// sample_id_all, a warning line first.
func TestStatRecordPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	need(t, "perf")
	dir := t.TempDir()
	for _, rec := range []struct {
		name string
		args []string
		pipe bool
	}{
		{"final", []string{"-e", "task-clock,page-faults,context-switches", "--", "sleep", "0.01"}, false},
		{"interval", []string{"-a", "-A", "-I", "20", "-e", "cpu-clock,context-switches", "--", "sleep", "0.07"}, false},
		{"pipe", []string{"-e", "task-clock,page-faults", "--", "sleep", "0.01"}, true},
	} {
		data := filepath.Join(dir, rec.name+".data")
		out := "-o" + data
		if rec.pipe {
			out = "-o-"
		}
		if err := perfTo(t, data, rec.pipe, append([]string{"stat", "record", out}, rec.args...)...); err != nil {
			t.Logf("perf stat record %s (left out): %v", rec.name, err)
			continue
		}
		t.Run(rec.name, func(t *testing.T) {
			compare(t, data)
			compare(t, data, "-D")
			compare(t, data, "--show-mmap-events") // the kernel map before the counts
			want, err := exec.Command("perf", "report", "-D", "-i", data).Output()
			if err != nil {
				t.Fatalf("perf report -D: %v", err)
			}
			f, err := perfdata.Open(data)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var got bytes.Buffer
			if err := perftext.Dump(&got, f, perftext.DumpOptions{Order: perfdata.TimeOrder}); err != nil {
				t.Fatal(err)
			}
			if n, first := diffLines(got.Bytes(), want); n != 0 {
				t.Errorf("perftext.Dump: %d lines differ from perf report -D; %s", n, first)
			}
		})
	}
}
