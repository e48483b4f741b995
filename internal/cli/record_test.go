package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/record/testprog"
)

func TestRecordEmulate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tiny.data")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"perfpt", "record", "--emulate", "-N", "--timing", "cyc", "-o", out, "--", testprog.Path(t, "tiny")},
		nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "traced 927 instructions of 1 threads") {
		t.Errorf("stderr: %s", stderr.String())
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("perf"); err == nil {
		b, err := exec.Command("perf", "script", "-i", out, "--itrace=i0ns", "-F", "ip").CombinedOutput()
		if err != nil || strings.Count(string(b), "\n") != 927 {
			t.Errorf("perf script: %v, %d lines", err, strings.Count(string(b), "\n"))
		}
	}
}

// TestRecordEmulatePTW records ptwtsx (PTWRITE, RTM) with -e
// intel_pt/ptw,fup_on_ptw/u and with ptw off: perf shows the nine PTWRITE
// payloads at their IPs, or none.
func TestRecordEmulatePTW(t *testing.T) {
	prog := testprog.Path(t, "ptwtsx")
	for _, c := range []struct {
		event string
		lines int
	}{{"intel_pt/ptw,fup_on_ptw/u", 9}, {"intel_pt/ptw=0,fup_on_ptw/u", 0}, {"intel_pt//u", 0}} {
		out := filepath.Join(t.TempDir(), "ptw.data")
		var stdout, stderr bytes.Buffer
		code := Main([]string{"perfpt", "record", "--emulate", "-N", "--per-thread", "-e", c.event, "-o", out, "--", prog},
			nil, &stdout, &stderr)
		if code != 0 || strings.Contains(stderr.String(), "exited with status") {
			t.Fatalf("%s: exit %d: %s", c.event, code, stderr.String())
		}
		if _, err := exec.LookPath("perf"); err != nil {
			continue
		}
		b, err := exec.Command("perf", "script", "-i", out, "--itrace=w", "-F", "ip,synth").CombinedOutput()
		if err != nil || strings.Count(string(b), "\n") != c.lines || (c.lines > 0 && !strings.Contains(string(b), "IP: 1 payload: 0x7a7a7a7a")) {
			t.Errorf("%s: perf script --itrace=w: %v\n%s", c.event, err, b)
		}
	}
}

// TestRecordCPUs records system-wide from the command line (-C and -a):
// perf script reads the files.
func TestRecordCPUs(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
	if os.Geteuid() != 0 {
		b, _ := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
		if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err != nil || p > 0 {
			t.Skip("-a and -C need root or kernel.perf_event_paranoid <= 0")
		}
	}
	for _, args := range [][]string{{"-C", "0"}, {"-a", "-g"}, {"--per-thread"}} {
		out := filepath.Join(t.TempDir(), "x.data")
		var stdout, stderr bytes.Buffer
		argv := append(append([]string{"perfpt", "record", "-e", "cpu-clock", "-F", "999", "-o", out}, args...), "--", "sleep", "0.05")
		if code := Main(argv, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		if b, err := exec.Command("perf", "script", "-i", out).CombinedOutput(); err != nil {
			t.Errorf("%v: perf script: %v\n%s", args, err, b)
		}
	}
}

func TestRecordErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--emulate", "--timing", "none", "--", "true"}, "needs --per-thread"},
		{[]string{"--emulate", "--", "/nonexistent/cmd"}, "cannot run /nonexistent/cmd: no such file or directory"},
		{[]string{"--emulate"}, "no command given"},
		{[]string{"--emulate", "--timing", "bogus", "--", "true"}, "--timing"},
		{[]string{"--emulate", "-e", "cpu-clock", "--", "true"}, "--emulate records intel_pt only"},
		{[]string{"-e", "bogus-event", "--", "true"}, "unsupported event"},
		{[]string{"-e", "cpu-clock", "-C", "99999", "--", "true"}, "CPU 99999 is not online"},
		{[]string{"-e", "cpu-clock", "--per-thread", "-a", "--", "true"}, "cannot be combined"},
		{[]string{"-e", "cpu-clock", "--snapshot", "--", "true"}, "--snapshot needs the intel_pt event"},
		{[]string{"-e", "cpu-clock", "-C", "0", "--", "/nonexistent/cmd"}, "cannot run /nonexistent/cmd"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(append([]string{"perfpt", "record", "-o", filepath.Join(t.TempDir(), "x.data")}, tc.args...), nil, &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), tc.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", tc.args, code, stderr.String(), tc.want)
		}
	}
	if _, err := os.Stat("/sys/bus/event_source/devices/intel_pt"); err != nil {
		var stdout, stderr bytes.Buffer
		code := Main([]string{"perfpt", "record", "-o", filepath.Join(t.TempDir(), "x.data"), "--", "true"}, nil, &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), "--emulate") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("no PMU: exit %d, stderr %q", code, stderr.String())
		}
	}
}
