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
	`\**[A-Za-z_][\w.\->\[\]*]*\s*(=|\+=|-=|\*=|/=|%=|\|=|&=|\^=|<<=|>>=|\+\+|--)(?:[^=].*)?;|[A-Za-z_]\w*\s*\(.*\)\s*;)\s*(//.*|/\*.*)?$`)

var returnStmt = newLazyRegexp(`^\s*return\b`)

var gotoStmt = newLazyRegexp(`^\s*goto\s+(\w+)\s*;`)

// returnLiteral matches a return of a constant or of a variable (or of
// nothing): in a function with several returns gcc makes the value an
// argument of the return value's PHI, and the return no statement.
var returnLiteral = newLazyRegexp(`^\s*return\s*(-?\d[\w.]*|NULL|true|false|'[^']*'|"[^"]*"|[A-Za-z_]\w*)?\s*;`)

// rowless is a line without rows whose count is that of the line ref,
// less that of the line minus where minus is not -1; or, with calls or
// cases set, the number of times the instructions calls ran, or the
// number of times the je or jne instructions cases decided for the case
// (caseJumps).
type rowless struct {
	gline, ref, minus int32
	calls, cases      []int
	// override marks an if whose rows are all location views
	// (viewOnlyIf): its count replaces the one the views gave.
	override bool
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
	owns := map[lineKey]bool{} // lines some instruction of optimised code has
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		if !fn.optimized {
			continue
		}
		anyOpt = true
		for k := fn.first; k < fn.end; k++ {
			if g := p.insns[k].gline; g >= 0 {
				owns[p.lines[g]] = true
			}
			mark(p.insns[k].gline)
			for _, g := range p.pre[k] {
				mark(g)
			}
			for _, g := range p.side[k] {
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
	// The declaration line of an inlined function is its entry block's
	// for gcov when gcc inlined it after the instrumentation (IPA
	// inlining); the inlined copies often keep no row there (the
	// parameters' moves were merged into the caller's code). Then it
	// counts the inlined entries.
	for i := range p.inlines {
		ie := &p.inlines[i]
		if fn := &p.funcs[p.insns[ie.insn].fn]; ie.line > 0 && !code[ie.file][ie.line] && fn.optimized && !fn.o3 && ie.late {
			ie.declG = get(ie.file, ie.line)
		}
	}
	for _, ie := range p.inlines {
		if ie.declG >= 0 {
			mark(ie.declG)
		}
	}
	// The entries of inlined calls, by call site.
	inlinedAt := map[lineKey][]int{}
	for _, ie := range p.inlines {
		if ie.callLine > 0 {
			k := lineKey{ie.callFile, ie.callLine}
			inlinedAt[k] = append(inlinedAt[k], ie.insn)
		}
	}
	cxxFile, o3File, cFile := map[int32]bool{}, map[int32]bool{}, map[int32]bool{}
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		if fn.cxx {
			cxxFile[fn.file] = true
		} else if fn.optimized {
			cFile[fn.file] = true
		}
		if fn.o3 {
			o3File[fn.file] = true
		}
	}
	byFile := map[int32][]int32{}
	for d := range declSet {
		byFile[d.file] = append(byFile[d.file], d.line)
	}
	for file, decls := range byFile {
		src := p.source(file)
		if src == nil {
			continue
		}
		has := code[file]
		var enumMap map[string]int64
		enums := func() map[string]int64 {
			if enumMap == nil {
				enumMap = enumValues(src)
			}
			return enumMap
		}
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
				if has[ln] && !owns[lineKey{file, ln}] && cFile[file] && !cxxFile[file] && !o3File[file] && viewOnlyIf(text) {
					if ref, minus := sameLevel(src, has, start, end, ln); ref > 0 {
						r := rowless{gline: get(file, ln), ref: get(file, ref), minus: -1, override: true}
						if minus > 0 {
							r.minus = get(file, minus)
						}
						p.rowless = append(p.rowless, r)
					}
					continue
				}
				if has[ln] {
					continue
				}
				ref, minus := int32(-1), int32(-1)
				switch {
				case breakStmt.MatchString(text):
					ref, minus = loopJump(src, has, start, end, ln)
				case isLabel(text):
					for l := ln + 1; l <= end; l++ {
						if has[l] {
							ref = l
							break
						}
					}
				case has[start] && entryDecl(src, start, end, ln):
					ref = start
				case len(inlinedAt[lineKey{file, ln}]) > 0 && operandLine(src, start, ln):
					// The operand of a condition continued on this line
					// calls a function that was inlined: gcov counts the
					// line each time the call returns into it (the block
					// after an early-inlined body, or after a call), so as
					// often as the inlined copies were entered.
					p.rowless = append(p.rowless, rowless{gline: get(file, ln), ref: -1, minus: -1, calls: inlinedAt[lineKey{file, ln}]})
					continue
				case isDeclStart(text) || !isRowlessStmt(text):
					continue
				case (returns > 1 || strings.TrimSpace(text) == "return;") && returnLiteral.MatchString(text):
					continue
				case returnStmt.MatchString(text) && has[start]:
					ref = start
				case gotoStmt.MatchString(text) && thenGoto(src, has, start, ln) > 0:
					// The whole then branch of an if: as often as the if
					// ran less the statement after it.
					ref, minus = thenGoto(src, has, start, ln), nextCodeLine(src, ln)
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
						ref, minus = sameLevel(src, has, start, end, ln)
					}
				default:
					ref, minus = sameLevel(src, has, start, end, ln)
				}
				if ref < 0 {
					continue
				}
				r := rowless{gline: get(file, ln), ref: get(file, ref), minus: -1}
				if minus > 0 {
					r.minus = get(file, minus)
				}
				p.rowless = append(p.rowless, r)
			}
			p.findPhiArgs(src, file, start, end, cxxFile[file], get)
			if !cxxFile[file] {
				p.findSwitchReturns(src, file, start, end, has, o3File[file], enums, get)
			}
			if returns == 0 && has[start] {
				if ln := voidEnd(src, start, end, o3File[file]); ln > 0 && !has[ln] {
					p.rowless = append(p.rowless, rowless{gline: get(file, ln), ref: get(file, start), minus: -1})
				}
			}
		}
	}
}

