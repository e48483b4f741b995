package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/pprof"
	"github.com/perfpt/perfpt/internal/linediff"
	"github.com/perfpt/perfpt/internal/pprofcheck"
)

// corpusOptions are the option sets TestMachineCorpus runs on every
// recording of testdata/machine (issue 16).
var corpusOptions = [][]string{
	nil,
	{"-F", "comm,tid,time,ip,sym,dso"},
	{"-G"},
	{"-F+period,+event"},
	{"--show-task-events"},
	{"--show-mmap-events"},
	{"--no-demangle"},
	// instruction bytes read from the binaries (arch_fetch_insn)
	{"-G", "-F", "+insn,+insnlen"},
}

// corpusKnown lists, by file name or option, the pairs where perfpt does
// not print what perf prints yet, and why (none now). The test fails when
// one of them starts matching (remove it then), as when any other pair
// differs.
var corpusKnown = map[string]string{}

// corpusReason returns why file with opts is known to differ, or "".
func corpusReason(file string, opts []string) string {
	if r := corpusKnown[file]; r != "" {
		return r
	}
	for _, o := range opts {
		if r := corpusKnown[o]; r != "" {
			return r
		}
	}
	return ""
}

// setupMachineCorpus puts the corpus's programs and JIT perf maps where
// the recordings name them (/tmp/perfpt-corpus, /tmp/perf-PID.map) and
// gives perf and perfpt an empty build-id cache (HOME), so that both find
// the same files on any machine.
func setupMachineCorpus(t testing.TB, dir string) {
	t.Helper()
	const bin = "/tmp/perfpt-corpus"
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Skipf("cannot make %s: %v", bin, err)
	}
	progs, _ := filepath.Glob(filepath.Join(dir, "bin", "*"))
	maps, _ := filepath.Glob(filepath.Join(dir, "perf-*.map"))
	for _, src := range append(progs, maps...) {
		dst := filepath.Join(bin, filepath.Base(src))
		if strings.HasPrefix(filepath.Base(src), "perf-") {
			dst = filepath.Join("/tmp", filepath.Base(src))
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, b) {
			continue
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Skipf("cannot install %s: %v", dst, err)
		}
	}
	t.Setenv("HOME", t.TempDir())
}

// TestMachineCorpus compares perfpt script with perf script byte for byte
// on the recordings of testdata/machine (C++ at -O0 and -O2, Rust legacy
// and v0, a static binary, node and Java JIT perf maps, system-wide, pipe
// mode, a kernel that is not this machine's; see its README), with each
// option set of corpusOptions; perf's stderr too where perf warns.
func TestMachineCorpus(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not found")
	}
	if testing.Short() {
		t.Skip("runs perf script about a hundred times")
	}
	dir, err := filepath.Abs("../../testdata/machine")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.data"))
	if len(files) == 0 {
		t.Fatal("no recordings in testdata/machine")
	}
	setupMachineCorpus(t, dir)
	same, known := 0, 0
	for _, f := range files {
		name := filepath.Base(f)
		for _, opts := range corpusOptions {
			args := append([]string{"script", "-i", f}, opts...)
			want, wantErr := runPerf(t, perf, args)
			var got, gotErr bytes.Buffer
			code := Main(append([]string{"perfpt"}, args...), nil, &got, &gotErr)
			label := fmt.Sprintf("%s %s", name, strings.Join(opts, " "))
			ok := code == 0 && bytes.Equal(got.Bytes(), want.Bytes())
			if ok && strings.Contains(wantErr.String(), "No kallsyms") && gotErr.String() != wantErr.String() {
				t.Errorf("%s: stderr %q, perf's %q", label, gotErr.String(), wantErr.String())
			}
			reason := corpusReason(name, opts)
			switch {
			case ok && reason != "":
				t.Errorf("%s: now identical to perf; remove %q from corpusKnown", label, reason)
			case ok:
				same++
			case reason != "":
				known++
				t.Logf("%s: differs as known: %s", label, reason)
			case code != 0:
				t.Errorf("%s: perfpt exit %d: %s", label, code, gotErr.String())
			default:
				t.Errorf("%s: differs from perf script:\n%s", label, linediff.Compare(want.String(), got.String()).String("perf", "perfpt"))
			}
		}
	}
	t.Logf("%d of %d recording and option pairs byte-identical with perf script, %d known to differ",
		same, len(files)*len(corpusOptions), known)
}

// TestMetricMatchesPerf compares perfpt script -F metric with perf script
// on groups of software events (testdata/machine/sw-groups.data, and
// sw-groups-tod.data with tod, whose column the metric lines leave empty): the
// metric lines perf stat's shadow statistics give, after the samples that
// complete a group's count.
func TestMetricMatchesPerf(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not found")
	}
	dir, err := filepath.Abs("../../testdata/machine")
	if err != nil {
		t.Fatal(err)
	}
	setupMachineCorpus(t, dir)
	for _, run := range []struct {
		file string
		opts []string
	}{
		{"sw-groups.data", []string{"-F", "+metric"}},
		{"sw-groups.data", []string{"-G", "-F", "+metric"}},
		{"sw-groups.data", []string{"-F", "comm,tid,time,event,period,ip,sym,metric"}},
		{"sw-groups-tod.data", []string{"-F", "comm,tid,tod,event,period,metric"}},
	} {
		opts := run.opts
		args := append([]string{"script", "-i", filepath.Join(dir, run.file)}, opts...)
		want, _ := runPerf(t, perf, args)
		if !strings.Contains(want.String(), "\tmetric: ") {
			t.Fatalf("perf %s printed no metric", strings.Join(opts, " "))
		}
		var got, gotErr bytes.Buffer
		if code := Main(append([]string{"perfpt"}, args...), nil, &got, &gotErr); code != 0 {
			t.Fatalf("perfpt %s: exit %d: %s", strings.Join(opts, " "), code, gotErr.String())
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s %s: differs from perf script:\n%s", run.file, strings.Join(opts, " "),
				linediff.Compare(want.String(), got.String()).String("perf", "perfpt"))
		}
	}
}

// runPerf runs perf with args and returns its stdout and stderr; it fails
// the test when perf fails.
func runPerf(t *testing.T, perf string, args []string) (stdout, stderr *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(perf, args...)
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("perf %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout, stderr
}

// TestMachineCorpusPprofNames checks that perfpt pprof names every sample
// of the recordings of testdata/machine as perf names it: per thread, the
// multiset of leaf functions of the profile at function granularity (the
// function of each sample's first location) equals the symbols perf script
// -G prints for the samples (what perf report's self column counts). C++
// functions instantiated with a lambda have no DW_AT_linkage_name (their
// DW_AT_name lacks the namespace), and Rust's ub_checks makes many
// functions named precondition_check at one line: perf names them by their
// ELF symbols.
func TestMachineCorpusPprofNames(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not found")
	}
	if testing.Short() {
		t.Skip("runs perf script on every recording")
	}
	dir, err := filepath.Abs("../../testdata/machine")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.data"))
	setupMachineCorpus(t, dir)
	for _, f := range files {
		name := filepath.Base(f)
		out, _ := runPerf(t, perf, []string{"script", "-i", f, "-F", "tid,ip,sym", "-G"})
		p, err := pprof.Convert(f, pprof.Options{Granularity: pprof.Function})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		diffs := pprofcheck.LeafDiffs(p, out.Bytes())
		if len(diffs) > 0 {
			if len(diffs) > 20 {
				diffs = append(diffs[:20], "...")
			}
			t.Errorf("%s: samples per thread and function differ:\n%s", name, strings.Join(diffs, "\n"))
		}
	}
}
