package gcov

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// labelLine matches a source line that holds only labels: `case X:`,
// `case A ... B:`, `default:` or `name:`, several on one line too, and an
// opening brace or a comment after them (a case's value may be a character
// constant holding ':', ';' or '?', or a qualified name: `case
// Genre::Rock:`). Group 1 is a named label.
var labelLine = newLazyRegexp(`^\s*(?:(?:case\s+(?:'(?:\\.|[^'\\])+'|::|[^:;?'])+?|default|([A-Za-z_]\w*))\s*:\s*)+(?:\{\s*)?(?:/[/*].*)?$`)

// switchLine matches a line that starts a switch statement.
var switchLine = newLazyRegexp(`^\s*switch\s*\(`)

// isSwitch and isLabel match switchLine and labelLine, with a cheap test
// first for what every match contains: most lines are neither.
func isSwitch(s string) bool { return strings.Contains(s, "switch") && switchLine.MatchString(s) }
func isLabel(s string) bool  { return strings.IndexByte(s, ':') >= 0 && labelLine.MatchString(s) }

// source returns the lines of file fi (index 0 is line 1), or nil when the
// file cannot be read.
func (p *Program) source(fi int32) []string {
	p.srcMu.Lock()
	defer p.srcMu.Unlock()
	if lines, ok := p.src[fi]; ok {
		return lines
	}
	if p.src == nil {
		p.src = map[int32][]string{}
	}
	lines := p.sourceAt(p.files[fi])
	p.src[fi] = lines
	return lines
}

// sourceAt returns the lines of the file at path (index 0 is line 1),
// looked for under the symfs directory too, or nil when it cannot be read.
func (p *Program) sourceAt(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil && p.symfs != "" {
		b, err = os.ReadFile(filepath.Join(p.symfs, path))
	}
	if err != nil {
		return nil
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	var lines []string
	for _, l := range bytes.Split(b, []byte("\n")) {
		lines = append(lines, string(bytes.TrimSuffix(l, []byte("\r"))))
	}
	return lines
}

// findLabels gives label-only lines inside functions a gcov line whose count
// is the number of arrivals at the code of the next line with code, as gcc
// gives the label its own basic block.
func (p *Program) findLabels() {
	lineIdx := map[lineKey]int32{}
	for i, k := range p.lines {
		lineIdx[k] = int32(i)
	}
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		if fn.end <= fn.first || fn.endLine <= fn.startLine {
			continue
		}
		src := p.source(fn.file)
		if src == nil {
			continue
		}
		// First instruction of each line of this function in this file.
		first := map[int32]int{}
		enter := func(g int32, k int) {
			if g < 0 || p.lines[g].file != fn.file {
				return
			}
			if _, ok := first[p.lines[g].line]; !ok {
				first[p.lines[g].line] = k
			}
		}
		for k := fn.first; k < fn.end; k++ {
			// The statements entered before the instruction, then its
			// own line.
			for _, g := range p.pre[k] {
				enter(g, k)
			}
			if p.caseJump(src, k) {
				// The compare tree's last jump, to a case that only
				// breaks (`default: break;`), carries that case's
				// line: the label's block is at its target.
				continue
			}
			enter(p.insns[k].gline, k)
		}
		for ln := fn.startLine + 1; ln < fn.endLine && int(ln) <= len(src); ln++ {
			if _, ok := first[ln]; ok || !isLabel(src[ln-1]) {
				continue
			}
			// Labels on consecutive lines start one block, and gcc
			// gives it the location of the first: the others are not
			// lines with code.
			if prev := prevCodeLine(src, ln); prev > fn.startLine && isLabel(src[prev-1]) {
				if _, ok := first[prev]; !ok {
					continue
				}
			}
			next := -1
			for l2 := ln + 1; l2 <= fn.endLine; l2++ {
				if k, ok := first[l2]; ok {
					next = k
					break
				}
			}
			if next < 0 {
				continue
			}
			key := lineKey{fn.file, ln}
			g, ok := lineIdx[key]
			if !ok {
				g = int32(len(p.lines))
				p.lines = append(p.lines, key)
				lineIdx[key] = g
			}
			p.labels = append(p.labels, label{gline: g, insn: next, fn: int32(fi)})
		}
	}
}

// SourceLines returns the text of the source file name, one string per line
// (index 0 is line 1), or nil when it cannot be read.
func (p *Program) SourceLines(name string) []string {
	for i, f := range p.files {
		if f == name {
			return p.source(int32(i))
		}
	}
	return nil
}