// voidDecl matches the declaration line of a function returning void.
var voidDecl = newLazyRegexp(`^\s*(?:(?:static|inline|extern|virtual|constexpr)\s+)*void\s+[\w:~<>]+\s*\(`)

// noreturnCall matches a statement that does not return: the call that
// ends a function falling off its end never reaches it.
var noreturnCall = newLazyRegexp(`^\s*(?:exit|_exit|_Exit|abort|longjmp|siglongjmp|__builtin_unreachable|throw\b)`)

// voidEnd returns the line of the closing brace of the void function
// declared on line start (ending before end) when gcc counts it at -O1
// and more, else 0. gcc gives a void function's implicit return the
// location of its closing brace, and gcov counts that line as often as
// the function is entered when no return statement leads elsewhere
// (callers check that there is none) and its last statement returns: in
// the traced binary the brace has no row of its own (the return shares
// the last statement's or was merged into the caller). Without a
// return type of void the end is a return statement's line or never
// reached.
//
// At -O3 a void function whose body is one loop has no count on its
// brace in the test programs (calc.c's skip, matrix.c's fill and mul),
// where one with statements before its last loop has: none is given.
func voidEnd(src []string, start, end int32, o3 bool) int32 {
	decl := src[start-1]
	if !voidDecl.MatchString(decl) || strings.Contains(decl, "noreturn") ||
		(start > 1 && strings.Contains(src[start-2], "noreturn")) {
		return 0
	}
	in := indent(decl)
	last, lastTop, body, tops := "", "", -1, 0
	for ln := start + 1; ln <= end; ln++ {
		text := src[ln-1]
		t := strings.TrimSpace(text)
		if t == "}" && indent(text) == in {
			if noreturnCall.MatchString(last) || ln == start+1 || o3 && tops == 1 && loopHead.MatchString(lastTop) {
				return 0
			}
			return ln
		}
		if t != "" && t != "{" {
			last = t
			if body < 0 {
				body = indent(text)
			}
			if indent(text) == body && t != "}" {
				lastTop = text
				tops++
			}
		}
	}
	return 0
}

