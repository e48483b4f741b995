package perftext

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfpt/perfpt/internal/linediff"

	"github.com/perfpt/perfpt/perfdata"
)

func fixtures(t *testing.T) []string {
	m, _ := filepath.Glob("../../testdata/perf/*.data")
	if len(m) == 0 {
		t.Fatal("no fixtures")
	}
	return m
}

func runPerf(t *testing.T, args ...string) string {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	cmd := exec.Command(perf, args...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("perf %v: %v\n%s", args, err, stderr.String())
	}
	return out.String()
}

// TestHeaderMatchesPerf compares Header with perf report --header-only.
func TestHeaderMatchesPerf(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := runPerf(t, "report", "--header-only", "-i", path)
			f, err := perfdata.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, _ := os.Stat(path)
			var b bytes.Buffer
			if err := Header(&b, f, HeaderOptions{Captured: st.ModTime().In(time.Local)}); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != want {
				t.Errorf("differs from perf report --header-only:\n%s", diff(got, want))
			}
			// And with -I.
			want = runPerf(t, "report", "--header-only", "-I", "-i", path)
			g, err := perfdata.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			b.Reset()
			if err := Header(&b, g, HeaderOptions{Full: true, Captured: st.ModTime().In(time.Local)}); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != want {
				t.Errorf("differs from perf report --header-only -I:\n%s", diff(got, want))
			}
		})
	}
}

func diff(got, want string) string {
	r := linediff.Compare(got, want)
	if r.N == 0 {
		return ""
	}
	return "got:  " + r.A + "\nperf: " + r.B
}

// exactTypes are the record types whose whole perf -D line Dump reproduces.
var exactTypes = []string{"COMM", "MMAP", "MMAP2", "FORK", "EXIT", "SWITCH", "SWITCH_CPU_WIDE", "AUX",
	"ITRACE_START", "FINISHED_ROUND", "AUXTRACE", "LOST"}

// TestDumpMatchesPerf compares Dump's record lines with perf report -D's.
func TestDumpMatchesPerf(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var want []string
			sc := bufio.NewScanner(strings.NewReader(runPerf(t, "report", "-D", "-i", path)))
			for sc.Scan() {
				if l := sc.Text(); strings.Contains(l, "PERF_RECORD_") && !strings.HasPrefix(l, ".") {
					want = append(want, strings.TrimRight(l, " "))
				}
			}
			f, err := perfdata.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var b bytes.Buffer
			if err := Dump(&b, f, DumpOptions{Order: perfdata.TimeOrder}); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range strings.Split(b.String(), "\n") {
				if strings.Contains(l, "PERF_RECORD_") {
					got = append(got, strings.TrimRight(l, " "))
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d record lines, perf %d", len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				exact := false
				for _, typ := range exactTypes {
					if strings.Contains(w, "PERF_RECORD_"+typ+" ") || strings.Contains(w, "PERF_RECORD_"+typ+":") || strings.HasSuffix(w, "PERF_RECORD_"+typ) || strings.Contains(w, "PERF_RECORD_"+typ+"(") {
						exact = true
					}
				}
				// Every field perf prints, in perf's words; Dump adds
				// detail after them on the other records (a sample's
				// callchain, which perf prints on lines of its own, an
				// ID_INDEX's entries, an AUXTRACE_INFO's private words).
				if exact && g != w || !exact && !strings.HasPrefix(g, w) {
					t.Errorf("line %d:\n got %s\nperf %s", i, g, w)
				}
			}
		})
	}
}

// TestHeaderLiveFeatures records a group of events with a clock id and
// compares the header (group line, clockid and reference time).
func TestHeaderLiveFeatures(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	path := filepath.Join(t.TempDir(), "grp.data")
	if out, err := exec.Command("perf", "record", "-q", "-o", path, "-k", "mono",
		"-e", "{cpu-clock,task-clock}", "--", "true").CombinedOutput(); err != nil {
		t.Skipf("perf record: %v\n%s", err, out)
	}
	compareHeader(t, path)
}

// compareHeader compares Header with perf report --header-only on path.
func compareHeader(t *testing.T, path string) {
	t.Helper()
	want := runPerf(t, "report", "--header-only", "-i", path)
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := os.Stat(path)
	var b bytes.Buffer
	if err := Header(&b, f, HeaderOptions{Captured: st.ModTime().In(time.Local)}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != want {
		t.Errorf("differs from perf report --header-only:\n%s", diff(got, want))
	}
}

// TestHeaderDamagedFeature damages one feature section of a recording:
// as perf, the sections before it are kept (build ids), it and those
// after it are lost and printed from an empty perf_env; a feature
// section table cut short loses every feature.
func TestHeaderDamagedFeature(t *testing.T) {
	src := "../../testdata/perf/cpu-clock-g.data"
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := perfdata.NewBytes(orig)
	if err != nil {
		t.Fatal(err)
	}
	sec, ok := f.FeatureSections[perfdata.FeatCPUDesc]
	if !ok {
		t.Fatal("fixture has no cpudesc")
	}
	dir := t.TempDir()
	// A cpudesc string longer than the file: perf's do_read_string fails.
	b := append([]byte(nil), orig...)
	binary.LittleEndian.PutUint32(b[sec.Offset:], 1<<30)
	damaged := filepath.Join(dir, "cpudesc.data")
	if err := os.WriteFile(damaged, b, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := perfdata.NewBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := g.Features()
	if err != nil {
		t.Fatal(err)
	}
	if !fs.Has(perfdata.FeatBuildID) || len(fs.BuildIDs) == 0 || fs.Has(perfdata.FeatCPUDesc) ||
		!fs.IsLost(perfdata.FeatCPUDesc) || fs.LostErr == nil {
		t.Errorf("build ids kept %v (%d), cpudesc lost %v, err %v", fs.Has(perfdata.FeatBuildID), len(fs.BuildIDs),
			fs.IsLost(perfdata.FeatCPUDesc), fs.LostErr)
	}
	compareHeader(t, damaged)

	// The file cut in the middle of the feature section table.
	table := f.Data.Offset + f.Data.Size
	cut := filepath.Join(dir, "table.data")
	if err := os.WriteFile(cut, orig[:table+20], 0o644); err != nil {
		t.Fatal(err)
	}
	compareHeader(t, cut)
}
