package gcov

import (
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The regular expressions the hand scanners of scan.go replace: the
// oracles of TestScannersMatchRegexps.
var (
	declStartRE   = regexp.MustCompile(`^\s*(int|long|short|char|float|double|unsigned|signed|const|static|struct|union|enum|void|size_t|_Bool|bool)\b`)
	rowlessStmtRE = regexp.MustCompile(`^\s*(return\b[^;]*;|goto\s+\w+\s*;|if\s*\(.*|` +
		`\**[A-Za-z_][\w.\->\[\]*]*\s*(=|\+=|-=|\*=|/=|%=|\|=|&=|\^=|<<=|>>=|\+\+|--)(?:[^=].*)?;|[A-Za-z_]\w*\s*\(.*\)\s*;)\s*(//.*|/\*.*)?$`)
)

// TestScannersMatchRegexps checks that each hand scanner answers as its
// regular expression on every line of the test programs, on those lines
// cut and spliced, and on random lines made of C's tokens.
func TestScannersMatchRegexps(t *testing.T) {
	var lines []string
	files, _ := filepath.Glob(filepath.Join(repoRoot(t), "testdata", "gcov", "*.[ch]*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	rng := rand.New(rand.NewSource(1))
	tokens := []string{" ", "\t", "\r", "\n", "\f", "\v", "return", "goto", "if", "int", "unsigned", "size_t", "_Bool", "x", "p_1", "_",
		"9", "*", "**", ".", "->", "-", ">", "[", "]", "[i]", "(", ")", "=", "==", "+=", "-=", "*=", "/=", "%=", "|=", "&=",
		"^=", "<<=", ">>=", "<<", "++", "--", ";", ";;", "//", "/*", "*/", "c", "f(x)", ",", "\"s;\"", "'='", "{", "}", ":", "<", ">=", "0", "'a'", "NULL", "enum e", "signed", "double", "-"}
	n := len(lines)
	for range 200000 {
		var b strings.Builder
		if rng.Intn(3) == 0 && n > 0 {
			// A line of a program cut and spliced with another's.
			a, c := lines[rng.Intn(n)], lines[rng.Intn(n)]
			b.WriteString(a[:rng.Intn(len(a)+1)])
			b.WriteString(c[rng.Intn(len(c)+1):])
		} else {
			for range rng.Intn(9) {
				b.WriteString(tokens[rng.Intn(len(tokens))])
			}
		}
		lines = append(lines, b.String())
	}
	for _, s := range lines {
		if got, want := isDeclStart(s), declStartRE.MatchString(s); got != want {
			t.Errorf("isDeclStart(%q) = %v, the regexp %v", s, got, want)
		}
		if got, want := isRowlessStmt(s), rowlessStmtRE.MatchString(s); got != want {
			t.Errorf("isRowlessStmt(%q) = %v, the regexp %v", s, got, want)
		}
		// The tests run before a regexp must pass every line it matches.
		hasEqSemi := strings.IndexByte(s, '=') >= 0 && strings.IndexByte(s, ';') >= 0
		if constDecl.MatchString(s) && !mayBeConstDecl(s) {
			t.Errorf("mayBeConstDecl(%q) is false, constDecl matches", s)
		}
		if (constAssign.MatchString(s) || minMaxAssign.MatchString(s)) && !hasEqSemi {
			t.Errorf("%q: constAssign or minMaxAssign matches without '=' and ';'", s)
		}
		if ifCompare.MatchString(s) && (!strings.HasPrefix(strings.TrimLeft(s, " \t\n\f\r"), "if") || !strings.ContainsAny(s, "<>")) {
			t.Errorf("%q: ifCompare matches", s)
		}
	}
}
