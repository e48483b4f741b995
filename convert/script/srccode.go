package script

import (
	"bytes"
	"os"
	"strconv"

	"github.com/perfpt/perfpt/convert/sample"
)

// sourceLiner is what the srccode field asks of a sample's resolver: the
// source file and line of a location as addr2line gives them (perf's
// get_srcline_split). The machine's resolver has it.
type sourceLiner interface {
	SourceLine(l *sample.Loc) (file string, line int, ok bool)
}

// srcState is perf's thread->srccode_state: the source line printed last
// for a thread.
type srcState struct {
	file string
	line int
}

// srcFile is a source file as perf's srccode.c holds it: its text and
// where each line starts.
type srcFile struct {
	text  []byte
	lines []int
}

// appendSrccode mirrors map__fprintf_srccode for the sample's IP and the
// newline process_event prints after it: "|%-8d %s\n" with the line's
// number and text, unless the thread's last printed line is the same one.
func (p *Printer) appendSrccode(b []byte, s *sample.Sample) []byte {
	return p.appendSrccodeAt(b, s.Res, s.TID, &s.IPLoc)
}

// appendSrccodeAt is appendSrccode for location l of thread tid, resolved
// by res.
func (p *Printer) appendSrccodeAt(b []byte, res sample.Resolver, tid int32, l *sample.Loc) []byte {
	if !l.HasMap {
		return b
	}
	sl, ok := res.(sourceLiner)
	if !ok {
		return b
	}
	file, line, ok := sl.SourceLine(l)
	if !ok {
		return b
	}
	if p.srccode == nil {
		p.srccode = map[int32]srcState{}
	}
	if st, seen := p.srccode[tid]; seen && st.file == file && st.line == line {
		return b
	}
	text, ok := p.sourceLine(file, line)
	if !ok {
		return b
	}
	p.srccode[tid] = srcState{file, line}
	n := len(b)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(line), 10)
	for len(b)-n < 9 {
		b = append(b, ' ')
	}
	b = append(b, ' ')
	b = append(b, text...)
	return append(b, '\n')
}

// sourceLine mirrors find_sourceline: line (1-based) of file, without its
// newline; false when the file cannot be read or is shorter.
func (p *Printer) sourceLine(file string, line int) ([]byte, bool) {
	if p.srcFiles == nil {
		p.srcFiles = map[string]*srcFile{}
	}
	f, cached := p.srcFiles[file]
	if !cached {
		if text, err := os.ReadFile(file); err == nil {
			f = &srcFile{text: text}
			// countlines and fill_lines: a line starts at the file's
			// start and after each newline but the last.
			if len(text) > 0 {
				f.lines = append(f.lines, 0)
				for i, c := range text {
					if c == '\n' && i+1 < len(text) {
						f.lines = append(f.lines, i+1)
					}
				}
			}
		}
		p.srcFiles[file] = f
	}
	if f == nil || line < 1 || line > len(f.lines) {
		return nil, false
	}
	l := f.text[f.lines[line-1]:]
	if i := bytes.IndexByte(l, '\n'); i >= 0 {
		return l[:i], true
	}
	// perf's memchr finds no newline on a last line without one, and
	// its length is then undefined; print the line.
	return l, true
}
