package gcov

import (
	"strings"
)

// Two -O0 statements whose gcc blocks the machine code does not show.
//
// A break or continue that ends an if/else chain: in gcc's CFG every arm of
// the chain that does not leave otherwise flows into the block of the
// break, which jumps on; gcov counts the break once per arm. Even at -O0
// gcc's RTL cleanup forwards the arms' jumps over that block, straight to
// where the break goes, so only the arm that falls into it passes its
// jmp. findForwarded finds such breaks; the report adds to their count the
// jumps to the break's target from the lines of the chain.
//
// va_end leaves no instruction at -O0 (the builtin expands to nothing)
// but is a statement of its block for gcov: its line counts as the next
// line with code of the function.

// forwarded is a break (or continue) line whose jmp at insn goes to
// target, and the first line of the if/else chain before it: jumps to
// target from lines [chain, break line) count for the break.
type forwarded struct {
	gline  int32
	insn   int
	target uint64
	chain  int32
}

var breakStmt = newLazyRegexp(`^\s*(break|continue)\s*;\s*(//.*|/\*.*)?$`)

var ifStmt = newLazyRegexp(`^\s*(\}\s*else\s+)?if\s*\(`)

var vaEndStmt = newLazyRegexp(`^\s*va_end\s*\(.*\)\s*;\s*(//.*|/\*.*)?$`)

func (p *Program) findForwarded() {
	lineIdx := map[lineKey]int32{}
	for i, k := range p.lines {
		lineIdx[k] = int32(i)
	}
	p.eachO0Source(func(fn *function, src []string) {
		// Instructions per line of the function.
		n := map[int32]int{}
		for k := fn.first; k < fn.end; k++ {
			if g := p.insns[k].gline; g >= 0 {
				n[g]++
			}
		}
		for k := fn.first; k < fn.end; k++ {
			in := &p.insns[k]
			if in.kind != kJmp || in.gline < 0 || n[in.gline] != 1 {
				continue
			}
			lk := p.lines[in.gline]
			if lk.file != fn.file || int(lk.line) > len(src) || !breakStmt.MatchString(src[lk.line-1]) {
				continue
			}
			if chain := ifChainBefore(src, lk.line); chain > 0 {
				p.forwards = append(p.forwards, forwarded{gline: in.gline, insn: k, target: in.target, chain: chain})
			}
		}
		// va_end lines without code.
		for ln := fn.startLine + 1; ln < fn.endLine && int(ln) <= len(src); ln++ {
			if _, ok := lineIdx[lineKey{fn.file, ln}]; ok || !vaEndStmt.MatchString(src[ln-1]) {
				continue
			}
			for l2 := ln + 1; l2 <= fn.endLine; l2++ {
				if ref, ok := lineIdx[lineKey{fn.file, l2}]; ok {
					// In gcc's graph the line is in the block of the
					// next line's first instruction. (When that line has
					// none, a jump to the return follows a call:
					// callStatementEnd makes va_end's block.)
					at := -1
					for k := fn.first; k < fn.end; k++ {
						if p.insns[k].gline == ref {
							at = k
							break
						}
					}
					if at < 0 {
						break
					}
					g := int32(len(p.lines))
					p.lines = append(p.lines, lineKey{fn.file, ln})
					lineIdx[lineKey{fn.file, ln}] = g
					p.rowless = append(p.rowless, rowless{gline: g, ref: ref, minus: -1})
					p.graphPre[at] = append(p.graphPre[at], g)
					break
				}
			}
		}
	})
}

// eachO0Source calls f with each -O0 function with code and its source.
func (p *Program) eachO0Source(f func(fn *function, src []string)) {
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		if fn.optimized || !fn.hasCode {
			continue
		}
		if src := p.source(fn.file); src != nil {
			f(fn, src)
		}
	}
}

// ifChainBefore returns the first line of the if/else chain that is the
// statement just before line ln at its indentation, or 0.
func ifChainBefore(src []string, ln int32) int32 {
	in := indent(src[ln-1])
	for l := ln - 1; l >= 1; l-- {
		t := strings.TrimSpace(src[l-1])
		if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") {
			continue
		}
		d := indent(src[l-1])
		switch {
		case d > in:
			continue
		case d < in:
			return 0
		case ifStmt.MatchString(src[l-1]) && !strings.HasPrefix(t, "}"):
			return l
		case strings.HasPrefix(t, "}") || strings.HasPrefix(t, "else"):
			continue
		default:
			return 0
		}
	}
	return 0
}

// leavesLocals reports whether the break or continue on line ln of src
// (in the function declared on line start) leaves a block that declares
// a local before it: the blocks it is nested in up to the body of its
// loop (or, for a break, its switch), and a for loop's own declaration
// for a break. Without one, gcc has no clobbers to put in a finally, the
// jump is a plain goto that the machine code's conditional jump takes
// over, and gcov shows no code for the line (parcel.c's do-while
// `if (*s < '0' || *s > '9') break;`). Used for C only: a C++ scope's
// locals have types (pool.cc's `Result<int> r`) and destructors this
// reading of the source does not know.
func leavesLocals(src []string, start, ln int32) bool {
	isBreak := strings.HasPrefix(strings.TrimSpace(src[ln-1]), "break")
	depth, locals := 0, false
	for l := ln - 1; l > start; l-- {
		text := stripStrings(src[l-1])
		if depth == 0 && localDecl(text) {
			locals = true
		}
		for i := len(text) - 1; i >= 0; i-- {
			switch text[i] {
			case '}':
				depth++
			case '{':
				if depth > 0 {
					depth--
					continue
				}
				// A block around the jump opens here: its head is the
				// text before the brace, or the code line before it.
				head := strings.TrimSpace(text[:i])
				if head == "" || head == "}" {
					if pl := prevCodeLine(src, l); pl > start {
						head = strings.TrimSpace(stripStrings(src[pl-1]))
					}
				}
				head = strings.TrimSpace(strings.TrimPrefix(head, "}"))
				switch {
				case loopHead.MatchString(head):
					return locals || isBreak && forDecl.MatchString(head)
				case isBreak && isSwitch(head):
					return locals
				}
			}
		}
	}
	return true // (not found: as before)
}