// simpleStmt matches a statement that ends its line and leaves its block
// going on: a call or an assignment without a conditional expression.
var simpleStmt = newLazyRegexp(`^\s*[A-Za-z_*(][^?{}]*;\s*(//.*|/\*.*)?$`)

// ifNoBrace matches the head of an if (or else-if) whose then branch is the
// next line.
var ifNoBrace = newLazyRegexp(`^\s*(?:else\s+)?if\s*\(.*\)\s*(//.*|/\*.*)?$`)

// loopJump returns the lines whose counts give that of the break or
// continue without rows on line ln of the function from start to end:
// the count of ref, less that of minus where minus is above 0; ref -1
// where gcov shows no code for it.
//
// gcov gives a block the line of its single successor edge's goto locus
// (gcc's branch_prob streams it for the block): a break or continue is
// such a goto. After a statement of the same block it counts with that
// statement. Alone in the then branch of an if, its block is a forwarder
// that the CFG cleanup before the instrumentation removes at -O1 and
// more, taking the locus with it, unless the jump goes to a loop's latch:
// a continue keeps its block (gcc protects the latches of loops with
// simple latches), which runs as often as the if's line less the
// statement after the if. A break or continue after a join (the end of
// an if/else or of a nested block, or a conditional expression whose
// PHI ends the block) is the forwarder's case again: no code.
func loopJump(src []string, has map[int32]bool, start, end, ln int32) (ref, minus int32) {
	prev := prevCodeLine(src, ln)
	if prev <= start || !has[prev] {
		return -1, -1
	}
	text, ptext := src[ln-1], src[prev-1]
	if afterStmt(src, ln) {
		if blockConst(src, prev) {
			return -1, -1
		}
		return prev, -1
	}
	if !strings.Contains(text, "continue") || indent(ptext) >= indent(text) || !ifNoBrace.MatchString(ptext) {
		return -1, -1
	}
	// The if's then branch: the statement after it at the if's level
	// runs when the continue does not.
	in := indent(ptext)
	for l := ln + 1; l <= end; l++ {
		t := strings.TrimSpace(src[l-1])
		if t == "" {
			continue
		}
		if d := indent(src[l-1]); d < in || d == in && strings.HasPrefix(t, "}") {
			break
		} else if d > in || elseHead.MatchString(t) {
			if d == in {
				return -1, -1 // an else: not a plain then branch
			}
			continue
		}
		if has[l] {
			return prev, l
		}
		break
	}
	return -1, -1
}

// afterStmt reports whether the code line before line ln of src is a
// simple statement (simpleStmt) at ln's level: ln is in its block.
func afterStmt(src []string, ln int32) bool {
	prev := prevCodeLine(src, ln)
	if prev < 1 {
		return false
	}
	p := src[prev-1]
	return indent(p) == indent(src[ln-1]) && simpleStmt.MatchString(p) && !isLabel(p) &&
		!returnStmt.MatchString(p) && !jumpStmt.MatchString(p)
}

// blockConst reports whether line ln of src assigns a constant to a
// variable as the first statement of its block (after a label, a loop,
// an if's head or the end of a nested block). Into SSA the constant
// becomes an argument of the PHI where the block's paths join, the
// block is left with nothing but its jump, and the CFG cleanup before
// the instrumentation removes it: gcov shows no code for the line, nor
// for a break after it. (After another statement the block stays: see
// findPhiArgs.)
func blockConst(src []string, ln int32) bool {
	return constAssign.MatchString(src[ln-1]) && !afterStmt(src, ln)
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
// deeper are skipped, and loop lines while another line with code comes
// before them: loopStmtLine), or when ln is the first statement of a block, the
// next one at its level in that block, else the statement that encloses
// the block; -1 when there is none.
//
// Where that previous statement is an if whose then branch is one jump
// (a break, continue, return or goto on the next line), ln runs when the
// jump does not: minus is the jump's line, whose count is taken off
// (-1 otherwise).
func sameLevel(src []string, has map[int32]bool, start, end, ln int32) (ref, minus int32) {
	in := indent(src[ln-1])
	outer, loop := int32(-1), int32(-1)
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
			if !loopStmtLine(src[l-1]) {
				return l, ifJump(src, has, l, ln)
			}
			if loop < 0 {
				loop = l
			}
		}
	}
	if loop >= 0 {
		return loop, -1
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
			return l, -1
		}
	}
	return outer, -1
}

