package pprof

import (
	"bufio"
	"bytes"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/internal/buildidcache"
)

const unwindDir = "../../testdata/unwind"

// perfChildrenSelf returns perf report --children's per-symbol children and
// self sample counts (from its percentages of the total), named as perf
// names them without " (inlined)"; names that are addresses are left out.
func perfChildrenSelf(t *testing.T, data string) (children, self map[string]int64, total int64) {
	t.Helper()
	out, err := exec.Command("perf", "report", "-i", data, "--children", "--stdio", "--sort", "sym",
		"-g", "none", "-n").Output()
	if err != nil {
		t.Fatalf("perf report: %v", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "# Samples: ") {
			total, _ = strconv.ParseInt(strings.Fields(l)[2], 10, 64)
		}
	}
	children, self = map[string]int64{}, map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || f[0] == "#" || !strings.HasSuffix(f[0], "%") {
			continue
		}
		pc, err := strconv.ParseFloat(strings.TrimSuffix(f[0], "%"), 64)
		if err != nil {
			continue
		}
		name := strings.TrimSuffix(strings.Join(f[4:], " "), " (inlined)")
		if strings.HasPrefix(name, "0x") {
			continue
		}
		n, _ := strconv.ParseInt(f[2], 10, 64)
		children[name] += int64(math.Round(pc * float64(total) / 100))
		self[name] += n
	}
	return children, self, total
}

// ourChildren is the same from a profile: a function's cumulative samples
// (once per sample, inlined functions included) and its self samples (the
// outermost function of the leaf location, the symbol perf charges).
func ourChildren(p *profile.Profile) (cum, flat map[string]int64) {
	cum, flat = map[string]int64{}, map[string]int64{}
	for _, s := range p.Sample {
		seen := map[string]bool{}
		for _, l := range s.Location {
			for _, ln := range l.Line {
				if !seen[ln.Function.Name] {
					seen[ln.Function.Name] = true
					cum[ln.Function.Name] += s.Value[0]
				}
			}
		}
		if len(s.Location) > 0 && len(s.Location[0].Line) > 0 {
			ls := s.Location[0].Line
			flat[ls[len(ls)-1].Function.Name] += s.Value[0]
		}
	}
	return cum, flat
}

// TestDwarfStacksMatchPerfReport: the profile of a --call-graph dwarf
// recording has the stacks perf unwinds, so each function's cumulative and
// self samples equal perf report --children's.
func TestDwarfStacksMatchPerfReport(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
	buildidcache.Home(t, unwindDir, "cwork-dyn", "cwork-static", "cppwork", "cppthrow", "cclone", "rustwork")
	for _, name := range []string{"cwork-dyn.data", "cwork-static.data", "cwork-small.data", "cppwork.data",
		"cppthrow.data", "cclone.data", "rustwork.data"} {
		data := filepath.Join(unwindDir, name)
		p, err := Convert(data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		children, self, total := perfChildrenSelf(t, data)
		cum, flat := ourChildren(p)
		n := 0
		for fn, want := range children {
			n++
			if cum[fn] != want {
				t.Errorf("%s: %s: cumulative samples %d, perf report --children %d", name, fn, cum[fn], want)
			}
			if flat[fn] != self[fn] {
				t.Errorf("%s: %s: self samples %d, perf report %d", name, fn, flat[fn], self[fn])
			}
		}
		if n < 5 || total == 0 {
			t.Errorf("%s: %d functions, %d samples in perf report", name, n, total)
		}
		t.Logf("%s: %d functions' children and self equal perf report's (%d samples)", name, n, total)
	}
}
