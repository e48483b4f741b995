package gcov

import "strings"

// Hand scanners for the source-line tests findRowless runs on every line
// of optimised functions without code: they answer as the regular
// expressions they replace (kept in scan_test.go as the oracles,
// TestScannersMatchRegexps), at a fraction of the cost (the backtracking
// of `.*` and alternations was half of Load's time on a large -O2
// program: BenchmarkLoadReportLargeO2).

// isSpace reports whether c is in RE2's \s: [\t\n\f\r ].
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// isWord reports whether c is in RE2's \w: [0-9A-Za-z_].
func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// isIdentStart reports whether c is in [A-Za-z_].
func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// skipSpace returns the index of the first byte of s at or after i that
// is not in \s.
func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// skipWord returns the index of the first byte of s at or after i that is
// not in \w.
func skipWord(s string, i int) int {
	for i < len(s) && isWord(s[i]) {
		i++
	}
	return i
}

// lineTail reports whether s is what may end a statement's line:
// `\s*(//.*|/\*.*)?$`.
func lineTail(s string) bool {
	i := skipSpace(s, 0)
	rest := s[i:]
	if rest == "" {
		return true
	}
	return (strings.HasPrefix(rest, "//") || strings.HasPrefix(rest, "/*")) && strings.IndexByte(rest, '\n') < 0
}

// declKeywords are the words a declaration starts with (declStartRE,
// scan_test.go).
var declKeywords = map[string]bool{
	"int": true, "long": true, "short": true, "char": true, "float": true, "double": true, "unsigned": true,
	"signed": true, "const": true, "static": true, "struct": true, "union": true, "enum": true, "void": true,
	"size_t": true, "_Bool": true, "bool": true,
}

// isDeclStart reports whether s starts a declaration: its first word
// (after blanks) is a type or storage keyword. It is the regular
// expression `^\s*(int|long|...|bool)\b`.
func isDeclStart(s string) bool {
	i := skipSpace(s, 0)
	j := skipWord(s, i)
	return declKeywords[s[i:j]]
}

// assignOps are the operators of an assignment or an increment that
// isRowlessStmt accepts after an lvalue, longest first where one is the
// prefix of another.
var assignOps = []string{"<<=", ">>=", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "++", "--", "="}

// isLvalueByte reports whether c may continue an lvalue: [\w.\->\[\]*].
func isLvalueByte(c byte) bool {
	return isWord(c) || c == '.' || c == '-' || c == '>' || c == '[' || c == ']' || c == '*'
}

// isRowlessStmt reports whether s holds one statement gcov would count:
// a return, a goto, an if, an assignment or increment, or a call, then an
// optional comment. It is the regular expression
//
//	^\s*(return\b[^;]*;|goto\s+\w+\s*;|if\s*\(.*|
//	\**[A-Za-z_][\w.\->\[\]*]*\s*(=|\+=|-=|\*=|/=|%=|\|=|&=|\^=|<<=|>>=|\+\+|--)(?:[^=].*)?;|
//	[A-Za-z_]\w*\s*\(.*\)\s*;)\s*(//.*|/\*.*)?$
func isRowlessStmt(s string) bool {
	i := skipSpace(s, 0)
	t := s[i:]
	if strings.IndexByte(t, '\n') >= 0 {
		// `.` does not match a newline: keep the scanners' cases to
		// lines (source lines have none).
		return rowlessStmt.MatchString(s)
	}
	if strings.HasPrefix(t, "return") && (len(t) == 6 || !isWord(t[6])) {
		if k := strings.IndexByte(t[6:], ';'); k >= 0 && lineTail(t[6+k+1:]) {
			return true
		}
	}
	if strings.HasPrefix(t, "goto") {
		j := skipSpace(t, 4)
		if j > 4 {
			if k := skipWord(t, j); k > j {
				k = skipSpace(t, k)
				if k < len(t) && t[k] == ';' && lineTail(t[k+1:]) {
					return true
				}
			}
		}
	}
	if strings.HasPrefix(t, "if") {
		if j := skipSpace(t, 2); j < len(t) && t[j] == '(' {
			return true // `.*` then an empty tail
		}
	}
	return assignStmt(t) || callStmt(t)
}

// assignStmt is isRowlessStmt's assignment alternative on t (blanks
// skipped): `\**[A-Za-z_][\w.\->\[\]*]*\s*(op)(?:[^=].*)?;` then a tail.
func assignStmt(t string) bool {
	i := 0
	for i < len(t) && t[i] == '*' {
		i++
	}
	if i >= len(t) || !isIdentStart(t[i]) {
		return false
	}
	run := i + 1
	for run < len(t) && isLvalueByte(t[run]) {
		run++
	}
	// The lvalue may end anywhere in the run (the operator's first byte
	// can be one of its bytes: -, *, >).
	for e := i + 1; e <= run; e++ {
		j := e
		if e == run {
			j = skipSpace(t, e)
		}
		for _, op := range assignOps {
			if strings.HasPrefix(t[j:], op) && assignRest(t[j+len(op):]) {
				return true
			}
		}
	}
	return false
}

// assignRest reports whether r, what follows an assignment's operator,
// matches `(?:[^=].*)?;` then a tail: a semicolon right away, or a byte
// other than '=' and then some semicolon that a tail follows.
func assignRest(r string) bool {
	if r == "" {
		return false
	}
	if r[0] == ';' && lineTail(r[1:]) {
		return true
	}
	if r[0] == '=' {
		return false
	}
	for k := 1; k < len(r); k++ {
		if r[k] == ';' && lineTail(r[k+1:]) {
			return true
		}
	}
	return false
}

// callStmt is isRowlessStmt's call alternative on t (blanks skipped):
// `[A-Za-z_]\w*\s*\(.*\)\s*;` then a tail.
func callStmt(t string) bool {
	if t == "" || !isIdentStart(t[0]) {
		return false
	}
	j := skipSpace(t, skipWord(t, 1))
	if j >= len(t) || t[j] != '(' {
		return false
	}
	for q := j + 1; q < len(t); q++ {
		if t[q] != ')' {
			continue
		}
		if k := skipSpace(t, q+1); k < len(t) && t[k] == ';' && lineTail(t[k+1:]) {
			return true
		}
	}
	return false
}
