package gcov

import "strings"

// A loop of optimised code, as the binary shows it: the backward jump
// (the latch, instruction latch) to the loop's first instruction, and the
// gcov line of that jump, the loop's condition.
type machineLoop struct {
	latch int
	line  int32
}

// loopHeads returns the loops of optimised code whose condition line gcov
// counts once per entry into the loop as well as once per pass, by the
// instruction they start at. gcc gives a for or while loop's entry a
// block on the loop's line (the initialisation and the first test of the
// condition) and its latch another: gcov counts the line entries plus
// passes. In the final code the loop is rotated, the first test is
// folded into the guard before it or dropped where it is known to hold,
// and the setup is merged into the code before: a run that falls into
// the loop's first instruction without an instruction of the loop's line
// is an entry the line table does not show (Report counts it). Only
// conditional backward jumps count as latches (a backward jmp can be a
// join laid out before it: scan.c's search), on a for or while line whose body holds
// the jump's target. A do-while loop (its condition line `} while (c);`)
// has no entry block. Entries by a jump into the loop are not counted:
// on the test programs that mended as many lines as it broke (hashtab
// -O2 +2, stats -O2 and -O3 -2 each).
func (p *Program) loopHeads() map[int]machineLoop {
	loops := map[int]machineLoop{}
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		if !fn.optimized {
			continue
		}
		for k := fn.first; k < fn.end; k++ {
			in := &p.insns[k]
			if in.kind != kJcc || in.gline < 0 {
				continue
			}
			h := p.index(in.target)
			if h < fn.first || h > k {
				continue
			}
			if !p.whileOrFor(in.gline) || !p.inLoopBody(in.gline, p.insns[h].gline) {
				delete(loops, h)
				continue
			}
			loops[h] = machineLoop{latch: k, line: in.gline} // the last latch of h
		}
	}
	return loops
}

// whileOrFor reports whether gcov line g is the head of a for or while
// loop whose condition is tested before the first pass (not a do-while's
// closing line).
func (p *Program) whileOrFor(g int32) bool {
	lk := p.lines[g]
	src := p.source(lk.file)
	if lk.line <= 0 || int(lk.line) > len(src) {
		return false
	}
	t := strings.TrimSpace(src[lk.line-1])
	if i := strings.Index(t, "//"); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	switch {
	case strings.HasPrefix(t, "for") && (len(t) == 3 || t[3] == ' ' || t[3] == '('):
		return true
	case strings.HasPrefix(t, "while") && (len(t) == 5 || t[5] == ' ' || t[5] == '('):
		// `while (c);` closes a do-while whose brace is on a line of its
		// own (an empty-bodied while loop looks the same: taken as one).
		return strings.TrimSpace(afterCondition(t[5:])) != ";"
	}
	return false
}

// afterCondition returns what follows the parenthesised condition at the
// start of s, or "" when its parentheses do not close on the line.
func afterCondition(s string) string {
	depth := 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return s[i+1:]
			}
		}
	}
	return ""
}

// inLoopBody reports whether gcov line body is line loop (a for or while
// line) or one of the lines of its body: the lines after it indented
// deeper, up to the closing brace at its own indentation. A backward
// jump on a loop's line that lands outside its body is no latch of that
// loop (a tail call turned into a loop around it, a join laid out
// before the jump).
func (p *Program) inLoopBody(loop, body int32) bool {
	if body < 0 {
		return false
	}
	l, b := p.lines[loop], p.lines[body]
	if l.file != b.file || b.line < l.line {
		return false
	}
	src := p.source(l.file)
	if l.line <= 0 || int(b.line) > len(src) {
		return false // the source is missing or shorter than the line table says
	}
	in := indent(src[l.line-1])
	for n := l.line + 1; n <= b.line; n++ {
		t := strings.TrimSpace(src[n-1])
		if t == "" {
			continue
		}
		if indent(src[n-1]) <= in {
			// The body's closing brace, or the statement after the loop.
			return n == b.line && strings.HasPrefix(t, "}")
		}
	}
	return true
}
