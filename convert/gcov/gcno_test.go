package gcov

import (
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strings"
)

// A reader of gcc 12's notes files (.gcno), for the tests only: the block
// graph gcc instrumented is the oracle for the one gccGraph rebuilds from
// the machine code (gcov-io.h documents the format: 32-bit words, tagged
// records of a byte length, strings as a byte length and the bytes).

const (
	gcnoTagFunction = 0x01000000
	gcnoTagBlocks   = 0x01410000
	gcnoTagArcs     = 0x01430000
	gcnoTagLines    = 0x01450000

	gcnoArcOnTree      = 1
	gcnoArcFake        = 2
	gcnoArcFallthrough = 4
)

type gcnoArc struct {
	dst   int
	flags uint32
}

type gcnoBlock struct {
	arcs  []gcnoArc
	lines []gcnoLines
}

// gcnoLines are the lines of one block in one file.
type gcnoLines struct {
	file  string
	lines []int
}

type gcnoFunc struct {
	name                 string
	artificial           bool
	file                 string
	startLine, startCol  int
	endLine, endCol      int
	blocks               []gcnoBlock // 0 is the entry, 1 the exit
	lineChecksum, cfgSum uint32
}

type gcnoReader struct {
	b   []byte
	off int
	err error
}

func (r *gcnoReader) word() uint32 {
	if r.err != nil || r.off+4 > len(r.b) {
		r.err = fmt.Errorf("gcno: short at %d", r.off)
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *gcnoReader) str() string {
	n := int(r.word())
	if r.err != nil || n == 0 {
		return ""
	}
	if r.off+n > len(r.b) {
		r.err = fmt.Errorf("gcno: string past the end at %d", r.off)
		return ""
	}
	s := string(r.b[r.off : r.off+n])
	r.off += n
	return strings.TrimRight(s, "\x00")
}

// readGcno reads the functions of a .gcno written by gcc 12.
func readGcno(path string) ([]*gcnoFunc, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &gcnoReader{b: b}
	if r.word() != 0x67636e6f {
		return nil, fmt.Errorf("%s: not a gcno file", path)
	}
	r.word() // version
	r.word() // stamp
	r.word() // checksum
	r.str()  // cwd
	r.word() // supports unexecuted blocks
	var fns []*gcnoFunc
	var fn *gcnoFunc
	for r.err == nil && r.off+8 <= len(b) {
		tag, n := r.word(), int(r.word())
		end := r.off + n
		if end > len(b) {
			return nil, fmt.Errorf("%s: record past the end at %d", path, r.off)
		}
		switch tag {
		case gcnoTagFunction:
			fn = &gcnoFunc{}
			r.word() // ident
			fn.lineChecksum, fn.cfgSum = r.word(), r.word()
			fn.name = r.str()
			fn.artificial = r.word() != 0
			fn.file = r.str()
			fn.startLine, fn.startCol, fn.endLine, fn.endCol = int(r.word()), int(r.word()), int(r.word()), int(r.word())
			fns = append(fns, fn)
		case gcnoTagBlocks:
			if fn != nil {
				fn.blocks = make([]gcnoBlock, r.word())
			}
		case gcnoTagArcs:
			src := int(r.word())
			if fn == nil || src >= len(fn.blocks) {
				return nil, fmt.Errorf("%s: arcs of block %d out of range", path, src)
			}
			for r.off < end && r.err == nil {
				d, f := int(r.word()), r.word()
				fn.blocks[src].arcs = append(fn.blocks[src].arcs, gcnoArc{d, f})
			}
		case gcnoTagLines:
			blk := int(r.word())
			if fn == nil || blk >= len(fn.blocks) {
				return nil, fmt.Errorf("%s: lines of block %d out of range", path, blk)
			}
			bl := &fn.blocks[blk]
			for r.err == nil {
				l := r.word()
				if l != 0 {
					if len(bl.lines) > 0 {
						bl.lines[len(bl.lines)-1].lines = append(bl.lines[len(bl.lines)-1].lines, int(l))
					}
					continue
				}
				f := r.str()
				if f == "" {
					break
				}
				bl.lines = append(bl.lines, gcnoLines{file: f})
			}
		}
		r.off = end
	}
	if r.err != nil {
		return nil, fmt.Errorf("%s: %w", path, r.err)
	}
	return fns, nil
}

// shape describes block i of fn as gcov sees it after reading: its lines
// sorted per file and its arcs sorted by destination, "dst" with F for
// fallthrough and X for a fake arc.
func (fn *gcnoFunc) shape(i int) string {
	var b strings.Builder
	for _, l := range fn.blocks[i].lines {
		ls := append([]int(nil), l.lines...)
		sort.Ints(ls)
		fmt.Fprintf(&b, "%s:%v ", l.file[strings.LastIndexByte(l.file, '/')+1:], ls)
	}
	arcs := append([]gcnoArc(nil), fn.blocks[i].arcs...)
	sort.SliceStable(arcs, func(x, y int) bool { return arcs[x].dst < arcs[y].dst })
	b.WriteString("->")
	for _, a := range arcs {
		fmt.Fprintf(&b, " %d", a.dst)
		if a.flags&gcnoArcFallthrough != 0 {
			b.WriteString("F")
		}
		if a.flags&gcnoArcFake != 0 {
			b.WriteString("X")
		}
	}
	return b.String()
}
