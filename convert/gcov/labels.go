package gcov

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// labelLine matches a source line that holds only a label: `case X:`,
// `default:` or `name:`, optionally followed by a comment.
var labelLine = regexp.MustCompile(`^\s*(case\s+[^:;?]+?|default|[A-Za-z_]\w*)\s*:\s*(/[/*].*)?$`)

// switchLine matches a line that starts a switch statement.
var switchLine = regexp.MustCompile(`^\s*switch\s*\(`)

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
	b, err := os.ReadFile(p.files[fi])
	if err != nil && p.symfs != "" {
		b, err = os.ReadFile(filepath.Join(p.symfs, p.files[fi]))
	}
	if err != nil {
		p.src[fi] = nil
		return nil
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	var lines []string
	for _, l := range bytes.Split(b, []byte("\n")) {
		lines = append(lines, string(bytes.TrimSuffix(l, []byte("\r"))))
	}
	p.src[fi] = lines
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
			enter(p.insns[k].gline, k)
		}
		for ln := fn.startLine + 1; ln < fn.endLine && int(ln) <= len(src); ln++ {
			if _, ok := first[ln]; ok || !isLabel(src[ln-1]) {
				continue
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
