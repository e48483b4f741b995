package native

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const unprivEnv = "PERFPT_NATIVE_UNPRIVILEGED"

// TestUnprivilegedHelper runs only as the child of TestPermissionDenied:
// it tries recordings that kernel.perf_event_paranoid forbids and prints
// one error per line.
func TestUnprivilegedHelper(t *testing.T) {
	if os.Getenv(unprivEnv) == "" {
		t.Skip("helper of TestPermissionDenied")
	}
	out := filepath.Join(t.TempDir(), "x.data")
	for _, tc := range []struct {
		event  string
		target Target
	}{
		{"cpu-clock:k", Target{}},
		{"cpu-clock:u", Target{AllCPUs: true}},
		{"cpu-clock:u", Target{}},
		{"cpu-clock", Target{}},
	} {
		res, err := Record(context.Background(), []string{"true"}, Options{Output: out, Event: tc.event, Target: tc.target})
		var warning string
		if res != nil {
			warning = res.Warning
		}
		fmt.Printf("RESULT %s %v: %v [%s]\n", tc.event, tc.target.AllCPUs, err, warning)
	}
}

// TestPermissionDenied records as an unprivileged user (root runs a copy
// of the test binary as nobody) with kernel.perf_event_paranoid at 2 or
// more: kernel sampling (:k) and -a are refused in one line that names the
// setting, user-space sampling of one's own command works, and an event
// without modifiers falls back to user space with a warning, as in perf.
func TestPermissionDenied(t *testing.T) {
	p, err := strconv.Atoi(paranoid())
	if err != nil || p < 2 {
		t.Skipf("kernel.perf_event_paranoid is %q: nothing is refused to test", paranoid())
	}
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		// t.TempDir's parent is private to root: make one nobody can enter.
		dir, err := os.MkdirTemp("", "perfpt-unpriv")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		os.Chmod(dir, 0o755)
		bin := filepath.Join(dir, "native.test")
		if err := copyFile(os.Args[0], bin); err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(bin, "-test.run=^TestUnprivilegedHelper$", "-test.v")
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	} else {
		cmd = exec.Command(os.Args[0], "-test.run=^TestUnprivilegedHelper$", "-test.v")
	}
	cmd.Env = append(os.Environ(), unprivEnv+"=1", "TMPDIR=/tmp")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var results []string
	for _, l := range strings.Split(string(out), "\n") {
		if r, ok := strings.CutPrefix(l, "RESULT "); ok {
			results = append(results, r)
		}
	}
	t.Logf("%s", strings.Join(results, "\n"))
	want := []string{
		"cpu-clock:k false: perf_event_open(cpu-clock:k) on CPU 0: permission denied: kernel.perf_event_paranoid is " + paranoid() + ": kernel sampling needs it at most 1",
		"cpu-clock:u true: perf_event_open(cpu-clock:u) on CPU 0: permission denied: kernel.perf_event_paranoid is " + paranoid() + ": -a and -C need it at most 0",
		"cpu-clock:u false: <nil> []",
		// perf's fallback for an event without modifiers.
		"cpu-clock false: <nil> [kernel.perf_event_paranoid is " + paranoid() + ": kernel not sampled, recording cpu-clock:u]",
	}
	if len(results) != len(want) {
		t.Fatalf("helper printed %q\n%s", results, out)
	}
	for i := range want {
		if !strings.HasPrefix(results[i], want[i]) {
			t.Errorf("got  %q\nwant %q...", results[i], want[i])
		}
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
