package perftext

import (
	"bufio"
	"bytes"
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
				if strings.Contains(w, "PERF_RECORD_SAMPLE") {
					// Dump adds the callchain after perf's fields.
					if !strings.HasPrefix(g, w) {
						t.Errorf("line %d:\n got %s\nperf %s", i, g, w)
					}
					continue
				}
				if exact && g != w {
					t.Errorf("line %d:\n got %s\nperf %s", i, g, w)
				}
				if !exact {
					n := strings.Index(w, "PERF_RECORD_")
					end := n + strings.IndexAny(w[n:]+" ", " :(")
					if !strings.HasPrefix(g, w[:end]) {
						t.Errorf("line %d:\n got %s\nperf %s", i, g, w)
					}
				}
			}
		})
	}
}
