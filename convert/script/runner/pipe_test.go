package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPipeMode compares perfpt script with perf script on recordings
// written to a pipe (perf record -o -): the attrs arrive as records, so
// perf checks each new type's fields as it comes (process_attr: no CPU
// column without PERF_SAMPLE_CPU), keeps callchains on, and sizes the
// event column from the attrs seen when it prints the first name.
func TestPipeMode(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	need(t, "perf", "gcc")
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	if out, err := exec.Command("gcc", "-O1", "-g", "-o", prog, "testdata/prog.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	for _, rec := range []struct {
		name string
		args []string
		opts [][]string
	}{
		{"callchain", []string{"-g", "-e", "cpu-clock", "-c", "100000"}, [][]string{
			nil, {"-G"}, {"-F", "comm,tid,time,event,ip,sym"}, {"--show-task-events", "--show-mmap-events", "-F", "tid,time,ip"},
			// The header block, then the features as their records go by.
			{"--header"}, {"--header-only"}, {"-I", "-G"}, {"--header", "-I"},
		}},
		{"no-cpu", []string{"-e", "cpu-clock", "-e", "task-clock", "-c", "100000"}, [][]string{
			nil, {"-F", "+period,+event"}, {"-F", "tid,time,event,ip,dso"},
		}},
	} {
		data := filepath.Join(dir, rec.name+".data")
		out, err := os.Create(data)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("perf", append(append([]string{"record", "-q", "-o", "-"}, rec.args...), prog, "3000")...)
		cmd.Stdout = out
		err = cmd.Run()
		out.Close()
		if err != nil {
			t.Logf("perf record %s: %v", rec.name, err)
			continue
		}
		t.Run(rec.name, func(t *testing.T) {
			for _, o := range rec.opts {
				compare(t, data, o...)
			}
		})
	}
}