// ifJump returns the line of the jump that is the whole then branch of
// the if on line l (the next code line, before ln), else -1: a break,
// continue or goto, or a return with code of its own (a rowless return's
// count is borrowed from its function's calls, not its branch's).
func ifJump(src []string, has map[int32]bool, l, ln int32) int32 {
	if !ifNoBrace.MatchString(src[l-1]) {
		return -1
	}
	for j := l + 1; j < ln; j++ {
		t := src[j-1]
		if strings.TrimSpace(t) == "" {
			continue
		}
		if indent(t) > indent(src[l-1]) && (jumpStmt.MatchString(t) || returnStmt.MatchString(t) && has[j]) {
			return j
		}
		return -1
	}
	return -1
}

// loopStmtLine reports whether s is the head of a loop or the end of a
// do-while: gcov counts such a line once per iteration plus once per
// entry (the test's blocks), so a statement after the loop at its level
// runs as often as the loop is entered, not as its line: sameLevel looks
// past it for a statement before the loop.
func loopStmtLine(s string) bool {
	return loopHead.MatchString(s) || strings.HasPrefix(strings.TrimSpace(s), "}") && strings.Contains(s, "while")
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

// constAssign matches a statement assigning a constant to a variable.
var constAssign = newLazyRegexp(`^\s*([A-Za-z_]\w*)\s*=\s*(?:-?\d[\w.]*|'[^']*'|[A-Z_][A-Z0-9_]*|NULL|true|false)\s*;\s*(?://.*|/\*.*)?$`)

// thenHead matches the head of an if statement or of an else-if branch,
// with the opening brace of its block or without one.
var thenHead = newLazyRegexp(`^\s*(?:\}\s*)?(?:else\s+)?if\s*\(.*\)\s*\{?\s*(?://.*)?$`)

// elseHead matches a line that starts an else branch, after the closing
// brace of the then branch or without one.
var elseHead = newLazyRegexp(`^\s*(?:\}\s*)?else\b`)

// scalarDecl matches the declaration of a local scalar: its name follows.
var scalarDecl = newLazyRegexp(`^\s*(?:const\s+|register\s+)?(?:unsigned\s+|signed\s+)?(?:int|long|short|char|unsigned|bool|_Bool|size_t|enum\s+\w+)\b([^;(]*)`)

// findPhiArgs finds, in the function from line start to end of file's
// source src, the lines whose statement gcc turns into a PHI argument
// before gcov instruments the function at -O1 and more: the assignment
// of a constant to a local scalar that is the only statement of the then
// branch of an if with an else. Into SSA, the constant becomes the
// argument of the PHI at the join and the branch an empty block that the
// CFG cleanup removes, so gcov shows no code on the line, while the
// binary keeps a move there. (Alone in an else branch, or after another
// statement, the assignment keeps its line: gcc's phiopt makes a
// statement of it, or the block keeps it.)
//
// It also finds the labels that follow another label (case labels on
// consecutive lines): in optimised C gcov counts only the first of a run,
// where -O0's rule (findLabels) looks at the rows the labels have (g++
// gives each label of a run its line: not for C++).
func (p *Program) findPhiArgs(src []string, file, start, end int32, cxx bool, get func(file, line int32) int32) {
	hide := func(ln int32) {
		if p.noCode == nil {
			p.noCode = map[int32]bool{}
		}
		p.noCode[get(file, ln)] = true
	}
	for ln := start + 2; ln <= end && !cxx; ln++ {
		if isLabel(src[ln-1]) {
			if prev := prevCodeLine(src, ln); prev > start && isLabel(src[prev-1]) {
				hide(ln)
			}
		}
	}
	for ln := start + 2; ln < end; ln++ {
		if dst := isMinMaxAbs(src[ln-2], src[ln-1], src[ln]); dst != "" && (localScalar(src, start, ln, dst) || scalarParam(src[start-1], dst)) {
			hide(ln)
			continue
		}
		if strings.IndexByte(src[ln-1], '=') < 0 || strings.IndexByte(src[ln-1], ';') < 0 {
			continue // (what constAssign needs)
		}
		m := constAssign.FindStringSubmatch(src[ln-1])
		if m == nil {
			continue
		}
		head, next := strings.TrimSpace(src[ln-2]), src[ln]
		if !thenHead.MatchString(head) {
			continue
		}
		if strings.HasSuffix(head, "{") {
			// The block must end on the next line with an else.
			if t := strings.TrimSpace(next); !strings.HasPrefix(t, "}") || !elseHead.MatchString(t) {
				continue
			}
		} else if !elseHead.MatchString(next) {
			continue
		}
		if !localScalar(src, start, ln, m[1]) {
			continue
		}
		hide(ln)
	}
}

// localScalar reports whether name is declared as a scalar in the
// function's lines from start up to ln and its address is never taken in
// them.
func localScalar(src []string, start, ln int32, name string) bool {
	word := newWordMatcher(name)
	declared := false
	for l := start; l < ln; l++ {
		text := src[l-1]
		if !strings.Contains(text, name) {
			continue
		}
		if strings.Contains(text, "&"+name) {
			return false
		}
		if l == start {
			continue // parameters: gcov's view of them is the caller's
		}
		if m := scalarDecl.FindStringSubmatch(text); m != nil && word(m[1]) {
			declared = true
		}
	}
	return declared
}

// newWordMatcher returns a test of whether s contains name as a whole
// identifier, not after a '*' (a pointer) or before a '[' (an array).
func newWordMatcher(name string) func(s string) bool {
	return func(s string) bool {
		return anyUse(s, name, func(before, after string) bool {
			return !strings.HasSuffix(before, "*") && !strings.HasPrefix(after, "[")
		})
	}
}

// anyUse reports whether ok holds for some use of the identifier name in
// s, given the text before and after it without the blanks next to it.
func anyUse(s, name string, ok func(before, after string) bool) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		j += i
		e := j + len(name)
		if (j == 0 || !isIdentByte(s, j-1)) && !isIdentByte(s, e) &&
			ok(strings.TrimRight(s[:j], " \t"), strings.TrimLeft(s[e:], " \t")) {
			return true
		}
		i = e
	}
}

