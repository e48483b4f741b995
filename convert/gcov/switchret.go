package gcov

import (
	"strconv"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// A switch whose cases only return constants. gcc lowers each return to
// an assignment of the return value and a jump to the function's single
// return statement (lower_gimple_return); into SSA the value becomes an
// argument of that statement's PHI and the case's block is left with its
// jump alone, a forwarder with the case's line as its goto locus, which
// gcov counts. The CFG cleanup before the instrumentation removes the
// forwarders it can (remove_forwarder_block): the first in block order,
// the first case of the switch in the source, goes, its edge now leading
// from the switch to the return with its constant; the others stay, as
// the switch already has an edge there with another PHI argument. So
// gcov shows no code on the first case's lines and counts the others' as
// often as they were taken. In the traced binary the cases are often
// rows of their own, but as often a compare tree's leaves that only load
// the constant (or a table load, or a cmov): where a leaf is a compare
// of the switch's value with the case's constant followed by je or jne,
// that jump says how often the case ran.

// caseJump is a je or jne after a compare of a register with imm.
type caseJump struct {
	imm  int64 // the constant, as compared (sign-extended to 64 bits)
	bits int   // the compare's operand width
	eq   bool  // je: taken when equal; jne: taken when not
}

// noteCaseJump records in when it is a je or jne at addr that follows
// prev, a compare of a register with an immediate.
func (p *Program) noteCaseJump(prev, in x86asm.Inst, addr uint64) {
	if in.Op != x86asm.JE && in.Op != x86asm.JNE || prev.Op != x86asm.CMP {
		return
	}
	if _, ok := prev.Args[0].(x86asm.Reg); !ok {
		return
	}
	imm, ok := prev.Args[1].(x86asm.Imm)
	if !ok {
		return
	}
	if p.caseJumps == nil {
		p.caseJumps = map[uint64]caseJump{}
	}
	p.caseJumps[addr] = caseJump{imm: int64(imm), bits: prev.DataSize, eq: in.Op == x86asm.JE}
}

// noteConstLeaf records in when it moves a constant into a register, or
// zeroes one, at addr after prev, an unconditional jump or a return: no
// code falls into it, and a switch's jump table may lead there (the
// leaf of a case returning that constant).
func (p *Program) noteConstLeaf(prev, in x86asm.Inst, addr uint64) {
	if prev.Op != x86asm.JMP && prev.Op != x86asm.RET {
		return
	}
	dst, ok := in.Args[0].(x86asm.Reg)
	if !ok {
		return
	}
	var v int64
	switch in.Op {
	case x86asm.MOV:
		imm, ok := in.Args[1].(x86asm.Imm)
		if !ok {
			return
		}
		v = int64(imm)
	case x86asm.XOR:
		if src, ok := in.Args[1].(x86asm.Reg); !ok || src != dst {
			return
		}
	default:
		return
	}
	if p.constLeaves == nil {
		p.constLeaves = map[uint64]int64{}
	}
	p.constLeaves[addr] = v
}

// constLeaf returns the one instruction that moves the constant v into a
// register and jumps on (noteConstLeaf) whose gcov line is one of glines
// or whose row is the switch's line sw, or -1 when there is none or more
// than one.
func (p *Program) constLeaf(v int64, glines map[int32]bool, sw lineKey) int {
	found := -1
	for a, c := range p.constLeaves {
		if int32(c) != int32(v) {
			continue
		}
		k := p.index(a)
		if k < 0 || k+1 >= len(p.insns) || p.insns[k+1].kind != kJmp ||
			!glines[p.insns[k].gline] && !p.rowIs(a, sw) {
			continue
		}
		if found >= 0 {
			return -1
		}
		found = k
	}
	return found
}

// caseGroup is a run of case labels and the statements after them, up to
// the next label of the same switch.
type caseGroup struct {
	labels     []int32 // the label lines
	last       int32   // the group's last line
	sw         int32   // the switch's line
	consts     []int64 // the labels' constants
	unknown    bool    // a label is not a plain constant (a range, an enumerator, default)
	hasDefault bool    // a label is default
	ret        bool    // the group is one return of a constant or a variable
	retVal     string  // what it returns
	falls      bool    // control can fall into the next group
	onlyBreak  bool    // the group's one statement is break
}

// switchReturns splits the switch on line sw of src (in a function
// ending on line end) into its case groups and returns them with the
// index of the first returning case (the one gcov shows no code for), -1
// when none returns.
func switchReturns(src []string, sw, end int32, enums map[string]int64) (groups []caseGroup, first int) {
	groups = switchGroups(src, sw, end, enums)
	first = -1
	for i, g := range groups {
		if g.ret && (i == 0 || !groups[i-1].falls) {
			return groups, i
		}
	}
	return groups, -1
}

// switchGroups splits the body of the switch on line sw into its case
// groups.
func switchGroups(src []string, sw, end int32, enums map[string]int64) []caseGroup {
	var groups []caseGroup
	var stmts []string // the current group's statements
	depth, started := 0, false
	closeGroup := func(last int32) {
		if len(groups) == 0 {
			return
		}
		g := &groups[len(groups)-1]
		g.last = last
		if len(stmts) == 1 && returnLiteral.MatchString(stmts[0]) && strings.TrimSpace(stmts[0]) != "return;" {
			g.ret = true
			g.retVal = strings.TrimSpace(stmts[0])
		}
		g.onlyBreak = len(stmts) == 1 && stmts[0] == "break;"
		g.falls = true
		if n := len(stmts); n > 0 {
			t := strings.TrimSpace(stmts[n-1])
			for _, w := range []string{"return", "break", "continue", "goto"} {
				if strings.HasPrefix(t, w) && (len(t) == len(w) || !isWord(t[len(w)])) {
					g.falls = false
				}
			}
		}
		stmts = nil
	}
	for l := sw; l <= end && int(l) <= len(src); l++ {
		text := src[l-1]
		if l > sw && depth == 1 {
			rest := text
			if m := caseLabelOf(text); m != nil {
				if len(groups) == 0 || len(stmts) > 0 {
					closeGroup(l - 1)
					groups = append(groups, caseGroup{sw: sw})
				}
				g := &groups[len(groups)-1]
				g.labels = append(g.labels, l)
				// Several labels on one line, then maybe a statement.
				for m != nil {
					if v, ok := caseConst(m[1], enums); ok {
						g.consts = append(g.consts, v)
					} else {
						g.unknown = true
						g.hasDefault = g.hasDefault || m[1] == "default"
					}
					rest = rest[len(m[0]):]
					m = caseLabelOf(rest)
				}
			}
			if t := strings.TrimSpace(stripComment(rest)); t != "" && t != "{" && t != "}" {
				stmts = append(stmts, t)
			}
		}
		if trackBraces(text, &depth, &started) {
			closeGroup(l - 1)
			return groups
		}
	}
	return nil
}

// stripComment removes a trailing // or /* comment.
func stripComment(s string) string {
	if i := strings.Index(s, "//"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "/*"); i >= 0 {
		s = s[:i]
	}
	return s
}

// caseConst evaluates the constant of a case label's text ("case 12",
// "case 'x'", "case 0x10", "case 1u << 20", an enumerator of enums);
// ranges and other expressions are not evaluated.
func caseConst(label string, enums map[string]int64) (int64, bool) {
	t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(label), "case"))
	if v, ok := enums[t]; ok {
		return v, true
	}
	if strings.Contains(t, "...") {
		return 0, false
	}
	if l, r, ok := strings.Cut(t, "<<"); ok {
		a, ok1 := intConst(l)
		b, ok2 := intConst(r)
		if !ok1 || !ok2 || b < 0 || b > 62 {
			return 0, false
		}
		return a << b, true
	}
	return intConst(t)
}

