package gcov

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// unseenPrograms are the programs of issue 20, written to exercise what
// the first seven test programs do not: conditions split over lines with a
// call on the second, sparse switches, if/else inside else-if branches,
// several returns with array, struct or address-taken locals, runs of case
// labels, several labels on a line, functions that fall off their end, and
// C++ (templates, header functions, constructors and destructors,
// exceptions, lambdas).
var unseenPrograms = []string{
	"lexer", "sparse", "elseif", "cleanup", "varargs", "sorting", "machine",
	"tree", "floats", "strbuf", "matrix", "bits", "hashtab",
	"shapes", "stack", "except", "lambda",
	"inventory", "visitor", "events", "grid", "calc", "words",
}

// textAllowance lists the programs whose .gcov texts TestUnseenProgramsO0
// does not require to be gcov's, and what it requires instead: the
// program's line comparisons may miss gcov's exact count on at most
// lines and its -b -c branch/call lines differ on at most branchLines.
//
// The C++ programs written in round 3 (inventory, visitor, events, grid:
// std::map, std::vector, std::function, unique_ptr, RAII, templates)
// have every line's count and every call count, but not yet gcov's -b -c
// records on every line (their blocks-executed figures differ more
// often): returns of class objects in template functions and the
// cleanups of temporaries in a throw expression are not rebuilt block
// for block (TestGccGraphShapes shows which functions' graphs differ).
// Round 13 (branch/call lines identical, main's 6176dc4 -> now):
// library functions declared noexcept or throw () in their headers
// (found through the DWARF declarations of the calls through the PLT),
// functions declared noexcept whatever their bodies call, functions
// defaulted on their declaration (deduced exception specifications), the
// order gcc instantiates templates in (a template instance called by
// another instantiated before it was not nothrow yet), the switch of a
// try/finally left several ways (ehswitch.go) and one block for a
// landing pad's tests of several catch clauses took inventory from
// 120/156 to 156/156, visitor from 132/148 to 144/148, events from
// 148/156 to 152/156, grid from 215/230 to 225/230 (to 230/230 with the
// #if conditions around libstdc++'s exception specifications read:
// to_string(long) is not noexcept on x86-64).
//
// The C++ programs written in round 11 (cxxRound11Programs), measured as
// written (main's as of 47e8a33 -> now): pool.cc has every line's count
// (99.20% -> 100%) and every call count; its -b -c records differed on
// 6 lines over 3 runs (9 -> 6) until round 13 (-> 0: the exception
// cleanup of an aggregate temporary passed by reference in a constructor
// without an exception table, and a one-line template member testing a
// bool taken for a variadic prologue's test); its blocks-executed
// figures still differ. rpn.cc has every line's
// executability and call count, but 3 line counts differ (branch/call
// lines 138/144 -> 141/144 -> 144/144 in round 13): the exception
// paths of a throw of a class object built from a std::string temporary
// inside a catch clause (several temporaries with destructors and
// clobbers, chained cleanups) are not gcc's block for block.
//
// The C++ programs written in round 13 (cxxRound13Programs), measured
// before that round's rules and after: bank.cc has every call count,
// 98.67% of the lines' executability and 97.33% of their counts (both
// unchanged: `return *it->second;`, a reference returned through
// unique_ptr's operator*, counts half of gcov's, and run_ops's closing
// brace has code here, none for gcov), branch/call lines 165/230 ->
// 230/230; wordfreq.cc has every call count, 98.99% of the lines'
// executability and 98.74% -> 98.99% of their counts (the closing brace
// of a catch clause inside an if in a range-for with a guard has no code
// here), branch/call lines 180/240 -> 236/240.
//
// The C++ program written in round 15 (cxxRound15Programs), measured
// before that round's rules and after: playlist.cc has every call count,
// executed/never/no-code 94.42% -> 100% and exact counts 94.20% -> 99.78%
// (a switch's `default: break;` and `case Genre::Rock:` labels; one line
// left: `tracks.push_back(parse(argv[i]));` in a try, whose landing pad's
// cleanup blocks of the temporaries gcov counts as entries of the line),
// branch/call lines 257/280 -> 263/280, plain texts 0/4 -> 3/4.
//
// The C++ program written in round 16 (cxxRound17Programs), measured
// after that round's graph rules, before any rule for it: jobs.cc has
// every line's executability and every call count (105/105), exact counts
// 99.78% (one line: `budget = run_all(ring, budget, report);` in the run
// whose run_all rethrows, counted 1 where gcov counts 2), plain texts
// 4/5, branch/call lines 300/300, function lines 75/100, system headers'
// texts 80/130 plain and 55/130 -b -c (functions gcc instrumented but did
// not emit in the plain build: move<allocator<char>&>,
// __iterator_category, __new_allocator's constructor and destructor).
//
// expr.c (round 15, optRound15Programs) has every line's executability
// and count and every call count at -O0, but its -b -c texts differ on
// one line per run: `switch (op)` in term, whose cases are '*', then
// '/' and '%' sharing a body, and no default: gcov lists the case
// branches first and the default's last (2, 4, 0), we list the default
// first (0, 2, 4).
var textAllowance = map[string]struct{ lines, branchLines int }{
	"expr":      {0, 3},
	"inventory": {0, 0},
	"visitor":   {0, 4},
	"events":    {0, 4},
	"grid":      {0, 0},
	"pool":      {0, 0},
	"rpn":       {3, 0},
	"bank":      {10, 0},
	"wordfreq":  {4, 4},
	"playlist":  {1, 17},
	"jobs":      {1, 0},
}

