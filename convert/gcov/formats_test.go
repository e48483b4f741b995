package gcov

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// recordReport builds name -g -O0, records it with the emulated PT
// recorder with args and returns its program and report.
func recordReport(t *testing.T, name string, args []string) (*Program, *Report) {
	t.Helper()
	if testing.Short() {
		t.Skip("records a program")
	}
	bin := buildC(t, t.TempDir(), name, name, "-g", "-O0")
	rep, progs, err := FromRecording(emulate(t, bin, args), RecordingOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) != 1 {
		t.Fatalf("%d programs in the recording", len(progs))
	}
	return progs[0], rep
}

// gcovRun builds name with --coverage in dir, runs it with args there and
// runs gcov with extra flags.
func gcovRun(t *testing.T, dir, name string, args []string, flags ...string) {
	t.Helper()
	gcovTool, err := exec.LookPath("gcov")
	if err != nil {
		t.Skip("gcov not installed")
	}
	bin := buildC(t, dir, name, name, "-g", "-O0", "--coverage", "-fprofile-update=atomic")
	run := exec.Command(bin, args...)
	run.Dir = dir
	run.Run()
	cmd := exec.Command(gcovTool, append(flags, name+".gcno")...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcov: %v\n%s", err, b)
	}
}

var gcovrTotal = regexp.MustCompile(`(?m)^TOTAL\s+(\d+)\s+(\d+)\s+(\d+)%`)

// gcovrLines is gcovr's whole report (every file's line, or with -b branch,
// coverage and its missing lines) of the .gcov files in dir.
func gcovrLines(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	cmd := exec.Command("gcovr", append(append([]string{"-g", "-k"}, extra...), "-r", filepath.Join(repoRoot(t), "testdata", "gcov"), dir)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gcovr: %v\n%s", err, out)
	}
	if gcovrTotal.FindStringSubmatch(string(out)) == nil {
		t.Fatalf("no TOTAL in gcovr output:\n%s", out)
	}
	return string(out)
}