// intConst evaluates an integer or character constant.
func intConst(t string) (int64, bool) {
	t = strings.TrimSpace(t)
	neg := strings.HasPrefix(t, "-")
	if neg {
		t = strings.TrimSpace(t[1:])
	}
	var v int64
	switch {
	case len(t) == 3 && t[0] == '\'' && t[2] == '\'' && t[1] != '\\':
		v = int64(t[1])
	case len(t) == 4 && t[0] == '\'' && t[1] == '\\' && t[3] == '\'':
		c, ok := map[byte]int64{'n': '\n', 't': '\t', 'r': '\r', '0': 0, '\\': '\\', '\'': '\'', '"': '"'}[t[2]]
		if !ok {
			return 0, false
		}
		v = c
	default:
		t = strings.TrimRight(t, "uUlL")
		u, err := strconv.ParseInt(t, 0, 64)
		if err != nil {
			return 0, false
		}
		v = u
	}
	if neg {
		v = -v
	}
	return v, true
}

// caseJumpsFor returns the je/jne instructions that test one of consts
// on the lines glines (the switch's), and whether every constant has one.
// A compare whose gcov line is another (the code before it in address
// order was a case's leaf, whose line goes on) counts where the line
// table's row for it is the switch's line sw (bits.c's `case 4096:`,
// tested after the leaf of `case 16:`).
func (p *Program) caseJumpsFor(consts []int64, glines map[int32]bool, sw lineKey) (jumps []int, all bool) {
	found := map[int64]bool{}
	for a, cj := range p.caseJumps {
		k := p.index(a)
		if k < 1 || !glines[p.insns[k-1].gline] && !p.rowIs(p.insns[k-1].addr, sw) {
			continue
		}
		for _, c := range consts {
			if sameImm(c, cj) {
				jumps = append(jumps, k)
				found[c] = true
			}
		}
	}
	return jumps, len(consts) > 0 && len(found) == len(consts)
}

