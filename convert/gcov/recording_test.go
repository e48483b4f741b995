package gcov

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfpt/perfpt/convert/ptagg"
	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/testprog"
)

// emulate records bin with args with the emulated intel_pt//u recorder.
func emulate(t testing.TB, bin string, args []string) string {
	t.Helper()
	return emulateWith(t, bin, args, record.WriteOptions{})
}

// emulateWith is emulate writing the recording as wo says.
func emulateWith(t testing.TB, bin string, args []string, wo record.WriteOptions) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "perf.data")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opt := record.Options{Output: data, WriteOptions: wo}
	opt.BuildIDDir = "-"
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	opt.Trace.Stdout = devnull
	if _, err := record.Emulate(ctx, append([]string{bin}, args...), opt); err != nil {
		testprog.EmulateFailed(t, bin, err)
	}
	return data
}

// blocksFloor is the number of function comparisons (over all inputs) whose
// gcc block count and executed-block count equal gcov's: the function
// summaries' "blocks executed" (fnblocks.go) must not get worse.
var blocksFloor = map[string]int{"switch": 8, "recurse": 12, "fptr": 24, "mathlib": 12, "jmp": 9, "threads": 9, "loops": 15}

// TestEmulatedRecordingAgreement is issue 8's check: each test program built
// -g -O0 and recorded with the emulated PT recorder, coverage computed from
// the perf.data, compared with gcov 12 on a --coverage build run with the
// same input.
func TestEmulatedRecordingAgreement(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	for _, name := range testPrograms {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			bin := buildC(t, dir, name, name, "-g", "-O0")
			var a agreement
			for _, args := range programInputs(t, name) {
				data := emulate(t, bin, args)
				rep, progs, err := FromRecording(data, RecordingOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(progs) == 0 {
					t.Fatalf("%s: no program with debug information in the recording", name)
				}
				g, text := realGcov(t, name, args)
				a.compare(t, name, args, rep, g)
				a.texts++
				if ours := ourText(t, progs[0], rep, name, TextOptions{}); ours == text {
					a.textsSame++
				} else if a.texts-a.textsSame == 1 {
					t.Logf("first .gcov text difference:\n%s", firstDiff(ours, text))
				}
			}
			pct := func(n, d int) float64 { return 100 * float64(n) / float64(d) }
			t.Logf("%s: %d line comparisons: executed/never/no-code %.1f%%, exact count %.1f%%; functions called %d/%d",
				name, a.lines, pct(a.status, a.lines), pct(a.exact, a.lines), a.funcsOK, a.funcs)
			t.Logf("%s: .gcov text identical to gcov's for %d of %d inputs; blocks and blocks executed equal gcov's for %d of %d functions",
				name, a.textsSame, a.texts, a.blocksSame, a.blockFns)
			// The emulated recorder's flow is exact, threads included:
			// every .gcov byte for byte.
			if a.textsSame != a.texts {
				t.Errorf("%s: .gcov text identical to gcov's for %d of %d inputs", name, a.textsSame, a.texts)
			}
			if f := blocksFloor[name]; a.blocksSame < f {
				t.Errorf("%s: blocks equal gcov's for %d functions, want at least %d", name, a.blocksSame, f)
			}
			for i, d := range a.diffs {
				if i >= 10 {
					break
				}
				t.Log(d)
			}
			if pct(a.status, a.lines) < 98 || pct(a.exact, a.lines) < 95 || a.funcsOK != a.funcs {
				t.Errorf("%s: agreement below the bar", name)
			}
		})
	}
}