// constDecl matches the declaration of a scalar with a constant
// initialiser; the name follows.
var constDecl = newLazyRegexp(`^\s*(?:unsigned\s+|signed\s+)?(?:int|long|short|char|unsigned|bool|_Bool|size_t|double|float|enum\s+\w+)\b\s*([A-Za-z_]\w*)\s*=\s*(?:-?\d[\w.]*|'[^']*'|[A-Z_][A-Z0-9_]*|NULL|false|true)\s*;\s*(?://.*|/\*.*)?$`)

// mayBeConstDecl reports what constDecl needs of s: a first word that
// can start its type, and an '=' and a ';'.
func mayBeConstDecl(s string) bool {
	i := skipSpace(s, 0)
	switch s[i:skipWord(s, i)] {
	case "unsigned", "signed", "int", "long", "short", "char", "bool", "_Bool", "size_t", "double", "float", "enum":
		return strings.IndexByte(s, '=') >= 0 && strings.IndexByte(s, ';') >= 0
	}
	return false
}

// loopHead matches a line that starts a loop.
var loopHead = newLazyRegexp(`^\s*(?:\}\s*)?(?:for|while|do)\b`)

// entryDecl reports whether line ln of the function from start to end
// declares a scalar with a constant initialiser in the function's entry
// block (after its opening brace and declarations without conditional
// expressions only) that a loop after
// it modifies. gcc gives the initial value, the PHI argument of the loop's
// entry edge, the declaration's line, and gcov counts it with the entry
// block; the binary keeps no row for it (the constant is a register's
// initial value, often merged into other code).
func entryDecl(src []string, start, end, ln int32) bool {
	if !mayBeConstDecl(src[ln-1]) {
		return false
	}
	m := constDecl.FindStringSubmatch(src[ln-1])
	if m == nil {
		return false
	}
	in := indent(src[ln-1])
	for l := start + 1; l < ln; l++ {
		t := strings.TrimSpace(src[l-1])
		if t == "" || t == "{" {
			continue
		}
		if indent(src[l-1]) != in || !isDeclStart(src[l-1]) || strings.ContainsAny(t, "{}?") ||
			strings.Contains(t, "&&") || strings.Contains(t, "||") {
			// Control flow before it: not the entry block.
			return false
		}
	}
	name := m[1]
	modified := newModMatcher(name)
	inLoop := false
	for l := ln + 1; l <= end; l++ {
		text := src[l-1]
		if indent(text) < in && strings.TrimSpace(text) == "}" {
			break // the function's end
		}
		if loopHead.MatchString(text) {
			inLoop = true
		}
		if inLoop && modified(text) {
			return true
		}
	}
	return false
}