// sameImm reports whether the case constant c is what cj compares with.
func sameImm(c int64, cj caseJump) bool {
	switch cj.bits {
	case 8:
		return int8(c) == int8(cj.imm)
	case 16:
		return int16(c) == int16(cj.imm)
	case 32:
		return int32(c) == int32(cj.imm)
	}
	return c == cj.imm
}

// findSwitchReturns applies the rule above to the function from start to
// end of file's source src (has: its lines with code), and hides the
// labels of cases that only break (their forwarder goes the same way): the first
// returning case's lines are no code, the later ones' lines without rows
// are counted from their compare tree's jumps where every constant of the
// case has one, and a returning default's as the switch's line less
// every other case where all of them are counted so. At -O3 (o3) only
// the first case's lines are hidden: the later cases' labels have no code
// for gcov in the test programs (calc.c's opindex) and their returns
// some.
func (p *Program) findSwitchReturns(src []string, file, start, end int32, has map[int32]bool, o3 bool,
	enums func() map[string]int64, get func(file, line int32) int32) {
	for ln := start + 1; ln <= end && int(ln) <= len(src); ln++ {
		if !isSwitch(src[ln-1]) {
			continue
		}
		groups, first := switchReturns(src, ln, end, enums())
		if p.noCode == nil {
			p.noCode = map[int32]bool{}
		}
		for _, g := range groups {
			if g.onlyBreak {
				// The labels of a case that only breaks: its block is a
				// forwarder to the switch's end that the CFG cleanup
				// removes (the break keeps the count of that end where
				// it has code of its own).
				for _, l := range g.labels {
					p.noCode[get(file, l)] = true
				}
			}
		}
		if first < 0 {
			continue
		}
		f := groups[first]
		for _, l := range f.lines() {
			p.noCode[get(file, l)] = true
		}
		if o3 {
			continue
		}
		sw := map[int32]bool{get(file, ln): true}
		// Every case's jumps, and whether each case has them all.
		var others []int
		allCounted := true
		deflt := -1
		for i, g := range groups {
			if g.isDefault() && g.ret && i != first && !groups[max(i-1, 0)].falls {
				deflt = i
				continue
			}
			jumps, all := p.caseJumpsFor(g.consts, sw, lineKey{file, ln})
			if g.unknown || !all {
				allCounted = false
				if k := p.returnLeaf(groups, i, first, sw, lineKey{file, ln}); k >= 0 && !g.unknown {
					// A leaf of a jump table that only loads the
					// case's constant: as often as it ran.
					for _, l := range g.lines() {
						if !has[l] {
							p.rowless = append(p.rowless, rowless{gline: get(file, l), ref: -1, minus: -1, calls: []int{k}})
						}
					}
				}
				continue
			}
			others = append(others, jumps...)
			if i == first || !g.ret || g.retVal == f.retVal {
				continue // (the same PHI argument: removed too, not modelled)
			}
			for _, l := range g.lines() {
				if !has[l] {
					p.rowless = append(p.rowless, rowless{gline: get(file, l), ref: -1, minus: -1, cases: jumps})
				}
			}
		}
		if deflt >= 0 && allCounted && len(groups) > 1 {
			for _, l := range groups[deflt].lines() {
				if !has[l] {
					p.rowless = append(p.rowless, rowless{gline: get(file, l), ref: get(file, ln), minus: -1, cases: others})
				}
			}
		}
	}
}

