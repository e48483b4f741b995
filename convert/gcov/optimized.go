package gcov

import (
	"debug/dwarf"
	"debug/elf"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/perfpt/perfpt/convert/srcline"
)

// Optimised code (a compilation unit whose DW_AT_producer names -O1 or
// more) gets another line model than -O0's. gcov counts gcc's early GIMPLE,
// where each statement still has its line; in the final code statements are
// merged, moved and interleaved, and gcc marks where each one starts with an
// is_stmt row of the line table, several at one address when statements left
// no instructions of their own (location views). So an instruction belongs
// to the line of the last statement started at or before it (rows that are
// not is_stmt do not switch lines: they are scheduling noise, but at a jump
// target the row's own line is taken), and the lines
// of the other statements starting at its address are entered just before
// it (Program.pre). Lines holding only a brace are never code, and the
// function's declaration line is entered on each call (gcc puts the entry
// block there).

// unitRanges returns the address ranges of the compilation units of f
// built with optimisation (the level their DW_AT_producer records:
// producerLevel, gcc records its switches there by default), of those at
// -O3 and above, and of its C++ units (DW_AT_language), from one reading
// of f's DWARF.
func unitRanges(f *elf.File) (optimized, cxx, o3 [][2]uint64, sources []unitSource) {
	d, err := f.DWARF()
	if err != nil {
		return nil, nil, nil, nil
	}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
			prod, _ := e.Val(dwarf.AttrProducer).(string)
			level := producerLevel(prod)
			opt := level > 0
			lang, _ := e.Val(dwarf.AttrLanguage).(int64)
			isCXX := lang == 0x4 || lang == 0x1a || lang == 0x21 // DW_LANG_C_plus_plus, _11, _14
			if name, _ := e.Val(dwarf.AttrName).(string); name != "" {
				if dir, _ := e.Val(dwarf.AttrCompDir).(string); dir != "" && !filepath.IsAbs(name) {
					name = filepath.Join(dir, name)
				}
				if rs, err := d.Ranges(e); err == nil {
					sources = append(sources, unitSource{rs, name})
				}
			}
			if opt || isCXX {
				if rs, err := d.Ranges(e); err == nil {
					if opt {
						optimized = append(optimized, rs...)
					}
					if level >= 3 {
						o3 = append(o3, rs...)
					}
					if isCXX {
						cxx = append(cxx, rs...)
					}
				}
			}
		}
		r.SkipChildren()
	}
	return optimized, cxx, o3, sources
}

// unitSource is a compilation unit's address ranges and primary source
// file (DW_AT_name, joined to DW_AT_comp_dir when relative).
type unitSource struct {
	ranges [][2]uint64
	name   string
}

// producerLevel returns the optimisation level a DW_AT_producer string
// names (the last -O switch; -Ofast counts as 3, -Os and -Og as 2 and 1).
func producerLevel(s string) int {
	level := 0
	for _, f := range strings.Fields(s) {
		if !strings.HasPrefix(f, "-O") {
			continue
		}
		switch v := f[2:]; v {
		case "", "1", "g":
			level = 1
		case "0":
			level = 0
		case "s", "z", "2":
			level = 2
		default:
			level = 3
		}
	}
	return level
}

func inRanges(rs [][2]uint64, a uint64) bool {
	for _, r := range rs {
		if a >= r[0] && a < r[1] {
			return true
		}
	}
	return false
}

// braceOnly reports whether a source line holds only braces (and a comment).
func braceOnly(s string) bool {
	if i := strings.Index(s, "//"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "{}; \t") == ""
}