// newModMatcher returns a test of whether a line modifies name (not a
// member of that name): assigns it or increments or decrements it.
func newModMatcher(name string) func(s string) bool {
	return func(s string) bool {
		return anyUse(s, name, func(before, after string) bool {
			if strings.HasSuffix(before, ".") || strings.HasSuffix(before, "->") {
				return false
			}
			if strings.HasSuffix(before, "++") || strings.HasSuffix(before, "--") ||
				strings.HasPrefix(after, "++") || strings.HasPrefix(after, "--") {
				return true
			}
			for _, op := range []string{"=", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "<<=", ">>="} {
				if strings.HasPrefix(after, op) && !strings.HasPrefix(after, "==") {
					return true
				}
			}
			return false
		})
	}
}

// callWord matches an identifier followed by an opening parenthesis.
var callWord = newLazyRegexp(`\b([A-Za-z_]\w*)\s*\(`)

// lateInlined guesses whether gcc inlined the function declared on line
// decl of src after gcov's instrumentation (the IPA inliner) rather than
// before it (the early inliner, which runs first at -O1 and more and
// inlines callees whose size estimate grows the caller by at most a few
// instructions, fewer when they make calls themselves: the function
// vanishes before instrumentation and gcov shows no code on its
// declaration line). gcc's size estimate is not in the binary; the
// body's statements (semicolons), calls and loops stand for it: seven
// statements or more, five with a call, two loops (nested or not), or a
// loop with a call or six statements were never early-inlined in the
// test programs at -O2 (a loop's test, increment and back edge weigh
// more than its semicolons say). At -O3 gcc allows the early inliner more
// growth (early-inlining-insns) and the guess is not made.
func lateInlined(src []string, decl int32) bool {
	if decl < 1 || int(decl) > len(src) {
		return false
	}
	name := ""
	if m := callWord.FindStringSubmatch(src[decl-1]); m != nil {
		name = m[1]
	}
	semis, calls, loops := 0, 0, 0
	bodyLines(src, decl, func(l int32, body string) bool {
		semis += strings.Count(body, ";")
		if t := strings.TrimSpace(body); l > decl && loopHead.MatchString(body) && !strings.HasPrefix(t, "}") {
			loops++ // (a do-while's tail is not one more)
		}
		for _, m := range callWord.FindAllStringSubmatch(body, -1) {
			switch m[1] {
			case "if", "while", "for", "switch", "return", "sizeof", name:
			default:
				calls++
			}
		}
		return true
	})
	return semis >= 7 || calls >= 1 && semis >= 5 || loops >= 2 || loops == 1 && (calls >= 1 || semis >= 6)
}

// earlyFlow guesses whether gcc inlined the function declared on line
// decl of src before gcov's instrumentation (the early inliner: not
// lateInlined; at -O3 its guess is not made and every call counts as
// early) and the inlined body still branches there: an if, a loop, a
// switch, && or ||, or a ?: that is not a minimum, maximum or absolute
// value (early phiopt makes those MIN_EXPR, MAX_EXPR and ABS_EXPR). The
// body then ends in a block of its own that goes back to the call line's
// block (the rest of the call's statement), and gcov counts that entry:
// codes.c's `sum += kind(*s);` (a switch), pick.c's median3 (nested ?:),
// units.c's digit_class (a switch with case ranges). call is the call
// site's line when it is in src (else 0): a call inside the function's
// own body is recursive, which the early inliner never inlines (tree.c's
// `int a = height(t->l), b = height(t->r);`). late is lateInlined(src,
// decl), which decode reads once per inlined function, not per instance.
func earlyFlow(src []string, decl, call int32, o3, late bool) bool {
	return (o3 || !late) && branchingBody(src, decl, call)
}