// TestEmulatedMultiFile: a program of two translation units and a header
// with inline code; every line of the three files agrees with gcov (the
// header's counts summed over both units, as in one .gcov).
func TestEmulatedMultiFile(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not installed")
	}
	gcovTool, err := exec.LookPath("gcov")
	if err != nil {
		t.Skip("gcov not installed")
	}
	src := filepath.Join(repoRoot(t), "testdata", "gcov", "multi")
	argsText, err := os.ReadFile(filepath.Join(src, "args"))
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(string(argsText))
	build := func(dir string, flags ...string) string {
		bin := filepath.Join(dir, "multi")
		cmd := exec.Command(gcc, append(flags, "-o", bin, filepath.Join(src, "main.c"), filepath.Join(src, "util.c"))...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, b)
		}
		return bin
	}
	bin := build(t.TempDir(), "-g", "-O0")
	rep, _, err := FromRecording(emulate(t, bin, args), RecordingOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]uint64{}
	for _, f := range rep.Files {
		for _, l := range f.Lines {
			ours[filepath.Base(f.Name)+":"+itoa(uint64(l.Number))] = l.Count
		}
	}
	dir := t.TempDir()
	gbin := build(dir, "-g", "-O0", "--coverage")
	run := exec.Command(gbin, args...)
	run.Dir = dir
	run.Run()
	notes, _ := filepath.Glob(filepath.Join(dir, "*.gcno"))
	theirs := map[string]uint64{}
	for _, n := range notes {
		cmd := exec.Command(gcovTool, "-j", filepath.Base(n))
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcov: %v\n%s", err, b)
		}
		var g gcovJSON
		f, err := os.Open(strings.TrimSuffix(n, ".gcno") + ".gcov.json.gz")
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.NewDecoder(zr).Decode(&g); err != nil {
			t.Fatal(err)
		}
		f.Close()
		for _, gf := range g.Files {
			for _, l := range gf.Lines {
				theirs[filepath.Base(gf.File)+":"+itoa(uint64(l.LineNumber))] += l.Count
			}
		}
	}
	files := map[string]bool{}
	for k, v := range theirs {
		files[strings.Split(k, ":")[0]] = true
		if o, ok := ours[k]; !ok || o != v {
			t.Errorf("%s: ours %d (%v), gcov %d", k, o, ok, v)
		}
	}
	for k := range ours {
		if _, ok := theirs[k]; !ok {
			t.Errorf("%s: ours has code, gcov not", k)
		}
	}
	if len(files) != 3 {
		t.Errorf("gcov files %v, want main.c, util.c, util.h", files)
	}
}

// TestRunsMatchBlock checks that the Aggregator counts the same from the
// session's lean run batches as from one Block at a time, and from the edge
// counts of the decoder (FromRecording's path: ptagg.Options.Edges) at 1, 2
// and 4 decode workers, on programs with threads and library calls (thread
// and map changes inside batches).
func TestRunsMatchBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	type way struct {
		name    string
		workers int
		edges   bool
		h       func(a *Aggregator) session.Handler
	}
	ways := []way{
		{"block", 1, false, func(a *Aggregator) session.Handler { return session.Handler{Block: a.Handler()} }},
		{"runs", 1, false, func(a *Aggregator) session.Handler { return session.Handler{Runs: a.Runs, LeanRuns: true} }},
	}
	for _, w := range []int{1, 2, 4} {
		ways = append(ways, way{fmt.Sprintf("edges -j %d", w), w, true, nil})
	}
	for _, name := range []string{"threads", "mathlib", "fptr"} {
		t.Run(name, func(t *testing.T) {
			bin := buildC(t, t.TempDir(), name, name, "-g", "-O0")
			data := emulate(t, bin, programInputs(t, name)[0])
			out := make([]bytes.Buffer, len(ways))
			for i, w := range ways {
				s, err := session.Open(data, session.Options{Itrace: BareItrace(), Workers: w.workers})
				if err != nil {
					t.Fatal(err)
				}
				a := NewAggregator(s.Machine())
				if w.edges {
					agg := ptagg.New(s.Machine(), ptagg.Options{Edges: true})
					if err := s.Run(session.Handler{Agg: agg}); err != nil {
						t.Fatal(err)
					}
					a.AddEdges(agg.EdgeCounts())
				} else if err := s.Run(w.h(a)); err != nil {
					t.Fatal(err)
				}
				s.Close()
				if err := a.Report().WriteJSON(&out[i], JSONOptions{Branches: true}); err != nil {
					t.Fatal(err)
				}
			}
			for i := 1; i < len(ways); i++ {
				if out[0].Len() == 0 || out[0].String() != out[i].String() {
					t.Errorf("%s and block differ:\n%s", ways[i].name, firstDiff(out[0].String(), out[i].String()))
				}
			}
		})
	}
}
