package gcov

import (
	"sort"
	"strings"
)

// Statements of optimised code can leave no row at all in the line table
// (a return folded into the code before it, a goto or label that became a
// fall-through, a test decided at compile time) while gcov, which counts the
// CFG before those optimisations, still counts them. findRowless gives such
// lines a count borrowed from a line that has code: a return gets the
// count of its function's declaration line (its calls), a label the count
// of the next line with code, a goto that of its label, other statements
// that of the nearest line with code at their nesting level in the same
// block. Declarations are left alone (gcc folds
// their initialisers away early, and gcov shows no code for them either),
// and so are returns of constants or variables in functions with several
// returns, and returns without a value.

// rowlessStmt matches a line that holds one statement gcov would count:
// return, goto, an if, a call or an assignment (break and continue become
// fall-throughs or jumps of the blocks around them).
var rowlessStmt = newLazyRegexp(`^\s*(return\b[^;]*;|goto\s+\w+\s*;|if\s*\(.*|` +
	`[A-Za-z_][\w.\->\[\]*]*\s*(=|\+=|-=|\*=|/=|%=|\+\+|--)[^=].*;|[A-Za-z_]\w*\s*\(.*\)\s*;)\s*(//.*|/\*.*)?$`)

// declStart matches a line that starts a declaration.
var declStart = newLazyRegexp(`^\s*(int|long|short|char|float|double|unsigned|signed|const|static|struct|union|enum|void|size_t|_Bool|bool)\b`)

var returnStmt = newLazyRegexp(`^\s*return\b`)

var gotoStmt = newLazyRegexp(`^\s*goto\s+(\w+)\s*;`)

// returnLiteral matches a return of a constant or of a variable (or of
// nothing): in a function with several returns gcc makes the value an
// argument of the return value's PHI, and the return no statement.
var returnLiteral = newLazyRegexp(`^\s*return\s*(-?\d[\w.]*|NULL|true|false|'[^']*'|"[^"]*"|[A-Za-z_]\w*)?\s*;`)

// rowless is a line without rows whose count is that of the line ref.
type rowless struct {
	gline, ref int32
}

func (p *Program) findRowless() {
	lineIdx := map[lineKey]int32{}
	for i, k := range p.lines {
		lineIdx[k] = int32(i)
	}
	// Lines with code, per file.
	code := map[int32]map[int32]bool{}
	mark := func(g int32) {
		if g < 0 {
			return
		}
		k := p.lines[g]
		if code[k.file] == nil {
			code[k.file] = map[int32]bool{}
		}
		code[k.file][k.line] = true
	}
	anyOpt := false
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		if !fn.optimized {
			continue
		}
		anyOpt = true
		for k := fn.first; k < fn.end; k++ {
			mark(p.insns[k].gline)
			for _, g := range p.pre[k] {
				mark(g)
			}
		}
	}
	if !anyOpt {
		return
	}
	// Function bodies: from each declaration line to the next one of the
	// same file, for out-of-line and inlined functions.
	type decl struct{ file, line int32 }
	declSet := map[decl]bool{}
	for fi := range p.funcs {
		if fn := &p.funcs[fi]; fn.optimized && fn.startLine > 0 {
			declSet[decl{fn.file, fn.startLine}] = true
		}
	}
	for _, ie := range p.inlines {
		declSet[decl{ie.file, ie.line}] = true
	}
	byFile := map[int32][]int32{}
	for d := range declSet {
		byFile[d.file] = append(byFile[d.file], d.line)
	}
	get := func(file, line int32) int32 {
		k := lineKey{file, line}
		g, ok := lineIdx[k]
		if !ok {
			g = int32(len(p.lines))
			p.lines = append(p.lines, k)
			lineIdx[k] = g
		}
		return g
	}
	for file, decls := range byFile {
		src := p.source(file)
		if src == nil {
			continue
		}
		has := code[file]
		sort.Slice(decls, func(i, j int) bool { return decls[i] < decls[j] })
		for i, start := range decls {
			if start < 1 || int(start) > len(src) {
				continue // no declaration line (DWARF without one), or past the file's end
			}
			end := int32(len(src))
			if i+1 < len(decls) {
				end = min(decls[i+1]-1, end)
			}
			if !has[start] {
				// Without code on the declaration line the function was
				// folded into its callers before gcov's instrumentation
				// or is not in this binary: its lines are left as they are.
			}
			returns := 0
			for ln := start; ln <= end; ln++ {
				if hasReturnWord(src[ln-1]) {
					returns++
				}
			}
			for ln := start + 1; ln <= end; ln++ {
				text := src[ln-1]
				if has[ln] {
					continue
				}
				ref := int32(-1)
				switch {
				case isLabel(text):
					for l := ln + 1; l <= end; l++ {
						if has[l] {
							ref = l
							break
						}
					}
				case declStart.MatchString(text) || !rowlessStmt.MatchString(text):
					continue
				case (returns > 1 || strings.TrimSpace(text) == "return;") && returnLiteral.MatchString(text):
					continue
				case returnStmt.MatchString(text) && has[start]:
					ref = start
				case gotoStmt.MatchString(text):
					// As often as its label is reached.
					label := gotoStmt.FindStringSubmatch(text)[1]
					for l := start + 1; l <= end && ref < 0; l++ {
						if m := labelLine.FindStringSubmatch(src[l-1]); m != nil && m[1] == label {
							for l2 := l + 1; l2 <= end; l2++ {
								if has[l2] {
									ref = l2
									break
								}
							}
							break
						}
					}
					if ref < 0 {
						ref = sameLevel(src, has, start, end, ln)
					}
				default:
					ref = sameLevel(src, has, start, end, ln)
				}
				if ref < 0 {
					continue
				}
				p.rowless = append(p.rowless, rowless{gline: get(file, ln), ref: get(file, ref)})
			}
		}
	}
}

// indent returns the width of the leading white space of s (a tab counts
// as 8).
func indent(s string) int {
	n := 0
	for _, c := range s {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		default:
			return n
		}
	}
	return n
}

// sameLevel returns the line with code that runs as often as statement ln
// most likely does: the previous one at its nesting level (lines nested
// deeper are skipped), or when ln is the first statement of a block, the
// next one at its level in that block, else the statement that encloses
// the block; -1 when there is none.
func sameLevel(src []string, has map[int32]bool, start, end, ln int32) int32 {
	in := indent(src[ln-1])
	outer := int32(-1)
	for l := ln - 1; l > start; l-- {
		if strings.TrimSpace(src[l-1]) == "" {
			continue
		}
		d := indent(src[l-1])
		if d > in {
			continue
		}
		if d < in {
			// The enclosing statement: ln opens a block.
			if has[l] {
				outer = l
			}
			break
		}
		if has[l] {
			return l
		}
	}
	for l := ln + 1; l <= end; l++ {
		if strings.TrimSpace(src[l-1]) == "" {
			continue
		}
		d := indent(src[l-1])
		if d > in {
			continue
		}
		if d < in {
			break
		}
		if has[l] {
			return l
		}
	}
	return outer
}

// hasReturnWord reports whether s contains the word return: a line with a
// return statement (after a label too). It runs on every line, so no
// regular expression.
func hasReturnWord(s string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], "return")
		if j < 0 {
			return false
		}
		j += i
		if (j == 0 || !isIdentByte(s, j-1)) && !isIdentByte(s, j+6) {
			return true
		}
		i = j + 6
	}
}
