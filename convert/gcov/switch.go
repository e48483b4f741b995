package gcov

import (
	"strings"
)

// switchInfo lists the outcomes of a switch statement as gcov prints its
// branches: one per distinct case target in source order, then the default
// (the default label, or leaving the switch).
type switchInfo struct {
	targets []uint64 // code address of each case outcome
	deflt   uint64   // address of the default label's code, 0 if none
}

var caseLabel = newLazyRegexp(`^\s*(case\s+(?:'(?:\\.|[^'\\])+'|[^:'])+|default)\s*:`)

// caseLabelOf is caseLabel.FindStringSubmatch, with a cheap test first.
func caseLabelOf(s string) []string {
	if strings.IndexByte(s, ':') < 0 {
		return nil
	}
	return caseLabel.FindStringSubmatch(s)
}

// findSwitches finds, for every line that starts a switch statement, the
// addresses of the code of its case labels.
func (p *Program) findSwitches() {
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		src := p.source(fn.file)
		if src == nil || !hasSwitch(src, fn) {
			continue
		}
		// First instruction address of each line of the function.
		first := map[int32]uint64{}
		glineOf := map[int32]int32{}
		for k := fn.first; k < fn.end; k++ {
			g := p.insns[k].gline
			if g < 0 || p.lines[g].file != fn.file {
				continue
			}
			ln := p.lines[g].line
			if a, ok := first[ln]; !ok || p.insns[k].addr < a {
				first[ln] = p.insns[k].addr
			}
			glineOf[ln] = g
		}
		for _, lb := range p.labels {
			if lb.fn == int32(fi) {
				first[p.lines[lb.gline].line] = p.insns[lb.insn].addr
			}
		}
		for ln := fn.startLine; ln <= fn.endLine && int(ln) <= len(src); ln++ {
			g, ok := glineOf[ln]
			if !ok || !isSwitch(src[ln-1]) {
				continue
			}
			sw := &switchInfo{}
			depth := 0
			started := false
		scan:
			for l := ln; l <= fn.endLine && int(l) <= len(src); l++ {
				text := src[l-1]
				if l > ln && depth == 1 {
					if m := caseLabelOf(text); m != nil {
						if a, ok := first[l]; ok {
							if m[1] == "default" {
								sw.deflt = a
							} else if len(sw.targets) == 0 || sw.targets[len(sw.targets)-1] != a {
								sw.targets = append(sw.targets, a)
							}
						}
					}
				}
				if trackBraces(text, &depth, &started) {
					break scan
				}
			}
			if len(sw.targets) > 0 {
				if p.switches == nil {
					p.switches = map[int32]*switchInfo{}
				}
				p.switches[g] = sw
				// A jump table's targets start blocks too.
				for _, a := range append(sw.targets, sw.deflt) {
					if i := p.index(a); i > fn.first && i < fn.end {
						p.insns[i].leader = true
					}
				}
			}
		}
	}
}

// hasSwitch reports whether a line of fn's source starts a switch.
func hasSwitch(src []string, fn *function) bool {
	for ln := fn.startLine; ln <= fn.endLine && int(ln) <= len(src); ln++ {
		if ln >= 1 && isSwitch(src[ln-1]) {
			return true
		}
	}
	return false
}

// trackBraces adds the braces of text (not those in literals or
// comments) to depth, and reports whether a block opened on an earlier
// line or this one (started) closes on it.
func trackBraces(text string, depth *int, started *bool) bool {
	for _, c := range stripStrings(text) {
		switch c {
		case '{':
			*depth++
			*started = true
		case '}':
			*depth--
			if *started && *depth == 0 {
				return true
			}
		}
	}
	return false
}

// stripStrings blanks out character and string literals and comments
// enough for brace counting.
func stripStrings(s string) string {
	if i := strings.Index(s, "//"); i >= 0 {
		s = s[:i]
	}
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// switchBranches replaces the machine-level branches of a switch line by
// one branch per outcome, counted from the jumps that left the line (the
// times each target was jumped to from line g's code).
func (p *Program) switchBranches(l *Line, sw *switchInfo, jumps map[uint64]uint64, g int32) {
	counts := make([]uint64, len(sw.targets)+1)
	idx := map[uint64]int{}
	for i, a := range sw.targets {
		idx[a] = i
	}
	for to, n := range jumps {
		if i := p.index(to); i >= 0 && p.insns[i].gline == g {
			continue // a jump inside the dispatch
		}
		if i, ok := idx[to]; ok {
			counts[i] += n
		} else {
			counts[len(counts)-1] += n
		}
	}
	var items []item
	var branches []Branch
	for _, it := range l.items {
		if it.call {
			items = append(items, it)
		}
	}
	for _, n := range counts {
		branches = append(branches, Branch{Count: n, Executed: l.Count > 0})
	}
	items = append(items, item{branch: 0, n: len(counts)})
	l.Branches, l.items = branches, items
}
