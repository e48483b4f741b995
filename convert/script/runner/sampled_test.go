package runner

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/linediff"
)

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
}

// diffLines returns how many lines differ and the first difference.
func diffLines(a, b []byte) (int, string) {
	r := linediff.Compare(string(a), string(b))
	return r.N, r.String("perfpt", "perf")
}

// workerCounts are the -j values compared (all give the same bytes).
var workerCounts = []int{1, 2, 4}

// configOf is the Config of perf script's args (the subset the tests use).
func configOf(t *testing.T, data string, args ...string) Config {
	t.Helper()
	cfg := Config{Input: data}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-F":
			i++
			cfg.Fields = append(cfg.Fields, args[i])
		case a == "--ns":
			cfg.Nanosecs = true
		case strings.HasPrefix(a, "--itrace"):
			cfg.ItraceSet = true
			cfg.Itrace = strings.TrimPrefix(strings.TrimPrefix(a, "--itrace"), "=")
		case a == "-G":
			cfg.NoCallchain = true
		case a == "-D":
			cfg.DumpRaw = true
		case a == "--no-inline":
			cfg.NoInline = true
		case a == "--demangle-kernel":
			cfg.DemangleKernel = true
		case a == "--stitch-lbr":
			cfg.StitchLBR = true
		case a == "--max-stack":
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n <= 0 {
				t.Fatalf("configOf: bad --max-stack %q", args[i])
			}
			cfg.MaxStack = n
		case a == "--max-blocks":
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n < 0 {
				t.Fatalf("configOf: bad --max-blocks %q", args[i])
			}
			cfg.MaxBlocks = n
		case a == "-C":
			i++
			cfg.CPUs, cfg.CPUsSet = args[i], true
		case a == "-k" || a == "--vmlinux":
			i++
			cfg.Vmlinux = args[i]
		case a == "--kallsyms":
			i++
			cfg.Kallsyms = args[i]
		case strings.HasPrefix(a, "--tid="):
			cfg.TIDs = a[len("--tid="):]
		case strings.HasPrefix(a, "--pid="):
			cfg.PIDs = a[len("--pid="):]
		case strings.HasPrefix(a, "--time="):
			cfg.Time = a[len("--time="):]
		case strings.HasPrefix(a, "--symfs="):
			cfg.Symfs = a[len("--symfs="):]
		case a == "--header":
			cfg.Header = true
		case a == "--header-only":
			cfg.HeaderOnly = true
		case a == "-I":
			cfg.ShowInfo = true
		case ShowOptions[strings.TrimPrefix(a, "--")] != 0:
			cfg.Show |= ShowOptions[strings.TrimPrefix(a, "--")]
		default:
			t.Fatalf("configOf: unhandled arg %q", a)
		}
	}
	return cfg
}

// compare runs perf script and perfpt script with the same arguments on
// data and fails on any byte of difference.
func compare(t *testing.T, data string, args ...string) {
	t.Helper()
	cmd := exec.Command("perf", append([]string{"script", "-i", data}, args...)...)
	var perfErr bytes.Buffer
	cmd.Stderr = &perfErr
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("perf script %v: %v\n%s", args, err, perfErr.String())
	}
	wantWarn := sessionWarnings(perfErr.String())
	cfg := configOf(t, data, args...)
	for _, j := range workerCounts {
		cfg.Workers = j
		var got, stderr bytes.Buffer
		if err := Run(cfg, &got, &stderr); err != nil {
			t.Fatalf("perfpt script %v: %v\n%s", args, err, stderr.String())
		}
		if dir := os.Getenv("PERFPT_DUMP"); dir != "" && j == 1 {
			base := filepath.Join(dir, filepath.Base(data)+strings.ReplaceAll(strings.Join(args, ""), "/", "_"))
			os.WriteFile(base+".perfpt", got.Bytes(), 0o644)
			os.WriteFile(base+".perf", want, 0o644)
			exec.Command("cp", data, filepath.Join(dir, filepath.Base(data))).Run()
		}
		if n, first := diffLines(got.Bytes(), want); n != 0 {
			t.Errorf("perfpt script %v -j %d: %d lines differ from perf script; %s", args, j, n, first)
		} else if j == 1 {
			t.Logf("perfpt script %v: %d bytes identical to perf script", args, len(want))
		}
		if gotWarn := sessionWarnings(stderr.String()); !slices.Equal(gotWarn, wantWarn) {
			t.Errorf("perfpt script %v -j %d: stderr warnings %q, perf's %q", args, j, gotWarn, wantWarn)
		}
	}
}