// declLike matches a line that starts with a type and a name, as a
// declaration does: `FILE *f = ...`, `uint32_t v;`, `struct pt p = ...`.
var declLike = newLazyRegexp(`^\s*(?:(?:const|static|volatile|register|struct|union|enum|unsigned|signed)\s+)*[A-Za-z_]\w*[\s*]+\**\s*[A-Za-z_]\w*\s*(?:=|;|\[|,)`)

// notTypeWords are the statement keywords declLike could take for a type.
var notTypeWords = map[string]bool{"return": true, "goto": true, "case": true, "else": true, "do": true, "break": true, "continue": true}

// localDecl reports whether the line text (strings stripped) declares a
// local.
func localDecl(text string) bool {
	if isDeclStart(text) && strings.HasSuffix(strings.TrimSpace(text), ";") {
		return true
	}
	i := skipSpace(text, 0)
	return !notTypeWords[text[i:skipWord(text, i)]] && declLike.MatchString(text)
}

// forDecl matches the head of a for loop that declares its variable.
var forDecl = newLazyRegexp(`^for\s*\(\s*(?:const\s+|unsigned\s+|signed\s+)*(?:int|long|short|char|unsigned|size_t|double|float|struct\s+\w+|enum\s+\w+)\b`)

// findScopeExits finds the break, continue and goto statements of -O0
// functions that have no code of their own and do not follow a call
// (callStatementEnd's scopeExitAfter takes those): each is the only jump
// to its destination out of a scope whose locals live in memory, which
// gcc lowers as a try/finally whose finally holds the locals' clobbers
// (tree-eh.cc). lower_try_finally_copy puts a copy of the clobbers, with
// the jump's location, in the block that jumps; the clobbers expand to no
// code and the machine jump keeps the line before. The jump's line goes
// in gcc's graph into the block of that jump: the block of the statement
// before it, or, for the arm of an if that the machine code falls
// through to the destination, the destination's block when nothing else
// enters it (gcc merged the arm's block into it), with the if's line
// (a continue's prediction).
func (p *Program) findScopeExits() {
	p.eachO0Source(func(fn *function, src []string) {
		last := map[int32]int{} // source line -> its last instruction
		for k := fn.first; k < fn.end; k++ {
			if g := p.insns[k].gline; g >= 0 && p.lines[g].file == fn.file {
				last[p.lines[g].line] = k
			}
		}
		for ln := fn.startLine + 1; ln < fn.endLine && int(ln) <= len(src); ln++ {
			if _, ok := last[ln]; ok || !jumpStmt.MatchString(src[ln-1]) {
				continue
			}
			if !fn.cxx && breakStmt.MatchString(src[ln-1]) && !leavesLocals(src, fn.startLine, ln) {
				continue
			}
			prev := prevCodeLine(src, ln)
			k, ok := last[prev]
			if !ok {
				continue
			}
			in := &p.insns[k]
			switch {
			case in.kind == kJmp && k > fn.first && p.insns[k-1].gline == in.gline && !p.endsGccBlock(k-1):
				// The statement before, then the jump, and for a continue
				// in an if arm its prediction, on the if's line.
				ls := p.lineIDs(fn.file, ln)
				if len(ls) > 0 {
					if l := p.continueIf(ls[0]); l >= 0 {
						ls = append(ls, l)
					}
				}
				p.graphPre[k-1] = append(p.graphPre[k-1], ls...)
			case in.kind == kJcc && ifStmt.MatchString(src[prev-1]) && indent(src[ln-1]) > indent(src[prev-1]) &&
				k+1 < fn.end && !p.jumpedTo(fn, k+1):
				ls := p.lineIDs(fn.file, ln)
				if continueStmt.MatchString(src[ln-1]) {
					ls = append(ls, in.gline)
				}
				p.graphPre[k+1] = append(p.graphPre[k+1], ls...)
			}
		}
	})
}

// jumpedTo reports whether a jump of fn goes to instruction k.
func (p *Program) jumpedTo(fn *function, k int) bool { return p.jumpedToExcept(fn, k, nil) }

// jumpedToExcept is jumpedTo leaving out the jumps j for which skip(j)
// (nil: none); false for a k past the last instruction.
func (p *Program) jumpedToExcept(fn *function, k int, skip func(j int) bool) bool {
	if k < 0 || k >= len(p.insns) {
		return false
	}
	at := p.insns[k].addr
	for j := fn.first; j < fn.end; j++ {
		if in := &p.insns[j]; (in.kind == kJcc || in.kind == kJmp) && in.target == at && (skip == nil || !skip(j)) {
			return true
		}
	}
	return false
}
