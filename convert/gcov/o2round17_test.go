package gcov

import (
	"path/filepath"
	"strings"
	"testing"
)

// optLines returns, for the lines of name's source listed in lines, our
// count of the opt build's first run and gcov's of the opt --coverage
// build (a line missing from a map has no code there).
func optLines(t *testing.T, name, opt string, lines []int) (ours, theirs map[int]uint64) {
	t.Helper()
	if testing.Short() {
		t.Skip("traces a program")
	}
	args := programInputs(t, name)[0]
	g := runGcov(t, name, args, opt)
	bin := buildC(t, t.TempDir(), name, name, "-g", opt)
	o := traceReport(t, bin, args)
	want := map[int]bool{}
	for _, n := range lines {
		want[n] = true
	}
	ours, theirs = map[int]uint64{}, map[int]uint64{}
	for _, f := range o.rep.Files {
		if filepath.Base(f.Name) == name+".c" {
			for _, l := range f.Lines {
				if want[l.Number] {
					ours[l.Number] = l.Count
				}
			}
		}
	}
	for _, f := range g.json.Files {
		if filepath.Base(f.File) == name+".c" {
			for _, l := range f.Lines {
				if want[l.LineNumber] {
					theirs[l.LineNumber] += l.Count
				}
			}
		}
	}
	return ours, theirs
}

// TestInlinedCopiesO2 checks, on units.c at -O2, the counts of inlined
// copies of one function in one run of straight code: to_mm inlined
// twice into convert, each a table load whose DWARF instance has no
// range (emptyInstanceReturn: the call lines 84 and 85 are passed once,
// not again when the table load ends; forgetInlinedBodies: the switch on
// line 12 once per copy), and metric inlined twice into line 104 as
// setbe instructions at one address (findMergedCopies: its lines and the
// call line once per copy).
func TestInlinedCopiesO2(t *testing.T) {
	sameOptLines(t, "units", "-O2", []int{12, 25, 27, 84, 85, 104})
}

// sameOptLines checks that the lines listed of name's source have gcov's
// counts at opt (optLines).
func sameOptLines(t *testing.T, name, opt string, lines []int) {
	ours, theirs := optLines(t, name, opt, lines)
	for _, n := range lines {
		o, ok := ours[n]
		g, gok := theirs[n]
		if ok != gok || o != g {
			t.Errorf("%s.c:%d: ours %d (code %v), gcov %d (code %v)", name, n, o, ok, g, gok)
		}
	}
}

// optRound17Programs were written in round 17, after its first -O2 rules
// (emptyInstanceReturn, forgetInlinedBodies, findMergedCopies) and before
// any other, to measure the model on code it was not made for: a parcel
// quote calculator with helpers called twice in one expression, a switch
// returning rates, an if chain with a nested if, a do-while reader, goto
// error paths, a qsort callback and a varargs logger (parcel.c).
var optRound17Programs = []string{"parcel"}

// TestOptRound17ProgramsO0 is TestUnseenProgramsO0 on optRound17Programs.
func TestOptRound17ProgramsO0(t *testing.T) { o0Agreement(t, optRound17Programs) }

// optRound17O2Floor and optRound17O3Floor keep optRound17Programs'
// agreement from getting worse. Measured after the first rules: -O2
// 93.73/84.31 (classification/exact), -O3 94.84/83.33; with jumpView
// and the switch leaves, -O2 94.90/86.67, -O3 96.03/85.71.
var optRound17O2Floor = map[string][2]int{"parcel": {94, 86}}

var optRound17O3Floor = map[string][2]int{"parcel": {96, 85}}

// TestOptRound17ProgramsO2 is TestUnseenProgramsO2 on optRound17Programs.
func TestOptRound17ProgramsO2(t *testing.T) {
	optimizedAgreement(t, optRound17Programs, "-O2", optRound17O2Floor)
}

// TestOptRound17ProgramsO3 is TestUnseenProgramsO3 on optRound17Programs.
func TestOptRound17ProgramsO3(t *testing.T) {
	optimizedAgreement(t, optRound17Programs, "-O3", optRound17O3Floor)
}

// TestLeavesLocals checks leavesLocals on breaks and continues that leave
// blocks with and without locals: a do-while body without declarations
// (parcel.c's read_int), a loop body declaring one, a for loop's own
// declaration (left by a break, not by a continue), a switch's case.
func TestLeavesLocals(t *testing.T) {
	cases := []struct {
		src  string
		want bool
	}{
		{"f()\n{\n\tint v = 0;\n\tdo {\n\t\tif (v > 3)\n\t\t\tbreak;\n\t\tv++;\n\t} while (v < 9);\n}", false},
		{"f()\n{\n\twhile (g()) {\n\t\tint c = h();\n\t\tif (c)\n\t\t\tbreak;\n\t}\n}", true},
		{"f()\n{\n\tfor (int i = 0; i < 3; i++) {\n\t\tif (g(i))\n\t\t\tbreak;\n\t}\n}", true},
		{"f()\n{\n\tfor (int i = 0; i < 3; i++) {\n\t\tif (g(i))\n\t\t\tcontinue;\n\t}\n}", false},
		{"f()\n{\n\tint i;\n\tfor (i = 0; i < 3; i++)\n\t{\n\t\tif (g(i)) {\n\t\t\th();\n\t\t\tbreak;\n\t\t}\n\t}\n}", false},
		{"f()\n{\n\twhile (g()) {\n\t\tswitch (h()) {\n\t\tcase 1:\n\t\t\tbreak;\n\t\t}\n\t}\n}", false},
	}
	for _, c := range cases {
		src := strings.Split(c.src, "\n")
		ln := int32(0)
		for i, l := range src {
			if breakStmt.MatchString(l) {
				ln = int32(i + 1)
			}
		}
		if got := leavesLocals(src, 1, ln); got != c.want {
			t.Errorf("leavesLocals(%q, line %d) = %v, want %v", c.src, ln, got, c.want)
		}
	}
}

// TestSwitchLeavesO2 checks, on bits.c at -O2, two cases of log2_exact's
// switch of constant returns that have no row of their own: `case 2:
// return 1;`, a jump table's leaf that only loads 1 (returnLeaf), and
// `case 4096: return 12;`, tested by a compare whose gcov line is the
// leaf's before it but whose row is the switch's (caseJumpsFor).
func TestSwitchLeavesO2(t *testing.T) { sameOptLines(t, "bits", "-O2", []int{21, 26}) }

// TestLocalDecl checks localDecl on declarations of typedef'd and struct
// types and on statements that are none.
func TestLocalDecl(t *testing.T) {
	for s, want := range map[string]bool{
		"\tFILE *f = fopen(p, \"r\");": true, "\tuint32_t v;": true, "\tstruct pt p = {x, y};": true,
		"\tint n = 0, seps = 0;": true, "\tchar buf[64];": true,
		"\tx = y;": false, "\treturn v;": false, "\tf(x);": false, "\t*p = q;": false, "\tgoto out;": false,
	} {
		if got := localDecl(s); got != want {
			t.Errorf("localDecl(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestViewOnlyIfO2 checks, on words.c at -O2, the ifs after
// `int k = classify(*p);` whose tests gcc threaded into classify's
// switch: their rows are only views at leaves most passes skip, and
// they count as the statement before them (viewOnlyIf).
func TestViewOnlyIfO2(t *testing.T) { sameOptLines(t, "words", "-O2", []int{50, 52}) }