// branchingBody reports whether the body of the function declared on
// line decl of src branches, as earlyFlow takes it, and makes no call
// on line call.
func branchingBody(src []string, decl, call int32) bool {
	if decl < 1 || int(decl) > len(src) {
		return false
	}
	flow, recursive := false, false
	bodyLines(src, decl, func(l int32, body string) bool {
		if l == call && l > decl {
			recursive = true
			return false
		}
		if flowWord.MatchString(body) || strings.Contains(body, "&&") || strings.Contains(body, "||") ||
			strings.Contains(body, "?") && !minMaxAbs(body) {
			flow = true
		}
		return true
	})
	return flow && !recursive
}

// bodyLines calls visit with each line of the body of the function
// declared on line decl of src, from the line of its opening brace (there
// from the brace) to the line where its braces close, without comments
// after //, until visit returns false.
func bodyLines(src []string, decl int32, visit func(l int32, body string) bool) {
	if decl < 1 {
		return // (no declaration line: a lambda's instance)
	}
	depth, started := 0, false
	for l := decl; int(l) <= len(src); l++ {
		text := src[l-1]
		if i := strings.Index(text, "//"); i >= 0 {
			text = text[:i]
		}
		body := text
		if l == decl {
			i := strings.IndexByte(text, '{')
			if i < 0 {
				body = ""
			} else {
				body = text[i:]
			}
		}
		if (started || strings.Contains(body, "{")) && !visit(l, body) {
			return
		}
		for _, c := range text {
			switch c {
			case '{':
				depth++
				started = true
			case '}':
				depth--
			}
		}
		if started && depth <= 0 {
			return
		}
	}
}

// flowWord matches a statement that branches; ternaryReturn a return of
// a ?: comparing two operands.
var (
	flowWord      = newLazyRegexp(`\b(?:if|for|while|do|switch)\b`)
	ternaryReturn = newLazyRegexp(`\breturn\s+\(?\s*(\w+)\s*[<>]=?\s*(\w+)\s*\)?\s*\?\s*(-?)\s*(\w+)\s*:\s*(-?)\s*(\w+)\s*;`)
)

// minMaxAbs reports whether text returns the minimum or maximum of two
// operands (`a < b ? a : b`) or an absolute value (`d < 0 ? -d : d`).
func minMaxAbs(text string) bool {
	m := ternaryReturn.FindStringSubmatch(text)
	if m == nil {
		return false
	}
	x, y, na, a, nb, b := m[1], m[2], m[3], m[4], m[5], m[6]
	if na == "" && nb == "" {
		return a == x && b == y || a == y && b == x
	}
	return y == "0" && a == x && b == x && na != nb
}

// ifCompare matches an if statement comparing two operands, without a
// brace; minMaxAssign an assignment of a variable or its negation.
var (
	ifCompare    = newLazyRegexp(`^\s*if\s*\(\s*([\w.\->\[\]]+)\s*(<|<=|>|>=)\s*([\w.\->\[\]]+)\s*\)\s*$`)
	minMaxAssign = newLazyRegexp(`^\s*([\w.\->\[\]]+)\s*=\s*(-?)\s*([\w.\->\[\]]+)\s*;\s*$`)
)

// isMinMaxAbs returns the variable assigned when line text, after the
// line head and before next, is the assignment of `if (x < 0) x = -x;`
// or of `if (x < y) x = y;` (either comparison) without an else, else "".
// Of a local scalar (not memory), gcc's early phiopt makes an ABS_EXPR,
// MIN_EXPR or MAX_EXPR of it on the if's line before gcov's
// instrumentation, so the assignment's line has no code for gcov.
func isMinMaxAbs(head, text, next string) string {
	// (What the patterns need, tested first: most lines are neither.)
	if !strings.HasPrefix(strings.TrimLeft(head, " \t\n\f\r"), "if") || !strings.ContainsAny(head, "<>") ||
		strings.IndexByte(text, '=') < 0 || strings.IndexByte(text, ';') < 0 {
		return ""
	}
	h := ifCompare.FindStringSubmatch(head)
	if h == nil {
		return ""
	}
	a := minMaxAssign.FindStringSubmatch(text)
	if a == nil || elseHead.MatchString(next) {
		return ""
	}
	x, y, dst, neg, val := h[1], h[3], a[1], a[2] == "-", a[3]
	if neg && dst == val && (x == dst && y == "0" && (h[2] == "<" || h[2] == "<=") ||
		y == dst && x == "0" && (h[2] == ">" || h[2] == ">=")) ||
		!neg && (dst == x && val == y || dst == y && val == x) {
		return dst
	}
	return ""
}

