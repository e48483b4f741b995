package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// firstAttr is the first event attribute of the recording at path.
func firstAttr(t *testing.T, path string) *perfdata.Attr {
	t.Helper()
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Attrs) == 0 {
		t.Fatalf("%s: no attrs", path)
	}
	return f.Attrs[0]
}

// TestRecordFreqPerf compares how record -F reads its value with perf 6.1's
// record__parse_freq: atoi's prefix (" 77x" is 77, "0x10" and "abc" are
// 0: "frequency and count are zero"), an unsigned int (-5 is above any
// maximum: throttled, with perf's warning), "max" in any case (perf's
// info line), a value past int truncated as C's (int)strtol; each
// recording's sample_freq and the warning and info lines.
func TestRecordFreqPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("no perf")
	}
	dir := t.TempDir()
	freqOf := func(path string) uint64 {
		return firstAttr(t, path).SamplePeriod // sample_freq with freq set
	}
	// perfLines are the lines of perf's stderr that say something about
	// the frequency (not perf record's own "[ perf record: ... ]").
	perfLines := func(s string) string {
		var b strings.Builder
		for _, l := range strings.SplitAfter(s, "\n") {
			if l != "" && !strings.HasPrefix(l, "[ perf") {
				b.WriteString(l)
			}
		}
		return b.String()
	}
	for _, v := range []string{" 77x", "0x10", "-5", "4294967297", "Max"} {
		pd, od := filepath.Join(dir, "perf.data"), filepath.Join(dir, "perfpt.data")
		os.Remove(pd)
		os.Remove(od)
		cmd := exec.Command("perf", "record", "-e", "cpu-clock", "-F", v, "-o", pd, "--", "/bin/true")
		var perr strings.Builder
		cmd.Stderr = &perr
		cmd.Run() // its status is the command's
		_, err := os.Stat(pd)
		perfFailed := err != nil
		r := perfpt("record", "-e", "cpu-clock", "-F", v, "-o", od, "--", "/bin/true")
		if r.code != 0 && (strings.Contains(r.err, "perf_event_paranoid") || strings.Contains(r.err, "permission")) {
			t.Skipf("perf_event_open is not permitted here: %s", r.err)
		}
		want, got := perfLines(perr.String()), perfLines(r.err)
		if perfFailed {
			if r.code == 0 || !strings.Contains(r.err, strings.TrimSpace(want)) {
				t.Errorf("-F %q: perfpt status %d, stderr %q; perf failed: %q", v, r.code, r.err, want)
			}
			continue
		}
		if r.code != 0 {
			t.Errorf("-F %q: perfpt failed: %s", v, r.err)
			continue
		}
		if got != want {
			t.Errorf("-F %q: perfpt says %q; perf %q", v, got, want)
		}
		if w, g := freqOf(pd), freqOf(od); g != w {
			t.Errorf("-F %q: sample_freq %d; perf's %d", v, g, w)
		} else {
			t.Logf("-F %q: sample_freq %d as perf's", v, g)
		}
	}
}

// TestRecordCPUListPerf compares record -C with perf 6.1's: the lists
// perf_cpu_map__new reads (strtoul base 0, "0,,1" ending at the empty
// element, an open range "0-") make recordings on the same number of
// CPUs (one id each), those it refuses (" 1", "+1", a CPU twice, a
// falling range) perf's usage and status 129.
func TestRecordCPUListPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("no perf")
	}
	dir := t.TempDir()
	ids := func(path string) int { return len(firstAttr(t, path).IDs) }
	for _, v := range []string{"0x0", "0,,1", "0-", "01", " 0", "+0", "0,0", "1-0", "0-x"} {
		pd, od := filepath.Join(dir, "perf.data"), filepath.Join(dir, "perfpt.data")
		os.Remove(pd)
		os.Remove(od)
		_, perr, status := perfRun(t, "record", "-q", "-C", v, "-e", "cpu-clock", "-o", pd, "--", "/bin/true")
		r := perfpt("record", "-C", v, "-e", "cpu-clock", "-o", od, "--", "/bin/true")
		if r.code != 0 && (strings.Contains(r.err, "perf_event_paranoid") || strings.Contains(r.err, "permission")) {
			t.Skipf("perf_event_open is not permitted here: %s", r.err)
		}
		switch {
		case status == usageStatus:
			if r.code != usageStatus || usageHead(r.err, "perfpt record") != usageHead(perr, "perf record") {
				t.Errorf("-C %q: perfpt status %d, stderr %q; perf's usage", v, r.code, r.err)
			}
		case status != 0:
			t.Fatalf("-C %q: perf failed: %d %s", v, status, perr)
		case r.code != 0:
			t.Errorf("-C %q: perfpt failed: %s", v, r.err)
		case ids(od) != ids(pd):
			t.Errorf("-C %q: %d CPUs; perf %d", v, ids(od), ids(pd))
		default:
			t.Logf("-C %q: %d CPUs as perf", v, ids(od))
		}
	}
}