// assignOptimized gives the instructions of optimised function fn their
// gcov lines from the is_stmt rows of the line table.
func (p *Program) assignOptimized(fn *function, rows []srcline.Row, intern func(string) int32, gline func(int32, int32) int32) {
	ins := p.insns[fn.first:fn.end]
	r := sort.Search(len(rows), func(i int) bool { return rows[i].Addr >= fn.low })
	// line returns the gcov line of row, or -1 for a brace-only line.
	line := func(row *srcline.Row) int32 {
		file := intern(p.Table.FileName(row.File))
		if src := p.source(file); row.Line > 0 && int(row.Line) <= len(src) && braceOnly(src[row.Line-1]) {
			return -1
		}
		return gline(file, row.Line)
	}
	// Lines with a statement row in the function.
	stmtLine := map[int32]bool{}
	for i := r; i < len(rows) && rows[i].Addr < fn.high; i++ {
		if row := &rows[i]; row.IsStmt && !row.EndSeq {
			if g := line(row); g >= 0 {
				stmtLine[g] = true
			}
		}
	}
	// Lines whose rows in the function are all not is_stmt, that hold a
	// statement gcov counts (promotedLine): entered where their rows start.
	promote := map[int32]bool{}
	for i := r; i < len(rows) && rows[i].Addr < fn.high; i++ {
		if row := &rows[i]; !row.IsStmt && !row.EndSeq {
			if g := line(row); g >= 0 && !stmtLine[g] && !promote[g] {
				file := intern(p.Table.FileName(row.File))
				promote[g] = promotedLine(p.source(file), int32(row.Line))
			}
		}
	}
	// Of C++, closing braces whose rows cover a call (destructors run
	// at the end of a scope, an exception's cleanup, a tail call): gcc
	// gives those calls the brace's location and gcov counts the line.
	// Braces without calls under them (epilogues) stay without code.
	braceCall := map[int32]bool{}
	if fn.cxx {
		for i := r; i < len(rows) && rows[i].Addr < fn.high; i++ {
			row := &rows[i]
			if row.EndSeq || line(row) >= 0 || row.Line < 1 {
				continue
			}
			stop := fn.high
			if i+1 < len(rows) && rows[i+1].Addr < stop {
				stop = rows[i+1].Addr
			}
			k := sort.Search(len(ins), func(j int) bool { return ins[j].addr >= row.Addr })
			for ; k < len(ins) && ins[k].addr < stop; k++ {
				if in := &ins[k]; in.kind == kCall || in.kind == kCallInd ||
					in.kind == kJmp && (in.target < fn.low || in.target >= fn.high) {
					braceCall[gline(intern(p.Table.FileName(row.File)), row.Line)] = true
					break
				}
			}
		}
	}
	// The declaration line is entered on calls only, not where rows of
	// the prologue's line (often the same) reappear.
	decl := int32(-1)
	if fn.startLine > 0 {
		decl = gline(fn.file, fn.startLine)
	}
	cur := int32(-1)
	var stmts []int32
	for k := range ins {
		a := ins[k].addr
		stmts = stmts[:0]
		if k == 0 && decl >= 0 && !fn.part {
			stmts = append(stmts, decl)
		}
		owner := int32(-1)
		ins[k].midRow = true
		var promoted []int32
		// Rows at this instruction (rows inside the previous one, which
		// should not exist, count here too).
		for ; r < len(rows) && rows[r].Addr <= a; r++ {
			row := &rows[r]
			if row.EndSeq || row.Addr < fn.low {
				continue
			}
			g := line(row)
			if g < 0 {
				if len(braceCall) > 0 && row.Line > 0 {
					if b := gline(intern(p.Table.FileName(row.File)), row.Line); braceCall[b] && !slices.Contains(promoted, b) {
						promoted = append(promoted, b)
					}
				}
				continue
			}
			if row.IsStmt {
				ins[k].midRow = false
			}
			if !row.IsStmt && promote[g] && !slices.Contains(promoted, g) {
				promoted = append(promoted, g)
			}
			owner = g
			// A line is entered once per pass over the address, however
			// many of its statements start there.
			if row.IsStmt && !slices.Contains(stmts, g) {
				stmts = append(stmts, g)
			}
		}
		if len(stmts) > 0 {
			if len(stmts) > 1 {
				p.pre[fn.first+k] = append([]int32(nil), stmts[:len(stmts)-1]...)
			}
			cur = stmts[len(stmts)-1]
		} else if cur < 0 || (ins[k].leader && stmtLine[owner] && owner != decl) {
			// Where jumps land, the statement before in address order
			// is not the one control comes from: the row's own line is
			// the better guess.
			cur = owner
		}
		ins[k].gline = cur
		for _, g := range promoted {
			if g != cur && !slices.Contains(p.pre[fn.first+k], g) {
				p.side[fn.first+k] = append(p.side[fn.first+k], g)
			}
		}
		if cur >= 0 && p.lines[cur].file == fn.file {
			fn.endLine = max(fn.endLine, p.lines[cur].line)
		}
	}
	fn.hasCode = true
}

// thenReturnBeforeReturn reports whether line ln of src is a return
// alone in the then branch of an if (without braces) that the function's
// return of a constant or variable follows (`if (c) return x; return y;`).
// Both returns only give the return value's PHI an argument, and both
// successors of the if's block go to the PHI's block: one edge from the
// if's block can go straight there, the other keeps a block of its own,
// which gcov counts. gcc keeps the then branch's (the else side's edge
// goes straight to the join).
func thenReturnBeforeReturn(src []string, ln int32) bool {
	prev, next := prevCodeLine(src, ln), nextCodeLine(src, ln)
	if prev < 1 || next < 1 || !ifNoBrace.MatchString(src[prev-1]) || indent(src[prev-1]) >= indent(src[ln-1]) {
		return false
	}
	return returnLiteral.MatchString(src[next-1]) && indent(src[next-1]) == indent(src[prev-1])
}

// nextCodeLine returns the first line after ln of src that is not blank
// nor a comment, or 0.
func nextCodeLine(src []string, ln int32) int32 {
	for l := ln + 1; int(l) <= len(src); l++ {
		t := strings.TrimSpace(src[l-1])
		if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") {
			continue
		}
		return l
	}
	return 0
}

// promotedLine reports whether line ln of src, which has line-table rows
// in a function but none of them is_stmt, holds a statement gcov counts:
// an assignment, a call or an if (rowlessStmt), or the continuation of a
// condition split over lines. gcc's if-conversion and scheduling leave
// such statements' instructions under rows that are not is_stmt (a
// conditional move for `r |= 4;`, the second operand of a split `&&`);
// gcov counts the blocks they were before those passes. Returns,
// declarations and labels with such rows are mostly gcc's PHI arguments
// and merged initialisers, without code for gcov: they are left out.
func promotedLine(src []string, ln int32) bool {
	if ln < 1 || int(ln) > len(src) {
		return false
	}
	text := src[ln-1]
	if returnStmt.MatchString(text) && thenReturnBeforeReturn(src, ln) {
		return true
	}
	if isDeclStart(text) || returnStmt.MatchString(text) || isLabel(text) || elseHead.MatchString(text) ||
		blockConst(src, ln) {
		return false
	}
	if isRowlessStmt(text) {
		return true
	}
	prev := prevCodeLine(src, ln)
	if prev < 1 {
		return false
	}
	p, t := strings.TrimSpace(src[prev-1]), strings.TrimSpace(text)
	for _, op := range []string{"&&", "||", "?", ":"} {
		if strings.HasSuffix(p, op) || strings.HasPrefix(t, op) {
			return true
		}
	}
	return false
}
