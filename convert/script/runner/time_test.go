package runner

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/perfopt"
)

// TestTimeRangesPerf compares perf script's --time with perfpt's on a
// sampled recording, whose header has the first and last sample times:
// several ranges, percentages (slices, ranges, one percentage) and the
// strings perf refuses, which must give perf's message and status.
func TestTimeRangesPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	need(t, "perf", "gcc")
	dir := t.TempDir()
	prog := buildProg(t, dir)
	data := filepath.Join(dir, "cc.data")
	if out, err := exec.Command("perf", "record", "-q", "-o", data, "-e", "cpu-clock", "-c", "50000", prog, "3000").CombinedOutput(); err != nil {
		t.Fatalf("perf record: %v\n%s", err, out)
	}
	all, err := exec.Command("perf", "script", "-i", data, "-F", "time", "--ns").Output()
	if err != nil {
		t.Fatal(err)
	}
	times := strings.Fields(strings.ReplaceAll(string(all), ":", ""))
	if len(times) < 20 {
		t.Fatalf("perf recorded %d samples", len(times))
	}
	// at is the time of the sample a fraction f into the recording's
	// samples: the ranges below select some samples whatever the machine's
	// load did to the times.
	at := func(f float64) string { return times[int(f*float64(len(times)))] }
	cases := []string{
		at(.1) + "," + at(.2) + " " + at(.4) + "," + at(.5),
		at(.1) + "," + at(.2) + "  " + at(.6) + ",",
		"," + at(.1) + " " + at(.5) + "," + at(.6) + " " + at(.9) + "," + at(.95),
		at(.3) + "," + at(.7),
		"," + at(.5),
		"10%/2", "10%/2,10%/5", "25%/4", "33.3%/3", "0%-10%,50%-60%", "90%-100%", "25%", "100%", " 10%/2", "1e1%/2",
		",10%-20%", "10%/2,",
		// refused
		at(.5), at(.2) + "," + at(.1), at(.1) + "," + at(.2) + "," + at(.3), at(.4) + "," + at(.5) + " " + at(.1) + "," + at(.2),
		at(.1) + "," + at(.3) + " " + at(.2) + "," + at(.4), "50%x", "10%/11", "0%/1", "10%-5", "10%/x", "  %/1", "101%",
	}
	selected := 0
	for _, tm := range cases {
		args := []string{"-F", "tid,time,ip,sym", "--ns"}
		cmd := exec.Command("perf", append([]string{"script", "-i", data, "--time", tm}, args...)...)
		var perfOut, perfErr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &perfOut, &perfErr
		perfStatus := 0
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatal(err)
			}
			perfStatus = ee.ExitCode()
		}
		cfg := configOf(t, data, args...)
		cfg.Time = tm
		var out, stderr bytes.Buffer
		err := Run(cfg, &out, &stderr)
		status, msg := 0, stderr.String()
		if err != nil {
			var pe *perfopt.Exit
			if !errors.As(err, &pe) {
				t.Errorf("--time %q: %v, want perf's exit", tm, err)
				continue
			}
			status, msg = pe.Status, msg+pe.Msg+"\n"
		}
		if status != perfStatus || msg != perfErr.String() {
			t.Errorf("--time %q: status %d, stderr %q; perf: %d, %q", tm, status, msg, perfStatus, perfErr.String())
			continue
		}
		if n, first := diffLines(out.Bytes(), perfOut.Bytes()); n != 0 {
			t.Errorf("--time %q: %d lines differ from perf script; %s", tm, n, first)
			continue
		}
		// A range of sample times selects some samples, and not all; a
		// percentage may fall between samples (the program was not
		// running).
		n := bytes.Count(perfOut.Bytes(), []byte{'\n'})
		if status == 0 && !strings.Contains(tm, "%") && (n == 0 || n == len(times)) {
			t.Errorf("--time %q selects %d of %d samples", tm, n, len(times))
		}
		if status == 0 && n > 0 {
			selected++
		}
	}
	t.Logf("%d cases, %d selecting samples, the same as perf script", len(cases), selected)
}
