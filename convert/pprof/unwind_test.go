package pprof

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/internal/buildidcache"
	"github.com/perfpt/perfpt/internal/pprofcheck"
)

const unwindDir = "../../testdata/unwind"

// perfRows are perf report --children's per-symbol figures, by name as
// perf prints it without " (inlined)" (names that are addresses are left
// out). perf keeps apart the inlined functions of one name inlined into
// different symbols (rows of their own, a sample counted in each), which
// a profile's function by name counts once: children is the sum of a
// name's rows, maxRow the largest, rows their number.
type perfRows struct {
	children, maxRow, self map[string]int64
	rows                   map[string]int
}

// perfChildrenSelf returns perf report --children's rows of data, their
// children sample counts from the percentages of total, the profile's
// sample count (perf's header rounds it: "3K").
func perfChildrenSelf(t *testing.T, data string, total int64) perfRows {
	t.Helper()
	out, err := exec.Command("perf", "report", "-i", data, "--children", "--stdio", "--sort", "sym",
		"-g", "none", "-n").Output()
	if err != nil {
		t.Fatalf("perf report: %v", err)
	}
	r := perfRows{children: map[string]int64{}, maxRow: map[string]int64{}, self: map[string]int64{}, rows: map[string]int{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 2 && f[0] == "#" && f[1] == "Samples:" {
			if n, err := strconv.ParseInt(f[2], 10, 64); err == nil && n != total {
				t.Errorf("%s: %d samples in the profile, perf report has %d", data, total, n)
			}
		}
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
		c := int64(math.Round(pc * float64(total) / 100))
		r.children[name] += c
		r.maxRow[name] = max(r.maxRow[name], c)
		r.rows[name]++
		r.self[name] += n
	}
	return r
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
		var total int64
		for _, s := range p.Sample {
			total += s.Value[0]
		}
		perf := perfChildrenSelf(t, data, total)
		cum, flat := ourChildren(p)
		n := 0
		for fn, want := range perf.children {
			n++
			switch {
			case perf.rows[fn] == 1 && cum[fn] != want:
				t.Errorf("%s: %s: cumulative samples %d, perf report --children %d", name, fn, cum[fn], want)
			case perf.rows[fn] > 1 && (cum[fn] < perf.maxRow[fn] || cum[fn] > want):
				t.Errorf("%s: %s: cumulative samples %d, perf report --children's %d rows %d to %d", name, fn, cum[fn], perf.rows[fn], perf.maxRow[fn], want)
			}
			if flat[fn] != perf.self[fn] {
				t.Errorf("%s: %s: self samples %d, perf report %d", name, fn, flat[fn], perf.self[fn])
			}
		}
		if n < 5 || total == 0 {
			t.Errorf("%s: %d functions, %d samples in perf report", name, n, total)
		}
		t.Logf("%s: %d functions' children and self equal perf report's (%d samples)", name, n, total)
	}
}

// lambdaThreadProg runs a lambda on two threads: std::thread's _M_run
// holds the lambda's code inlined, and addr2line names its innermost
// frame by _M_run's symbol (perf's new_inline_sym reuses the symbol for
// it) while the outermost is DWARF's "_M_run".
const lambdaThreadProg = `#include <thread>
#include <vector>
static volatile long sink;
int main() {
  std::vector<std::thread> ts;
  for (int t = 0; t < 2; t++)
    ts.emplace_back([t] { long s = 0; for (long i = 0; i < 30000000; i++) s += i ^ t; sink = s; });
  for (auto &t : ts) t.join();
}
`

// TestDwarfLambdaThreadSelf: each sample of a --call-graph dwarf
// recording is charged to the function perf script names it by (its
// symbol), also where perf's entries for its address begin with that
// symbol and end with another name (the lambda run by std::thread).
func TestDwarfLambdaThreadSelf(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	for _, tool := range []string{"perf", "g++"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	dir := t.TempDir()
	src, prog, data := filepath.Join(dir, "lam.cpp"), filepath.Join(dir, "lam"), filepath.Join(dir, "lam.data")
	if err := os.WriteFile(src, []byte(lambdaThreadProg), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("g++", "-O2", "-g", "-pthread", "-o", prog, src).CombinedOutput(); err != nil {
		t.Skipf("g++ cannot build the program here: %v\n%s", err, out)
	}
	if out, err := exec.Command("perf", "record", "-q", "-o", data, "-F", "999", "--call-graph", "dwarf,1024", prog).CombinedOutput(); err != nil {
		t.Skipf("perf record does not work here: %v\n%s", err, out)
	}
	want, err := exec.Command("perf", "script", "-i", data, "-F", "tid,ip,sym", "-G").Output()
	if err != nil {
		t.Fatalf("perf script: %v", err)
	}
	p, err := Convert(data, Options{Granularity: Function})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(want, []byte("_M_run")) {
		t.Fatalf("no sample in _M_run: the program did not run as expected:\n%s", want)
	}
	if d := pprofcheck.LeafDiffs(p, want); len(d) > 0 {
		t.Errorf("samples per thread and function differ from perf script's:\n%s", strings.Join(d, "\n"))
	}
}

// TestNamesShownByPprof: go tool pprof shows every function of a profile
// by the name perfpt gave it, as perf names it: none has its name as
// system name where pprof's symbolizer would rewrite it
// (demangleSingleFunction: a name with "::" or any of "<>[]", but Java's
// ".<" and Go's "]).", loses its template arguments and parameters). The
// C++ dwarf recording's inlined template instances have DWARF names
// without a linkage name ("operator()<int, __gnu_cxx::...>").
func TestNamesShownByPprof(t *testing.T) {
	buildidcache.Home(t, unwindDir, "cppwork")
	rewritten := func(n string) bool {
		if strings.Contains(n, ".<") || strings.Contains(n, "]).") {
			return false
		}
		return strings.ContainsAny(n, "<>[]") || strings.Contains(n, "::")
	}
	p, err := Convert(filepath.Join(unwindDir, "cppwork.data"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad, shown := 0, 0
	for _, f := range p.Function {
		if f.Name == "" || !rewritten(f.Name) {
			continue
		}
		switch f.SystemName {
		case "":
			shown++
		case f.Name:
			if bad++; bad <= 3 {
				t.Errorf("go tool pprof would rewrite %q", f.Name)
			}
		}
	}
	if shown == 0 {
		t.Errorf("no function without a mangled name that pprof would rewrite: the test checks nothing")
	}
	t.Logf("%d such functions shown as named, %d rewritten", shown, bad)
}
