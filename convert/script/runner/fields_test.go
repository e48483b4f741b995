package runner

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/internal/perfopt"
)

// TestTODPerf compares the tod field with perf's on recordings with clock
// data (-k), in a file and in a pipe (whose clock data comes as a record).
func TestTODPerf(t *testing.T) {
	opts := [][]string{{"-F", "+tod"}, {"-F", "comm,tod,time", "--ns"}, {"-F", "+tod,+misc", "--show-task-events", "--show-mmap-events"}}
	recs := []recorded{
		{"mono", []string{"-k", "mono", "-e", "cpu-clock", "-c", "50000"}, opts},
		{"realtime", []string{"-k", "CLOCK_REALTIME", "-e", "cpu-clock", "-c", "50000"}, opts},
	}
	compareRecorded(t, false, recs)
	// A pipe without clock data prints "disabled" (perf checks the clock
	// before the pipe's events and features are known).
	recs = append(recs, recorded{"none", []string{"-e", "cpu-clock", "-c", "50000"}, [][]string{{"-F", "+tod"}}})
	compareRecorded(t, true, recs)
}

// TestTODMissingClock: without clock data perf script refuses tod with its
// message and status 255 (perf_session__check_output_opt).
func TestTODMissingClock(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	need(t, "perf")
	data := filepath.Join(t.TempDir(), "x.data")
	if out, err := exec.Command("perf", "record", "-q", "-o", data, "-e", "cpu-clock", "true").CombinedOutput(); err != nil {
		t.Fatalf("perf record: %v\n%s", err, out)
	}
	cmd := exec.Command("perf", "script", "-i", data, "-F", "+tod")
	var perfErr bytes.Buffer
	cmd.Stderr = &perfErr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("perf script -F +tod: %v", err)
	}
	var out, errb bytes.Buffer
	err = Run(Config{Input: data, Fields: []string{"+tod"}}, &out, &errb)
	var x *perfopt.Exit
	if !errors.As(err, &x) || x.Msg+"\n" != perfErr.String() || x.Status != ee.ExitCode() {
		t.Fatalf("perfpt: %v (%+v), perf: %q status %d", err, x, perfErr.String(), ee.ExitCode())
	}
}

// TestMachinePIDPerf compares machine_pid, vcpu and bpf-output with
// perf's, which takes them and prints nothing for a host's samples and
// for events other than bpf-output (we refused them), in a file and in a
// pipe.
func TestMachinePIDPerf(t *testing.T) {
	opts := [][]string{{"-F", "+machine_pid,+vcpu"}, {"-F", "vcpu,ip"}, {"-F", "machine_pid"},
		{"-F", "+bpf-output"}, {"-F", "sw:bpf-output,comm"}}
	recs := []recorded{{"flat", []string{"-e", "cpu-clock", "-c", "50000"}, opts}}
	compareRecorded(t, false, recs)
	compareRecorded(t, true, recs)
}

// TestSrccodePerf compares the srccode field (each sample's source line,
// once per thread while it stays the same) with perf's on recordings of a
// program built with -g, with and without call chains and srcline.
func TestSrccodePerf(t *testing.T) {
	opts := [][]string{{"-F", "+srccode"}, {"-F", "+srcline,+srccode"}, {"-F", "comm,tid,ip,srccode"}}
	compareRecorded(t, false, []recorded{
		{"flat", []string{"-e", "cpu-clock", "-c", "50000"}, opts},
		{"g", []string{"-g", "-e", "cpu-clock", "-c", "50000"}, opts},
	})
}