// systemHeaderFloor keeps the number of system headers' .gcov texts
// (libstdc++'s, over all runs) identical to gcov's, plain and -b -c, from
// getting lower; TestUnseenProgramsO0 logs them against the number of
// texts. What differs: functions gcov lists with no count that the plain
// build does not have (gcc instrumented them, then emitted no code:
// __new_allocator<char>'s constructor, char_traits<char>::copy), the
// order of the instances of a template on one line when a lambda's
// instance (in .text) is among the comdat ones, and the block graphs of
// library templates (TestGccGraphShapes: most C++ functions whose graphs
// differ are libstdc++'s).
var systemHeaderFloor = map[string][2]int{
	"inventory": {57, 48}, "visitor": {52, 36}, "events": {52, 36}, "grid": {15, 5},
	"rpn": {45, 36}, "bank": {85, 65}, "wordfreq": {65, 48}, "playlist": {84, 62}, "jobs": {80, 55},
}

// gcovResult is what gcc 12's gcov says of one run: the JSON of every
// source file of the program (gcov -b -c -j), and the .gcov texts written
// plainly and with -b -c, by base name.
type gcovResult struct {
	bin          string // the --coverage build
	json         *gcovJSON
	text, btext  map[string]string
	mtext        map[string]string // -b -c -m
	summary      map[string]string // gcov -b -c's standard output, per file
	testdataRoot string
}

