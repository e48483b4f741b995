package gcov

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// o2Floor is the agreement with gcov reached on each program built -O2:
// executed/never/no-code and exact-count rates (percent) and call counts.
// The test fails below it, so that changes to the -O2 model only improve.
// It holds over all the inputs of each program.
var o2Floor = map[string][3]float64{
	"switch":  {84, 67, 4},
	"recurse": {97, 59, 7},
	"fptr":    {97, 83, 21},
	"mathlib": {97, 81, 9},
	"jmp":     {98, 85, 11},
	"threads": {90, 70, 6},
	"loops":   {89, 66, 6},
}

// TestO2Agreement compares our report of each test program built -g -O2
// (recorded with the emulated recorder) with gcc 12's gcov of the program
// built -O2 --coverage and run with the same inputs. gcov counts the
// source-level CFG before most optimisation; the machine code is what we
// see, so the rates are lower than at -O0: the test logs them per program.
func TestO2Agreement(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	// Every input of every program, with -v or without.
	var sum agreement
	defer func() {
		if sum.lines > 0 {
			t.Logf("all programs -O2: %d line comparisons: executed/never/no-code %d, exact count %d; functions called %d/%d",
				sum.lines, sum.status, sum.exact, sum.funcsOK, sum.funcs)
		}
	}()
	for _, name := range testPrograms {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			bin := buildC(t, dir, name, name, "-g", "-O2")
			var a agreement
			for _, args := range programInputs(t, name) {
				rep, progs, err := FromRecording(emulate(t, bin, args), RecordingOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(progs) == 0 {
					t.Fatalf("%s: no program with debug information in the recording", name)
				}
				g, text := realGcovOpt(t, name, args, "-O2")
				a.compare(t, name, args, rep, g)
				if d := os.Getenv("GCOV_O2_DUMP"); d != "" {
					// Both .gcov texts, for reading the differences.
					n := name + "." + strconv.Itoa(a.texts)
					os.WriteFile(filepath.Join(d, n+".gcov"), []byte(text), 0o644)
					os.WriteFile(filepath.Join(d, n+".ours"), []byte(ourText(t, progs[0], rep, name, TextOptions{})), 0o644)
				}
				a.texts++
			}
			sum.lines += a.lines
			sum.status += a.status
			sum.exact += a.exact
			sum.funcs += a.funcs
			sum.funcsOK += a.funcsOK
			pct := func(n, d int) float64 { return 100 * float64(n) / float64(d) }
			status, exact := pct(a.status, a.lines), pct(a.exact, a.lines)
			t.Logf("%s -O2: %d line comparisons: executed/never/no-code %.1f%%, exact count %.1f%%; functions called %d/%d",
				name, a.lines, status, exact, a.funcsOK, a.funcs)
			if testing.Verbose() {
				for i, d := range a.diffs {
					if i >= 40 {
						break
					}
					t.Log(d)
				}
			}
			if f, ok := o2Floor[name]; ok && (status < f[0] || exact < f[1] || float64(a.funcsOK) < f[2]) {
				t.Errorf("%s -O2: agreement below %v", name, f)
			}
		})
	}
}
