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
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		if fn.optimized || !fn.hasCode {
			continue
		}
		src := p.source(fn.file)
		if src == nil {
			continue
		}
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
					g := int32(len(p.lines))
					p.lines = append(p.lines, lineKey{fn.file, ln})
					lineIdx[lineKey{fn.file, ln}] = g
					p.rowless = append(p.rowless, rowless{gline: g, ref: ref, minus: -1})
					// In gcc's graph the line is in the block of the
					// next line's first instruction.
					for k := fn.first; k < fn.end; k++ {
						if p.insns[k].gline == ref {
							p.graphPre[k] = append(p.graphPre[k], g)
							break
						}
					}
					break
				}
			}
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