// lines returns the lines gcov counts of a returning case group: its
// first label and its return.
func (g caseGroup) lines() []int32 {
	out := []int32{g.labels[0]}
	if g.last != g.labels[len(g.labels)-1] {
		out = append(out, g.last)
	}
	return out
}

// isDefault reports whether the group's only label is default.
func (g caseGroup) isDefault() bool {
	return g.unknown && len(g.consts) == 0 && len(g.labels) == 1 && g.hasDefault
}

// caseCount returns how often the je and jne instructions jumps decided
// for their case: a je's jumps taken, a jne's not taken.
func (p *Program) caseCount(jumps []int, exec []uint64, taken map[uint64]uint64) uint64 {
	n := uint64(0)
	for _, k := range jumps {
		a := p.insns[k].addr
		if t := taken[a]; p.caseJumps[a].eq {
			n += t
		} else {
			n += exec[k] - min(t, exec[k])
		}
	}
	return n
}

// enumValues returns the enumerators the C source src defines (in
// enum { ... } lists, their values counted on from the last given one)
// where every value is a plain constant.
func enumValues(src []string) map[string]int64 {
	lines := make([]string, len(src))
	for i, l := range src {
		lines[i] = stripComment(l)
	}
	text := strings.Join(lines, "\n")
	out := map[string]int64{}
	for rest := text; ; {
		i := strings.Index(rest, "enum")
		if i < 0 {
			return out
		}
		rest = rest[i+4:]
		if i > 0 && isWord(text[len(text)-len(rest)-5]) || len(rest) > 0 && isWord(rest[0]) {
			continue // part of a longer word
		}
		open := strings.IndexByte(rest, '{')
		if open < 0 || strings.ContainsAny(rest[:open], ";()") {
			continue // a use of an enum type, not a definition
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return out
		}
		next := int64(0)
		for _, item := range strings.Split(rest[open+1:open+end], ",") {
			name, val, hasVal := strings.Cut(item, "=")
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if hasVal {
				v, ok := intConst(val)
				if !ok {
					break // not a plain constant: the rest is not known
				}
				next = v
			}
			out[name] = next
			next++
		}
		rest = rest[open+end:]
	}
}

// rowIs reports whether the line table's row for the instruction at addr
// is line at.
func (p *Program) rowIs(addr uint64, at lineKey) bool {
	row, ok := p.Table.Line(addr)
	return ok && row.Line == at.line && p.files[at.file] == p.Table.FileName(row.File)
}

// returnLeaf returns, for the case group i of a switch (its first
// returning group first), the leaf that loads the constant the group
// returns and jumps to the function's return (constLeaf), when no other
// group returns that constant; else -1. gcc lowers a dense switch whose
// cases only return constants to a jump table whose entries lead to such
// leaves, with no row of their own (bits.c's `case 2: return 1;`).
func (p *Program) returnLeaf(groups []caseGroup, i, first int, glines map[int32]bool, sw lineKey) int {
	g := groups[i]
	if i == first || !g.ret {
		return -1
	}
	v, ok := returnConst(g.retVal)
	if !ok {
		return -1
	}
	for j, o := range groups {
		if j != i && o.ret && o.retVal == g.retVal {
			return -1
		}
	}
	return p.constLeaf(v, glines, sw)
}

// returnConst returns the integer constant of `return N;`.
func returnConst(stmt string) (int64, bool) {
	t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stmt), "return"))
	return intConst(strings.TrimSuffix(t, ";"))
}