// runGcov builds name with --coverage and opt in a new directory, runs it
// with args and runs gcov on it three ways.
func runGcov(t testing.TB, name string, args []string, opt string) *gcovResult {
	t.Helper()
	gcovTool, err := exec.LookPath("gcov")
	if err != nil {
		t.Skip("gcov not installed")
	}
	dir := t.TempDir()
	bin := buildC(t, dir, name, name, "-g", opt, "--coverage", "-fprofile-update=atomic")
	run := exec.Command(bin, args...)
	run.Dir = dir
	if b, err := run.CombinedOutput(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
	}
	var lastStdout string
	res := &gcovResult{bin: bin, text: map[string]string{}, btext: map[string]string{}, mtext: map[string]string{},
		testdataRoot: filepath.Join(repoRoot(t), "testdata", "gcov")}
	texts := func(flags ...string) map[string]string {
		old, _ := filepath.Glob(filepath.Join(dir, "*.gcov"))
		for _, f := range old {
			os.Remove(f)
		}
		cmd := exec.Command(gcovTool, append(flags, name+".gcno")...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("gcov %v: %v\n%s", flags, err, b)
		}
		lastStdout = string(b)
		out := map[string]string{}
		files, _ := filepath.Glob(filepath.Join(dir, "*.gcov"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[strings.TrimSuffix(filepath.Base(f), ".gcov")] = string(b)
		}
		return out
	}
	res.text = texts()
	res.btext = texts("-b", "-c")
	res.summary = map[string]string{}
	for _, block := range strings.Split(lastStdout, "\n\n") {
		// File 'NAME'\nLines executed:...\n...Creating 'X.gcov'
		if i := strings.Index(block, "File '"); i >= 0 {
			block = block[i:]
			name := block[len("File '"):]
			name = name[:strings.IndexByte(name, '\'')]
			if c := strings.Index(block, "Creating '"); c >= 0 {
				block = block[:c]
			}
			res.summary[filepath.Base(name)] = block
		}
	}
	res.mtext = texts("-b", "-c", "-m")
	cmd := exec.Command(gcovTool, "-b", "-c", "-j", name+".gcno")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcov -j: %v\n%s", err, b)
	}
	f, err := os.Open(filepath.Join(dir, name+".gcov.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	res.json = &gcovJSON{}
	if err := json.NewDecoder(zr).Decode(res.json); err != nil {
		t.Fatal(err)
	}
	return res
}

// ours is our coverage of one run: the report and the program it is of.
type ours struct {
	prog *Program
	rep  *Report
}

// traceReport records bin run with args, from qemu's exec log where qemu
// is installed, else with the emulated PT recorder, and returns our report.
func traceReport(t testing.TB, bin string, args []string) ours {
	t.Helper()
	if _, err := exec.LookPath("qemu-x86_64"); err == nil {
		prog, err := Load(bin)
		if err != nil {
			t.Fatal(err)
		}
		c := NewCounts(prog)
		c.Process(1)
		qemuFlow(t, bin, args, c)
		return ours{prog, prog.Report(c)}
	}
	rep, progs, err := FromRecording(emulate(t, bin, args), RecordingOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) == 0 {
		t.Fatalf("%s: no program with debug information in the recording", bin)
	}
	return ours{progs[0], rep}
}

// programAgreement compares our reports of one program with gcov's, over
// all its runs and all its source files (headers too).
type programAgreement struct {
	agreement
	textFiles, textSame int // .gcov texts (plain) identical
	bFiles, bSame       int // -b -c texts identical
	mFiles, mSame       int // -b -c -m texts identical
	sumFiles, sumSame   int // gcov -b -c's summaries identical
	firstText           string
	runs                int // runs compared so far
	// sysFiles are the .gcov texts of system headers (libstdc++'s),
	// sysSame and sysBSame those identical to gcov's, plain and -b -c.
	sysFiles, sysSame, sysBSame int
	firstSys                    string
	// With inSame set (-O2), same is the agreement on the lines of
	// functions inlined alike in both builds; rows are the lines with a
	// row in the traced binary's line table, and hidden counts gcov's
	// lines with code that have none.
	inSame func(file string, n int) bool
	same   agreement
	rows   map[string]map[int]bool
	hidden int
}

// compareRun adds one run's comparison.
func (a *programAgreement) compareRun(t testing.TB, name string, args []string, o ours, g *gcovResult) {
	defer func() { a.runs++ }()
	ourFiles := map[string]*File{}
	for _, f := range o.rep.Files {
		ourFiles[filepath.Base(f.Name)] = f
	}
	type lc struct {
		count uint64
		ok    bool
	}
	for _, gf := range g.json.Files {
		path := gf.File
		if !filepath.IsAbs(path) {
			path = filepath.Join(g.testdataRoot, path)
		}
		if filepath.Dir(path) != g.testdataRoot {
			a.compareSystemHeader(t, name, o, g, gf.File, ourFiles[filepath.Base(path)])
			continue
		}
		base := filepath.Base(path)
		of := ourFiles[base]
		// gcov's JSON lists a line once per function of a group (several
		// functions starting on one line): the .gcov text sums them.
		gl := map[int]lc{}
		for _, l := range gf.Lines {
			c := gl[l.LineNumber]
			gl[l.LineNumber] = lc{c.count + l.Count, true}
		}
		ol := map[int]lc{}
		if of != nil {
			for _, l := range of.Lines {
				ol[l.Number] = lc{l.Count, true}
			}
		}
		all := map[int]bool{}
		for n := range gl {
			all[n] = true
		}
		for n := range ol {
			all[n] = true
		}
		nums := make([]int, 0, len(all))
		for n := range all {
			nums = append(nums, n)
		}
		sort.Ints(nums)
		for _, n := range nums {
			x, y := ol[n], gl[n]
			a.lines++
			st, ex := x.ok == y.ok && (x.count > 0) == (y.count > 0), x.ok == y.ok && x.count == y.count
			if st {
				a.status++
			}
			if ex {
				a.exact++
			} else {
				a.diffs = append(a.diffs, formatDiff(base, args, n, x.ok, x.count, y.ok, y.count))
			}
			if a.inSame != nil && a.inSame(base, n) {
				a.same.lines++
				if st {
					a.same.status++
				}
				if ex {
					a.same.exact++
				}
			}
			if a.rows != nil && y.ok && !a.rows[base][n] {
				a.hidden++
			}
		}
		ourFns := map[string]uint64{}
		if of != nil {
			for _, fn := range of.Functions {
				ourFns[fn.Name] += fn.Called
			}
		}
		for _, fn := range gf.Functions {
			a.funcs++
			if c, ok := ourFns[fn.Name]; ok && c == fn.ExecutionCount {
				a.funcsOK++
			} else {
				a.diffs = append(a.diffs, fmt.Sprintf("%s [%s]: function %s called: ours %d (%v), gcov %d",
					base, strings.Join(args, " "), fn.Name, c, ok, fn.ExecutionCount))
			}
		}
		if of == nil {
			continue
		}
		render := func(opt TextOptions) string { return renderText(t, o, of, name, gf.File, opt) }
		if d := os.Getenv("GCOV_DUMP"); d != "" {
			// Both texts of every run, plain, -b -c and -b -c -m, for
			// reading the differences: BASE.RUN.{gcov,ours}[.b|.m].
			p := filepath.Join(d, fmt.Sprintf("%s.%d", base, a.runs))
			os.WriteFile(p+".gcov", []byte(g.text[base]), 0o644)
			os.WriteFile(p+".ours", []byte(render(TextOptions{})), 0o644)
			os.WriteFile(p+".gcov.b", []byte(g.btext[base]), 0o644)
			os.WriteFile(p+".ours.b", []byte(render(TextOptions{Branches: true, Counts: true})), 0o644)
			os.WriteFile(p+".gcov.m", []byte(g.mtext[base]), 0o644)
			os.WriteFile(p+".ours.m", []byte(render(TextOptions{Branches: true, Counts: true, Demangle: true})), 0o644)
			if a.rows != nil {
				// The lines with a row in the traced binary's line table.
				var rows []string
				for n := range a.rows[base] {
					rows = append(rows, fmt.Sprint(n))
				}
				os.WriteFile(p+".rows", []byte(strings.Join(rows, "\n")), 0o644)
			}
			if a.inSame != nil {
				// The lines of functions inlined alike in both builds.
				var same []string
				for n := 1; n <= strings.Count(g.text[base], "\n"); n++ {
					if a.inSame(base, n) {
						same = append(same, fmt.Sprint(n))
					}
				}
				os.WriteFile(p+".same", []byte(strings.Join(same, "\n")), 0o644)
			}
		}
		if want, ok := g.text[base]; ok {
			a.textFiles++
			if got := render(TextOptions{}); got == want {
				a.textSame++
			} else if a.firstText == "" {
				a.firstText = base + ":\n" + firstDiff(got, want)
			}
		}
		if want, ok := g.btext[base]; ok {
			a.bFiles++
			got := render(TextOptions{Branches: true, Counts: true})
			if got == want {
				a.bSame++
			}
			a.compareBranches(got, want)
		}
		if want, ok := g.summary[base]; ok {
			a.sumFiles++
			var b strings.Builder
			o.rep.WriteSummary(&b, of, SummaryOptions{Branches: true})
			if got := strings.Replace(b.String(), "File '"+of.Name, "File '"+gf.File, 1); got == want {
				a.sumSame++
			} else if a.firstText == "" {
				a.firstText = base + " summary:\n" + firstDiff(got, want)
			}
		}
		if want, ok := g.mtext[base]; ok {
			a.mFiles++
			if got := render(TextOptions{Branches: true, Counts: true, Demangle: true}); got == want {
				a.mSame++
			}
		}
	}
}

// renderText returns our .gcov text of of, written with opt as gcov
// writes it for program name, naming the source as gcov names it (gcov
// names it as the compiler saw it: file).
func renderText(t testing.TB, o ours, of *File, name, file string, opt TextOptions) string {
	var b strings.Builder
	opt.Graph, opt.Data = name+".gcno", name+".gcda"
	if err := o.rep.WriteText(&b, of, o.prog.SourceLines(of.Name), opt); err != nil {
		t.Fatal(err)
	}
	return strings.Replace(b.String(), "Source:"+of.Name, "Source:"+file, 1)
}

// compareSystemHeader adds the comparison of one run's .gcov texts, plain
// and -b -c, of the system header gcov names file (our report's of, nil
// when we have none).
func (a *programAgreement) compareSystemHeader(t testing.TB, name string, o ours, g *gcovResult, file string, of *File) {
	base := filepath.Base(file)
	want, ok := g.text[base]
	if !ok {
		return
	}
	a.sysFiles++
	if of == nil {
		if a.firstSys == "" {
			a.firstSys = base + ": no report"
		}
		return
	}
	got, bgot := renderText(t, o, of, name, file, TextOptions{}), renderText(t, o, of, name, file, TextOptions{Branches: true, Counts: true})
	if d := os.Getenv("GCOV_DUMP"); d != "" {
		p := filepath.Join(d, fmt.Sprintf("%s.%d", base, a.runs))
		os.WriteFile(p+".gcov", []byte(want), 0o644)
		os.WriteFile(p+".ours", []byte(got), 0o644)
		os.WriteFile(p+".gcov.b", []byte(g.btext[base]), 0o644)
		os.WriteFile(p+".ours.b", []byte(bgot), 0o644)
	}
	if got == want {
		a.sysSame++
	} else if a.firstSys == "" {
		a.firstSys = base + ":\n" + firstDiff(got, want)
	}
	if bgot == g.btext[base] {
		a.sysBSame++
	}
}

func (a *programAgreement) log(t testing.TB, name, opt string) {
	pct := func(n, d int) float64 { return 100 * float64(n) / float64(max(d, 1)) }
	t.Logf("%s %s: %d line comparisons: executed/never/no-code %.2f%%, exact count %.2f%%; functions called %d/%d",
		name, opt, a.lines, pct(a.status, a.lines), pct(a.exact, a.lines), a.funcsOK, a.funcs)
	t.Logf("%s %s: .gcov texts identical %d/%d, -b -c %d/%d, -b -c -m %d/%d; branch/call lines identical %d/%d, function lines %d/%d; summaries %d/%d",
		name, opt, a.textSame, a.textFiles, a.bSame, a.bFiles, a.mSame, a.mFiles, a.brLinesSame, a.brLines, a.fnLinesSame, a.fnLines,
		a.sumSame, a.sumFiles)
	if a.firstText != "" {
		t.Logf("first .gcov text difference: %s", a.firstText)
	}
	if a.sysFiles > 0 {
		t.Logf("%s %s: system headers' .gcov texts identical %d/%d, -b -c %d/%d", name, opt, a.sysSame, a.sysFiles, a.sysBSame, a.sysFiles)
		if a.firstSys != "" {
			t.Logf("first system header difference: %s", a.firstSys)
		}
	}
	for i, d := range a.diffs {
		if i >= 40 {
			break
		}
		t.Log(d)
	}
}

// TestUnseenProgramsO0 is issue 20's bar at -O0: on every program written
// for it, over all its runs, every line's executability and every
// function's call count equal gcov's, and at least 99.5% of the lines have
// gcov's exact count.
func TestUnseenProgramsO0(t *testing.T) { o0Agreement(t, unseenPrograms) }

// o0Agreement holds each of programs to issue 20's bar at -O0 (see
// TestUnseenProgramsO0).
func o0Agreement(t *testing.T, programs []string) {
	if testing.Short() {
		t.Skip("traces programs")
	}
	for _, name := range programs {
		t.Run(name, func(t *testing.T) {
			if only := os.Getenv("GCOV_PROGRAM"); only != "" && only != name {
				t.Skip("GCOV_PROGRAM=" + only)
			}
			bin := buildC(t, t.TempDir(), name, name, "-g", "-O0")
			var a programAgreement
			for _, args := range programInputs(t, name) {
				g := runGcov(t, name, args, "-O0")
				a.compareRun(t, name, args, traceReport(t, bin, args), g)
			}
			a.log(t, name, "-O0")
			if f, ok := systemHeaderFloor[name]; ok && (a.sysSame < f[0] || a.sysBSame < f[1]) {
				t.Errorf("%s -O0: system headers' .gcov texts identical %d and -b -c %d, below the floor %v", name, a.sysSame, a.sysBSame, f)
			}
			if al, ok := textAllowance[name]; ok {
				// A documented allowance (see textAllowance).
				if a.lines-a.exact > al.lines || a.brLines-a.brLinesSame > al.branchLines || a.funcsOK != a.funcs ||
					a.lines-a.status > al.lines {
					t.Errorf("%s -O0: %d lines without gcov's count, %d branch/call lines differ; allowed %d and %d",
						name, a.lines-a.exact, a.brLines-a.brLinesSame, al.lines, al.branchLines)
				}
				return
			}
			if a.status != a.lines || a.funcsOK != a.funcs || 1000*a.exact < 995*a.lines {
				t.Errorf("%s -O0: below issue 20's bar (every line's executability, every call count, 99.5%% exact counts)", name)
			}
			// The .gcov texts, plain, -b -c and -b -c -m, as gcov's.
			if a.textSame != a.textFiles || a.bSame != a.bFiles || a.mSame != a.mFiles || a.sumSame != a.sumFiles {
				t.Errorf("%s -O0: .gcov texts differ from gcov's (plain %d/%d, -b -c %d/%d, -b -c -m %d/%d, summaries %d/%d identical)",
					name, a.textSame, a.textFiles, a.bSame, a.bFiles, a.mSame, a.mFiles, a.sumSame, a.sumFiles)
			}
		})
	}
}

// unseenO2Floor is what each program built -O2 reaches against gcov of the
// -O2 --coverage build, over all its runs: executed/never/no-code and
// exact-count rates (percent, rounded down); the test keeps them from
// getting worse. They are far below -O0's, and restricting the comparison
// to the functions inlined alike in both builds (optimizedAgreement logs
// it) does not raise them: gcov counts gcc's CFG after early inlining and
// early optimisation, where both builds are still alike, but in the
// traced binary the later passes (switch conversion to tables, if-conversion
// to cmov, loop rotation, peeling, unrolling and vectorisation, tail
// duplication, folding) merged, moved, duplicated or removed that CFG's
// blocks. About 16% of gcov's lines with code left no row at all in the
// traced binary's line table (statements whose code went away, inlined
// statements whose markers gcc dropped): their counts can only be guessed
// from neighbours (rowless.go). And the is_stmt rows that remain do not
// say how often the CFG's blocks ran. sparse is one point lower (-O2 and
// -O3) than it reached before jumps back into a statement of their own
// line without an is_stmt row at the target stopped counting as new
// passes (report.go): http's compare tree, copied into its inlined
// entries, now misses two passes of the switch line in one run, where
// that rule mends rotated loops' heads (all programs: +0.8% exact counts).
var unseenO2Floor = map[string][2]int{
	"lexer": {87, 73}, "sparse": {97, 86}, "elseif": {95, 51}, "cleanup": {94, 83},
	"varargs": {97, 86}, "sorting": {97, 90}, "machine": {87, 78}, "tree": {98, 88},
	"floats": {97, 87}, "strbuf": {86, 77}, "matrix": {88, 76}, "bits": {72, 58},
	"hashtab": {100, 90}, "shapes": {89, 80}, "stack": {81, 54}, "except": {89, 80},
	"lambda": {82, 55}, "inventory": {88, 77}, "visitor": {92, 84}, "events": {89, 78},
	"grid": {78, 50}, "calc": {97, 89}, "words": {89, 85},
}

// unseenO3Floor is unseenO2Floor at -O3. bits is one point lower than it
// reached before the entry-block declarations were counted (rowless.go's
// entryDecl): popcount's `int n = 0;` before `while (v)` has no count for
// gcov at -O3 though it has one at -O2 and in the other programs. hashtab
// is one point lower than it reached before loop entries were counted
// (loops.go): its --coverage build inlines get otherwise, and main's
// second loop, whose preheader holds get's hoisted code, is counted one
// more per entry there than gcov counts it (3 lines; all programs: +3).
// cleanup is two points lower than it reached before statements under rows
// that are not is_stmt were counted (optimized.go's promotedLine): main's
// `total += sign(r);` has only such rows at -O3, counted as often as they
// are passed (3 per run), where gcov counts the blocks sign's early
// inlining left on that line too (5); the borrowed count it had before
// (the if's) was right by chance (all programs: +0.5% exact counts).
// matrix's executed/never/no-code floor is two points lower than it
// reached before `x++;` and `*p = v;` lines were statements for the
// rowless rule: find_first's `*ri = i; *rj = j;` have code for gcov at
// -O2 (1 each, now ours too) but none at -O3, where its --coverage build
// differs (all programs -O3: +0.3% executed status).
var unseenO3Floor = map[string][2]int{
	"lexer": {86, 64}, "sparse": {100, 88}, "elseif": {95, 51}, "cleanup": {94, 89},
	"varargs": {96, 84}, "sorting": {97, 90}, "machine": {77, 68}, "tree": {98, 85},
	"floats": {100, 72}, "strbuf": {86, 77}, "matrix": {83, 48}, "bits": {62, 50},
	"hashtab": {99, 87}, "shapes": {85, 77}, "stack": {82, 57}, "except": {89, 80},
	"lambda": {76, 52}, "inventory": {89, 79}, "visitor": {92, 86}, "events": {89, 78},
	"grid": {72, 42}, "calc": {88, 81}, "words": {84, 72},
}

// TestUnseenProgramsO2 logs the agreement at -O2 of the programs of
// TestUnseenProgramsO0, and keeps it above unseenO2Floor.
func TestUnseenProgramsO2(t *testing.T) { optimizedAgreement(t, unseenPrograms, "-O2", unseenO2Floor) }

// TestUnseenProgramsO3 is TestUnseenProgramsO2 at -O3.
func TestUnseenProgramsO3(t *testing.T) { optimizedAgreement(t, unseenPrograms, "-O3", unseenO3Floor) }

// optimizedAgreement compares each program built with opt with gcov of
// the opt --coverage build, over all its runs: all lines, and the lines of
// the functions inlined alike in both builds (inlineShapes). It logs which
// functions differ and how many of gcov's lines with code have no row in
// the traced binary's line table.
func optimizedAgreement(t *testing.T, programs []string, opt string, floor map[string][2]int) {
	if testing.Short() {
		t.Skip("traces programs")
	}
	var sum, sameSum agreement
	hiddenSum := 0
	pct := func(n, d int) float64 { return 100 * float64(n) / float64(max(d, 1)) }
	defer func() {
		if sum.lines > 0 {
			t.Logf("all programs %s: %d line comparisons: executed/never/no-code %.2f%%, exact count %.2f%%; gcov's lines with code but no row: %d",
				opt, sum.lines, pct(sum.status, sum.lines), pct(sum.exact, sum.lines), hiddenSum)
			t.Logf("all programs %s, functions inlined alike: %d line comparisons: executed/never/no-code %.2f%%, exact count %.2f%%",
				opt, sameSum.lines, pct(sameSum.status, sameSum.lines), pct(sameSum.exact, sameSum.lines))
		}
	}()
	for _, name := range programs {
		t.Run(name, func(t *testing.T) {
			if only := os.Getenv("GCOV_PROGRAM"); only != "" && only != name {
				t.Skip("GCOV_PROGRAM=" + only)
			}
			bin := buildC(t, t.TempDir(), name, name, "-g", opt)
			var a programAgreement
			a.rows = rowLines(t, bin)
			plain := inlineShapes(t, bin)
			var differ []string
			for i, args := range programInputs(t, name) {
				g := runGcov(t, name, args, opt)
				if i == 0 {
					cov := inlineShapes(t, g.bin)
					var same map[string][]int
					same, differ = sameInlining(plain, cov)
					a.inSame = lineFilter(declsOf(plain, cov), same)
				}
				a.compareRun(t, name, args, traceReport(t, bin, args), g)
			}
			a.log(t, name, opt)
			t.Logf("%s %s: functions inlined otherwise in the --coverage build: %s", name, opt, shapeSummary(differ))
			t.Logf("%s %s: lines of functions inlined alike: %d comparisons, executed/never/no-code %.2f%%, exact count %.2f%%; gcov's lines with code but no row in the traced binary: %d",
				name, opt, a.same.lines, pct(a.same.status, a.same.lines), pct(a.same.exact, a.same.lines), a.hidden)
			sameSum.lines += a.same.lines
			sameSum.status += a.same.status
			sameSum.exact += a.same.exact
			hiddenSum += a.hidden
			sum.lines += a.lines
			sum.status += a.status
			sum.exact += a.exact
			if f, ok := floor[name]; ok && (100*a.status < f[0]*a.lines || 100*a.exact < f[1]*a.lines) {
				t.Errorf("%s %s: below its floor %v", name, opt, f)
			}
		})
	}
}

// freshO2Programs were written after the -O2 model was tuned on
// unseenPrograms, to measure it on code it was not made for: loops,
// switches, static helpers inlined once or often, tail calls (ring.c,
// tokens.c, stats.c, shelf.cc).
var freshO2Programs = []string{"ring", "tokens", "stats", "shelf"}

// freshO2Floor and freshO3Floor keep the fresh programs' -O2 and -O3
// agreement from getting worse.
var freshO2Floor = map[string][2]int{"ring": {94, 86}, "tokens": {94, 70}, "stats": {97, 86}, "shelf": {89, 74}}

var freshO3Floor = map[string][2]int{"ring": {90, 77}, "tokens": {92, 71}, "stats": {95, 77}, "shelf": {86, 77}}

// TestFreshProgramsO2 is TestUnseenProgramsO2 on freshO2Programs.
func TestFreshProgramsO2(t *testing.T) { optimizedAgreement(t, freshO2Programs, "-O2", freshO2Floor) }

// TestFreshProgramsO3 is TestUnseenProgramsO3 on freshO2Programs.
func TestFreshProgramsO3(t *testing.T) { optimizedAgreement(t, freshO2Programs, "-O3", freshO3Floor) }

// loopPrograms were written to measure loop heads at -O2 and -O3 (for,
// while and do-while loops, nested, with early exits, break and continue,
// loops whose body is one call): runs.c and scan.c.
var loopPrograms = []string{"runs", "scan"}

// loopO2Floor and loopO3Floor keep the loop programs' agreement from
// getting worse.
var loopO2Floor = map[string][2]int{"runs": {99, 90}, "scan": {98, 89}}

var loopO3Floor = map[string][2]int{"runs": {95, 77}, "scan": {91, 74}}

// TestLoopProgramsO2 is TestUnseenProgramsO2 on loopPrograms.
func TestLoopProgramsO2(t *testing.T) { optimizedAgreement(t, loopPrograms, "-O2", loopO2Floor) }

// TestLoopProgramsO3 is TestUnseenProgramsO3 on loopPrograms.
func TestLoopProgramsO3(t *testing.T) { optimizedAgreement(t, loopPrograms, "-O3", loopO3Floor) }

// round8Programs were written in round 8, after the -O2 model was tuned on
// the sets above, to measure it on code it was not made for: a dense
// switch interpreter (opcodes.c), do/while loops (digits.c), early
// returns (lookup.c), short-circuit && and || (gates.c), ternaries
// (pick.c), tail recursion (tailcall.c), goto (retry.c), nested loops
// with break and continue (nested.c), static inline helpers (helpers.c)
// and a switch-driven state machine (csv.c).
var round8Programs = []string{"opcodes", "digits", "lookup", "gates", "pick", "tailcall", "retry", "nested", "helpers", "csv"}

// round8O2Floor and round8O3Floor keep round8Programs' agreement from
// getting worse.
var round8O2Floor = map[string][2]int{
	"opcodes": {92, 87}, "digits": {91, 83}, "lookup": {93, 89}, "gates": {94, 73}, "pick": {98, 83},
	"tailcall": {100, 81}, "retry": {86, 78}, "nested": {95, 84}, "helpers": {100, 85}, "csv": {93, 80},
}

var round8O3Floor = map[string][2]int{
	"opcodes": {92, 89}, "digits": {91, 83}, "lookup": {89, 73}, "gates": {94, 73}, "pick": {98, 75},
	"tailcall": {100, 79}, "retry": {89, 76}, "nested": {82, 48}, "helpers": {97, 81}, "csv": {93, 80},
}

// TestRound8ProgramsO0 is TestUnseenProgramsO0 on round8Programs.
func TestRound8ProgramsO0(t *testing.T) { o0Agreement(t, round8Programs) }

// TestRound8ProgramsO2 is TestUnseenProgramsO2 on round8Programs.
func TestRound8ProgramsO2(t *testing.T) { optimizedAgreement(t, round8Programs, "-O2", round8O2Floor) }

// TestRound8ProgramsO3 is TestUnseenProgramsO3 on round8Programs.
func TestRound8ProgramsO3(t *testing.T) { optimizedAgreement(t, round8Programs, "-O3", round8O3Floor) }

// round10Programs were written in round 10 to find -O0 rules not
// modelled yet: jumps out of scopes whose locals live in memory, do-while
// loops with unbraced bodies, returns over several lines (scopes.c);
// switches that only return constants, case labels of characters on one
// and on consecutive lines, varargs, qsort callbacks and goto error paths
// (tokkind.c); a class template, constructors and destructors, a throw
// caught in a loop, lambdas passed to a template and a return over
// several lines in C++ (ledger.cc).
var round10Programs = []string{"scopes", "tokkind", "ledger"}

// TestRound10ProgramsO0 is TestUnseenProgramsO0 on round10Programs.
func TestRound10ProgramsO0(t *testing.T) { o0Agreement(t, round10Programs) }

// round10O2Floor and round10O3Floor keep round10Programs' agreement from
// getting worse.
var round10O2Floor = map[string][2]int{"scopes": {90, 83}, "tokkind": {97, 89}, "ledger": {76, 63}}

var round10O3Floor = map[string][2]int{"scopes": {86, 77}, "tokkind": {95, 87}, "ledger": {80, 73}}

// TestRound10ProgramsO2 is TestUnseenProgramsO2 on round10Programs.
func TestRound10ProgramsO2(t *testing.T) {
	optimizedAgreement(t, round10Programs, "-O2", round10O2Floor)
}

// TestRound10ProgramsO3 is TestUnseenProgramsO3 on round10Programs.
func TestRound10ProgramsO3(t *testing.T) {
	optimizedAgreement(t, round10Programs, "-O3", round10O3Floor)
}

// cxxRound11Programs were written in round 11 to measure the C++ graph
// rules on code they were not made for: an object pool template in a
// header with RAII leases, virtual jobs, lambdas passed to a member
// template and a result template (pool.cc, pool.h); an RPN evaluator with
// virtual operators in a vector of unique_ptr, a scope guard, a function
// template with a switch, and exceptions thrown, caught, rethrown and
// translated (rpn.cc). Neither is gcov's yet on every record: see
// textAllowance.
var cxxRound11Programs = []string{"pool", "rpn"}

// TestCxxRound11ProgramsO0 is TestUnseenProgramsO0 on cxxRound11Programs.
func TestCxxRound11ProgramsO0(t *testing.T) { o0Agreement(t, cxxRound11Programs) }

// cxxRound13Programs were written in round 13, before any rule of that
// round, to measure the C++ rules on code they were not made for: a bank
// of accounts in a std::map of unique_ptr with virtual fees, an exception
// class of its own, an RAII audit scope left by break, continue, return
// and exceptions, a function template, lambdas given to std::sort and
// std::for_each (bank.cc); word frequencies with std::string splitting, a
// class template ring buffer that throws, std::stoi's exceptions caught,
// translated and rethrown, virtual reports, a lambda over a std::map, a
// character switch in a function template and a guard left by break and
// continue (wordfreq.cc). See textAllowance.
var cxxRound13Programs = []string{"bank", "wordfreq"}

// TestCxxRound13ProgramsO0 is TestUnseenProgramsO0 on cxxRound13Programs.
func TestCxxRound13ProgramsO0(t *testing.T) { o0Agreement(t, cxxRound13Programs) }

// cxxRound15Programs were written in round 15, before any rule of that
// round, to measure the C++ rules on code they were not made for: a
// playlist of tracks in std::set and std::deque, std::optional returned by
// value, operator overloads, virtual destructors in a vector of
// unique_ptr, a class template's static member, two exception classes
// caught by several catch clauses (std::out_of_range from at()), a switch
// on an enum class, std::accumulate and std::count_if with lambdas
// (playlist.cc). See textAllowance.
var cxxRound15Programs = []string{"playlist"}

// TestCxxRound15ProgramsO0 is TestUnseenProgramsO0 on cxxRound15Programs.
func TestCxxRound15ProgramsO0(t *testing.T) { o0Agreement(t, cxxRound15Programs) }

// cxxRound17Programs were written in round 16 (worktree gcovpp17) after
// that round's graph rules, before measuring them: a job scheduler with a
// class template over a non-type parameter, a function template taking a
// lambda, lambdas capturing by value and by reference (std::sort, a
// std::function callback), exceptions thrown from a constructor and a
// member, caught by base class and rethrown, RAII guards, a virtual
// destructor, inherited constructors (jobs.cc). See textAllowance.
var cxxRound17Programs = []string{"jobs"}

// TestCxxRound17ProgramsO0 is TestUnseenProgramsO0 on cxxRound17Programs.
func TestCxxRound17ProgramsO0(t *testing.T) { o0Agreement(t, cxxRound17Programs) }

// o0Round15Programs hold the C forms of what round 15's fresh C++ program
// showed at -O0: a switch whose default only breaks, reached by the
// compare tree's last jump (swbreak.c).
var o0Round15Programs = []string{"swbreak"}

// TestRound15ProgramsO0 is TestUnseenProgramsO0 on o0Round15Programs.
func TestRound15ProgramsO0(t *testing.T) { o0Agreement(t, o0Round15Programs) }