// sessionWarning matches the lines of the warnings perf prints on stderr
// at the end of a session (perf_session__warn_about_errors) that perfpt
// prints too.
var sessionWarning = regexp.MustCompile(`^(\d+ (instruction trace|unknown AUX) errors|Processed \d+ events and lost \d+ chunks!|Processed \d+ samples and lost .*|\d+ samples with id not present in the header)$`)

// sessionWarnings returns stderr's session warnings, each with the line
// before it (perf's "Warning:").
func sessionWarnings(stderr string) []string {
	lines := strings.Split(stderr, "\n")
	var w []string
	prev := ""
	for _, l := range lines {
		if sessionWarning.MatchString(l) {
			w = append(w, prev+"\n"+l)
		}
		prev = l
	}
	return w
}

// recorded is a recording a test makes of testdata/prog.c with perf
// record ARGS, and the perf script option sets it compares on it.
type recorded struct {
	name string
	args []string
	opts [][]string
}

// buildProg compiles testdata/prog.c into dir (gcc -O1 -g).
func buildProg(t testing.TB, dir string) string {
	t.Helper()
	prog := filepath.Join(dir, "prog")
	if out, err := exec.Command("gcc", "-O1", "-g", "-o", prog, "testdata/prog.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return prog
}

// compareRecorded builds testdata/prog.c, records it for each of recs
// (into a pipe, perf record -o -, when pipe is set; a recording perf
// cannot make here is logged and left out) and compares perf script with
// perfpt script on it with each of its option sets, in a subtest of its
// name.
func compareRecorded(t *testing.T, pipe bool, recs []recorded) {
	t.Helper()
	if testing.Short() {
		t.Skip("records with perf")
	}
	need(t, "perf", "gcc")
	dir := t.TempDir()
	prog := buildProg(t, dir)
	for _, rec := range recs {
		data := filepath.Join(dir, rec.name+".data")
		out := "-o" + data
		if pipe {
			out = "-o-"
		}
		if err := perfTo(t, data, pipe, append(append([]string{"record", "-q", out}, rec.args...), prog, "3000")...); err != nil {
			t.Logf("perf record %s: %v", rec.name, err)
			continue
		}
		t.Run(rec.name, func(t *testing.T) {
			for _, o := range rec.opts {
				compare(t, data, o...)
			}
		})
	}
}

// perfTo runs perf with args, its standard output going to data when
// pipe is set (perf record -o -); the error carries perf's standard error.
func perfTo(t *testing.T, data string, pipe bool, args ...string) error {
	t.Helper()
	cmd := exec.Command("perf", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if pipe {
		f, err := os.Create(data)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdout = f
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v\n%s", err, stderr.String())
	}
	return nil
}

// compareStreams runs perf script with args on data and perfpt script
// with cfg, and fails unless both print the same standard output and the
// same standard error (perf's warnings).
func compareStreams(t *testing.T, data string, cfg Config, args ...string) {
	t.Helper()
	cmd := exec.Command("perf", append([]string{"script", "-i", data}, args...)...)
	var perfOut, perfErr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &perfOut, &perfErr
	if err := cmd.Run(); err != nil {
		t.Fatalf("perf script %v: %v\n%s", args, err, perfErr.String())
	}
	cfg.Input = data
	var out, errb bytes.Buffer
	if err := Run(cfg, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if out.String() != perfOut.String() || errb.String() != perfErr.String() {
		t.Errorf("perf script %v:\nstdout %q\n  perf %q\nstderr %q\n  perf %q", args, out.String(), perfOut.String(),
			errb.String(), perfErr.String())
	}
}

// TestSampledEvents records cpu-clock with and without call graphs and
// compares perfpt script with perf script for several field sets.
func TestSampledEvents(t *testing.T) {
	opts := [][]string{nil, {"--ns"}, {"-F", "comm,tid,time,ip,sym,dso"}, {"-F", "ip,sym,symoff,dso", "-G"}}
	compareRecorded(t, false, []recorded{
		{"cpu-clock-g", []string{"-g", "-e", "cpu-clock", "-c", "100000"}, opts},
		{"cpu-clock-u", []string{"-e", "cpu-clock:u", "-c", "50000"}, opts},
	})
}