// scalarParam reports whether the declaration line decl has a scalar
// parameter name.
func scalarParam(decl, name string) bool {
	i := strings.IndexByte(decl, '(')
	if i < 0 {
		return false
	}
	for _, p := range strings.Split(decl[i+1:], ",") {
		if m := scalarDecl.FindStringSubmatch(p); m != nil {
			f := strings.Fields(strings.Trim(m[1], " )"))
			if len(f) > 0 && strings.TrimRight(f[len(f)-1], "){") == name && !strings.Contains(m[1], "*") {
				return true
			}
		}
	}
	return false
}

// operandLine reports whether line ln of src continues a condition begun
// on the code line before it (that line ends with && or ||, after the
// function's declaration line start): ln holds a later operand.
func operandLine(src []string, start, ln int32) bool {
	for l := ln - 1; l > start; l-- {
		t := src[l-1]
		if i := strings.Index(t, "//"); i >= 0 {
			t = t[:i]
		}
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		return strings.HasSuffix(t, "&&") || strings.HasSuffix(t, "||")
	}
	return false
}

// thenGoto returns the line of the if whose whole then branch is the
// goto on line ln of the function starting on line start, when the next
// code line after the goto is a statement with code (has) at the if's
// level that is not an else: the goto runs as often as the if less that
// statement. Else 0. The if's condition may continue over several lines
// (the if's line counts its executions).
func thenGoto(src []string, has map[int32]bool, start, ln int32) int32 {
	prev := prevCodeLine(src, ln)
	if prev <= start {
		return 0
	}
	head := int32(0)
	for l := prev; l > start && l >= prev-3; l-- {
		t := strings.TrimSpace(stripComment(src[l-1]))
		if l < prev && (strings.HasSuffix(t, ";") || strings.HasSuffix(t, "{") || strings.HasSuffix(t, "}")) {
			return 0
		}
		if ifNoBrace.MatchString(src[l-1]) || l < prev && strings.HasPrefix(t, "if") && strings.HasPrefix(strings.TrimSpace(t[2:]), "(") {
			head = l
			break
		}
	}
	if head == 0 || !has[head] || indent(src[head-1]) >= indent(src[ln-1]) {
		return 0
	}
	next := nextCodeLine(src, ln)
	if next <= 0 || !has[next] || indent(src[next-1]) != indent(src[head-1]) || elseHead.MatchString(src[next-1]) ||
		isLabel(src[next-1]) {
		return 0
	}
	return head
}

// viewOnlyIf reports whether text is the head of an if (not an else if)
// that findRowless counts as its statement before when the line's rows
// are all location views (no instruction has the line): gcc threaded
// the if's test into the code before it (words.c's `if (k == 0)` after
// `int k = classify(*p);`, whose switch's leaves jump past the ifs), and
// the views sit at leaves that most passes skip.
//
// Of C sources only (a C++ header's ifs inlined into C++ code keep
// their views: basic_string.h's `if (__s == 0)`), and not at -O3, where
// the --coverage build threads these tests too (words.c's `if (k == 0)`
// counts 6 there, not once per character) and retry.c's and pick.c's
// loop ifs are views of unrolled copies. An if whose
// condition calls a function is left alone: the call's
// inlined code holds the test (rle.c's `if (is_alpha(c))`), and its
// views count the passes.
func viewOnlyIf(text string) bool {
	if !ifNoBrace.MatchString(text) || elseHead.MatchString(text) {
		return false
	}
	for _, m := range callWord.FindAllStringSubmatch(text, -1) {
		if m[1] != "if" && m[1] != "sizeof" {
			return false
		}
	}
	return true
}