// prevCodeLine returns the number of the last line before ln that is not
// blank or a comment, or 0.
func prevCodeLine(src []string, ln int32) int32 {
	for l := ln - 1; l >= 1; l-- {
		t := strings.TrimSpace(src[l-1])
		if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") {
			continue
		}
		return l
	}
	return 0
}

// labelCounts reports whether an arrival at the code after label li from
// an instruction of gcov line fromG (-1: a return or another object) counts
// for the label. gcc gives a label a block of its own, entered from above
// (the switch's dispatch, the statement before it, a call's return) and by
// gotos; at -O0 gcc still forwards jumps over blocks that only jump on, so
// a loop right after the label is entered by its back edge at the code the
// label's block jumped to: such arrivals, from lines after the label that
// are not gotos, are the loop's.
func (p *Program) labelCounts(li int, fromG int32) bool {
	lb := &p.labels[li]
	if lb.fallOff {
		return fromG >= 0 && !p.returnLine(fromG)
	}
	if fromG < 0 {
		return true
	}
	from, at := p.lines[fromG], p.lines[lb.gline]
	if from.file != at.file || from.line < at.line {
		return true
	}
	src := p.source(from.file)
	return int(from.line) <= len(src) && gotoStmt.MatchString(src[from.line-1])
}

// returnLine reports whether gcov line g holds a return statement.
func (p *Program) returnLine(g int32) bool {
	if v, ok := p.returnMemo[g]; ok {
		return v
	}
	k := p.lines[g]
	src := p.source(k.file)
	v := int(k.line) <= len(src) && k.line > 0 && returnStatementAt(src, int(k.line))
	if p.returnMemo == nil {
		p.returnMemo = map[int32]bool{}
	}
	p.returnMemo[g] = v
	return v
}

// returnStatementAt reports whether source line ln (1-based) holds a
// return statement or continues one begun on an earlier line (`return a <
// b ? x` then `: y;`): gcc gives the return the location of its value's
// expression, which can be on any of its lines.
func returnStatementAt(src []string, ln int) bool {
	if hasReturnWord(src[ln-1]) {
		return true
	}
	for l := ln - 1; l >= 1; l-- {
		t := strings.TrimSpace(cutLineComment(src[l-1]))
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, "#") || strings.HasSuffix(t, ";") || strings.HasSuffix(t, "{") || strings.HasSuffix(t, "}") ||
			strings.HasSuffix(t, ":") && !strings.HasSuffix(t, "::"):
			return false
		case hasReturnWord(t):
			return true
		}
	}
	return false
}

// cutLineComment returns s without a trailing // comment.
func cutLineComment(s string) string {
	if i := strings.Index(s, "//"); i >= 0 {
		return s[:i]
	}
	return s
}

// canFallOff reports whether control can reach the epilogue of -O0
// function fn, which starts at instruction k, other than from a return
// statement. gcc ends a function that returns a value and can fall off
// its end with a return without a value on the closing brace: gcov counts
// the brace as often as that happens (##### when never), while a function
// that always returns leaves the brace without code. The epilogue has no
// instruction of the implicit return, so the rule is gcc's modelled from
// the code that reaches the epilogue and the source of its lines.
func (p *Program) canFallOff(fn *function, k int) bool {
	at := p.insns[k].addr
	if k > fn.first {
		prev := &p.insns[k-1]
		if prev.kind != kJmp && prev.kind != kJmpInd && prev.kind != kRet && !prev.noReturn && prev.gline >= 0 && !p.returnLine(prev.gline) {
			return true
		}
	}
	for j := fn.first; j < fn.end; j++ {
		in := &p.insns[j]
		if (in.kind == kJcc || in.kind == kJmp) && in.target == at && in.gline >= 0 && !p.returnLine(in.gline) {
			if j > fn.first && (p.insns[j-1].movRax || p.insns[j-1].loadRax) && p.insns[j-1].gline == in.gline {
				continue // the return value moved into rax, then the jump to the epilogue
			}
			return true
		}
	}
	return false
}

// caseJump reports whether instruction k of a function in the source src
// is the last jump of a switch's compare tree that carries the line of
// the code it jumps forward to (a case that only breaks): a jmp right
// after a conditional branch of the switch's line.
func (p *Program) caseJump(src []string, k int) bool {
	in := &p.insns[k]
	if in.kind != kJmp || in.gline < 0 || k == 0 {
		return false
	}
	prev := &p.insns[k-1]
	t := p.index(in.target)
	if prev.kind != kJcc || prev.gline < 0 || prev.gline == in.gline || t <= k || p.insns[t].gline != in.gline {
		return false
	}
	ln := p.lines[prev.gline].line
	return p.lines[prev.gline].file == p.lines[in.gline].file && ln >= 1 && int(ln) <= len(src) && isSwitch(src[ln-1])
}