// TestGcovrReadsOurFiles: gcovr -g reports the same line and branch
// coverage (every file, every missing line) for our .gcov files as for
// gcov's own of the same run.
func TestGcovrReadsOurFiles(t *testing.T) {
	if _, err := exec.LookPath("gcovr"); err != nil {
		t.Skip("gcovr not installed (Debian package gcovr)")
	}
	// shapes: C++, a header, functions sharing lines (group sections).
	for _, name := range []string{"loops", "switch", "shapes"} {
		args := programInputs(t, name)[0]
		prog, rep := recordReport(t, name, args)
		ours := t.TempDir()
		for _, f := range rep.Files {
			var b bytes.Buffer
			if err := rep.WriteText(&b, f, prog.SourceLines(f.Name), TextOptions{Branches: true}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ours, OutputName(f.Name)), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		theirs := t.TempDir()
		gcovRun(t, theirs, name, args, "-b")
		// Only the .gcov files: gcovr must not find the notes files.
		for _, ext := range []string{"*.gcno", "*.gcda"} {
			m, _ := filepath.Glob(filepath.Join(theirs, ext))
			for _, f := range m {
				os.Remove(f)
			}
		}
		for _, extra := range [][]string{nil, {"-b"}} {
			got, want := gcovrLines(t, ours, extra...), gcovrLines(t, theirs, extra...)
			if got != want {
				t.Errorf("%s: gcovr %v on our files:\n%s\non gcov's:\n%s", name, extra, got, want)
			}
		}
	}
}

// TestJSONMatchesGcov compares our JSON intermediate format with gcov -j on
// the same run: every line record and every function's counts and lines.
func TestJSONMatchesGcov(t *testing.T) {
	for _, name := range []string{"loops", "recurse"} {
		args := programInputs(t, name)[0]
		_, rep := recordReport(t, name, args)
		var ours bytes.Buffer
		if err := rep.WriteJSONGz(&ours, JSONOptions{DataFile: "perf.data"}); err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(&ours)
		if err != nil {
			t.Fatal(err)
		}
		var o map[string]any
		if err := json.NewDecoder(zr).Decode(&o); err != nil {
			t.Fatal(err)
		}
		if o["format_version"] != "1" {
			t.Errorf("format_version %v", o["format_version"])
		}
		dir := t.TempDir()
		gcovRun(t, dir, name, args, "-j")
		g := readJSONGz(t, filepath.Join(dir, name+".gcov.json.gz"))
		got, want := linesOf(t, o, name), linesOf(t, g, name)
		if got != want {
			t.Errorf("%s: JSON lines differ\nours: %s\ngcov: %s", name, got, want)
		}
		gotF, wantF := funcsOf(t, o, name), funcsOf(t, g, name)
		if gotF != wantF {
			t.Errorf("%s: JSON functions differ\nours: %s\ngcov: %s", name, gotF, wantF)
		}
	}
}

func readJSONGz(t *testing.T, path string) map[string]any {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.NewDecoder(zr).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func fileOf(t *testing.T, root map[string]any, name string) map[string]any {
	for _, f := range root["files"].([]any) {
		fm := f.(map[string]any)
		if filepath.Base(fm["file"].(string)) == name+".c" {
			return fm
		}
	}
	t.Fatalf("no %s.c in JSON", name)
	return nil
}

// linesOf renders the line records without branches, which follow the
// machine code rather than gcc's CFG.
func linesOf(t *testing.T, root map[string]any, name string) string {
	var out []string
	for _, l := range fileOf(t, root, name)["lines"].([]any) {
		lm := l.(map[string]any)
		delete(lm, "branches")
		b, _ := json.Marshal(lm)
		out = append(out, string(b))
	}
	return strings.Join(out, "\n")
}

func funcsOf(t *testing.T, root map[string]any, name string) string {
	var out []string
	for _, f := range fileOf(t, root, name)["functions"].([]any) {
		fm := f.(map[string]any)
		// Block numbers are gcc's CFG's; ours are machine blocks.
		delete(fm, "blocks")
		delete(fm, "blocks_executed")
		delete(fm, "start_column")
		b, _ := json.Marshal(fm)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestLCOV: genhtml renders our tracefile, and its DA records equal
// geninfo's for the same run.
func TestLCOV(t *testing.T) {
	genhtml, err := exec.LookPath("genhtml")
	if err != nil {
		t.Skip("genhtml not installed (Debian package lcov)")
	}
	name := "fptr"
	args := programInputs(t, name)[0]
	_, rep := recordReport(t, name, args)
	dir := t.TempDir()
	info := filepath.Join(dir, "ours.info")
	var b bytes.Buffer
	if err := rep.WriteLCOV(&b, "perfpt"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(info, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "html")
	if out, err := exec.Command(genhtml, "-q", "--branch-coverage", "-o", html, info).CombinedOutput(); err != nil {
		t.Fatalf("genhtml: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(html, "index.html")); err != nil {
		t.Fatal(err)
	}
	lcov, err := exec.LookPath("lcov")
	if err != nil {
		t.Skip("lcov not installed")
	}
	gdir := t.TempDir()
	gcovRun(t, gdir, name, args)
	ginfo := filepath.Join(gdir, "gcov.info")
	if out, err := exec.Command(lcov, "-q", "-c", "-d", gdir, "-o", ginfo, "--rc", "lcov_branch_coverage=1").CombinedOutput(); err != nil {
		t.Fatalf("lcov -c: %v\n%s", err, out)
	}
	want, err := os.ReadFile(ginfo)
	if err != nil {
		t.Fatal(err)
	}
	if got, w := daLines(b.Bytes(), name), daLines(want, name); got != w {
		t.Errorf("FN, FNDA, DA and BRDA records differ\nours: %s\ngeninfo: %s", got, w)
	}
	lcovTotals(t, b.Bytes())
}

// daLines returns the function, function count, line and branch records
// (FN, FNDA, DA, BRDA) of name.c's section, sorted: geninfo 1.16 orders
// them otherwise than perfpt and writes no totals (FNF, FNH, LF, LH, BRF,
// BRH), which lcovTotals checks in our file.
func daLines(info []byte, name string) string {
	var out []string
	in := false
	for _, l := range strings.Split(string(info), "\n") {
		switch {
		case strings.HasPrefix(l, "SF:"):
			in = filepath.Base(l[3:]) == name+".c"
		case in && strings.HasPrefix(l, "DA:"):
			// geninfo may append a checksum field.
			f := strings.Split(l, ",")
			out = append(out, f[0]+","+f[1])
		case in && (strings.HasPrefix(l, "FN:") || strings.HasPrefix(l, "FNDA:") || strings.HasPrefix(l, "BRDA:")):
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// lcovTotals checks the totals of each section of an lcov tracefile against
// its records: FNF/FNH against FN/FNDA, LF/LH against DA, BRF/BRH against
// BRDA.
func lcovTotals(t *testing.T, info []byte) {
	t.Helper()
	var fn, fnh, lf, lh, brf, brh int
	for _, l := range strings.Split(string(info), "\n") {
		k, v, _ := strings.Cut(l, ":")
		f := strings.Split(v, ",")
		check := func(what string, want int) {
			if n, err := strconv.Atoi(v); err != nil || n != want {
				t.Errorf("%s:%s, the records say %d", what, v, want)
			}
		}
		switch k {
		case "SF":
			fn, fnh, lf, lh, brf, brh = 0, 0, 0, 0, 0, 0
		case "FN":
			fn++
		case "FNDA":
			if f[0] != "0" {
				fnh++
			}
		case "DA":
			lf++
			if f[1] != "0" {
				lh++
			}
		case "BRDA":
			brf++
			if f[3] != "0" && f[3] != "-" {
				brh++
			}
		case "FNF":
			check(k, fn)
		case "FNH":
			check(k, fnh)
		case "LF":
			check(k, lf)
		case "LH":
			check(k, lh)
		case "BRF":
			check(k, brf)
		case "BRH":
			check(k, brh)
		}
	}
}
