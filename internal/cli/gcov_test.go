package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/testprog"
)

// emulateC builds testdata/gcov/<name>.c -g -O0 and records it with the
// emulated PT recorder.
func emulateC(t *testing.T, name string, args ...string) (bin, data string) {
	return emulateSource(t, "gcc", name+".c", args...)
}

// emulateSource builds testdata/gcov/<file> with compiler -g -O0 and
// records it with the emulated PT recorder.
func emulateSource(t *testing.T, compiler, file string, args ...string) (bin, data string) {
	t.Helper()
	if testing.Short() {
		t.Skip("records a program")
	}
	gcc, err := exec.LookPath(compiler)
	if err != nil {
		t.Skip(compiler + " not installed")
	}
	name := strings.TrimSuffix(file, filepath.Ext(file))
	dir := t.TempDir()
	src, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "gcov", file))
	bin = filepath.Join(dir, name)
	if b, err := exec.Command(gcc, "-g", "-O0", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	data = filepath.Join(dir, "perf.data")
	emulateTo(t, data, append([]string{bin}, args...))
	return bin, data
}

// emulateTo records argv with the emulated PT recorder into data (no
// build-id cache; the program's output discarded).
func emulateTo(t *testing.T, data string, argv []string) {
	t.Helper()
	opt := record.Options{Output: data}
	opt.BuildIDDir = "-"
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	opt.Trace.Stdout = devnull
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := record.Emulate(ctx, argv, opt); err != nil {
		testprog.EmulateFailed(t, argv[0], err)
	}
}

func TestGcovCommand(t *testing.T) {
	_, data := emulateC(t, "loops", "hello", "27")
	out := t.TempDir()
	lcov := filepath.Join(out, "cov.info")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"perfpt", "gcov", "-i", data, "-o", out, "-b", "-c", "-f", "--json", "--lcov", lcov}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	text, err := os.ReadFile(filepath.Join(out, "loops.c.gcov"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"        -:    0:Runs:1\n",
		"function collatz called 1 returned 100%",
		"      112:   24:\twhile (n != 1) { n = n % 2 ? 3 * n + 1 : n / 2; steps++; }\n",
		"    #####:   43:\t\tgoto found;\n",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("loops.c.gcov lacks %q", want)
		}
	}
	if !strings.Contains(stdout.String(), "Function 'collatz'\nLines executed:100.00% of 4\n") ||
		!strings.Contains(stdout.String(), "Creating 'loops.c.gcov'") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	f, err := os.Open(filepath.Join(out, "loops.gcov.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	js.ReadFrom(zr)
	if !strings.Contains(js.String(), `"format_version":"1"`) {
		t.Errorf("JSON: %.200s", js.String())
	}
	info, err := os.ReadFile(lcov)
	if err != nil || !bytes.Contains(info, []byte("DA:24,112\n")) {
		t.Errorf("lcov tracefile: %v\n%.300s", err, info)
	}
}

// TestGcovCommandDemangle: -m prints C++ function names demangled, with
// their parameters, in the .gcov files and -f's summaries, as gcov -m.
func TestGcovCommandDemangle(t *testing.T) { checkGcovDemangle(t) }

// checkGcovDemangle is TestGcovCommandDemangle, also TestEveryFlag's check
// of gcov's -m.
func checkGcovDemangle(t *testing.T) {
	_, data := emulateSource(t, "g++", "shapes.cc", "c2", "r1")
	for _, m := range []bool{false, true} {
		out := t.TempDir()
		args := []string{"perfpt", "gcov", "-i", data, "-o", out, "-b", "-f"}
		if m {
			args = append(args, "-m")
		}
		var stdout, stderr bytes.Buffer
		if code := Main(args, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		text, err := os.ReadFile(filepath.Join(out, "shapes.cc.gcov"))
		if err != nil {
			t.Fatal(err)
		}
		want, summary := "function _ZN6CircleC2Ed called 2", "Function '_ZN6CircleC2Ed'\n"
		if m {
			want, summary = "function Circle::Circle(double) called 2", "Function 'Circle::Circle(double)'\n"
		}
		if !strings.Contains(string(text), want) {
			t.Errorf("-m %v: shapes.cc.gcov lacks %q:\n%.1500s", m, want, text)
		}
		if !strings.Contains(stdout.String(), summary) {
			t.Errorf("-m %v: stdout lacks %q:\n%s", m, summary, stdout.String())
		}
	}
}

func TestGcovCommandErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"perfpt", "gcov", "-i", filepath.Join(t.TempDir(), "missing.data")}, nil, &stdout, &stderr); code != 1 {
		t.Errorf("missing input: exit %d", code)
	}
	if !strings.HasPrefix(stderr.String(), "perfpt: ") {
		t.Errorf("stderr %q", stderr.String())
	}
}
