package runner

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestShowEvents records with perf the side-band records that
// --show-*-events print (context switches, namespaces, a system-wide
// recording with per-CPU switch records and lost records) and compares
// perfpt script with perf script on them, in perf's order among the
// samples and in file order with --show-round-events.
func TestShowEvents(t *testing.T) {
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
		{"switch", []string{"--switch-events", "-e", "cpu-clock", "-c", "100000"}, [][]string{
			{"--show-switch-events"}, {"--show-task-events", "-F", "comm,tid,time"},
			{"--header"}, {"--header-only", "-I"}, {"-I"},
			{"--show-switch-events", "--show-task-events", "--show-round-events", "-G"},
			{"--show-lost-events", "--show-namespace-events", "--show-cgroup-events", "--show-bpf-events"},
		}},
		{"namespaces", []string{"--namespaces", "-e", "cpu-clock", "-c", "100000", "-g"}, [][]string{
			{"--show-namespace-events"}, {"--show-namespace-events", "--show-task-events", "-F", "tid,time,event,ip"},
		}},
		// Whatever else runs on the machine is in it: no symbols.
		{"system-wide", []string{"-a", "--switch-events", "-e", "cpu-clock", "-c", "200000"}, [][]string{
			{"--show-switch-events", "-F", "pid,tid,cpu,time,event,ip"},
			{"--show-switch-events", "-C", "1", "-F", "tid,cpu,time,period"},
			{"--show-lost-events", "-F", "tid,time,ip"},
			{"--show-switch-events", "--show-round-events", "-F", "tid,cpu,time,ip"},
		}},
	} {
		data := filepath.Join(dir, rec.name+".data")
		args := append(append([]string{"record", "-q", "-o", data}, rec.args...), prog, "3000")
		if out, err := exec.Command("perf", args...).CombinedOutput(); err != nil {
			t.Logf("perf record %s: %v\n%s", rec.name, err, out)
			continue
		}
		t.Run(rec.name, func(t *testing.T) {
			for _, o := range rec.opts {
				compare(t, data, o...)
			}
		})
	}
}
