package srcline

import (
	"errors"
	"sort"
	"strings"
)

// bfdLines is a compile unit's line table as binutils 2.40's bfd reads it
// for addr2line (decode_line_info in bfd/dwarf2.c), which is not quite the
// DWARF standard: rows of a DWARF 5 table that come before the first
// DW_LNS_set_file belong to file entry 0 (the standard says 1), a row at
// the address of the row before it replaces that row, and overlapping
// sequences are trimmed. perf 6.1 prints what addr2line prints, so the
// quirks are kept.
type bfdLines struct {
	files *lineFiles
	seqs  []bfdSeq
	// ranges are the [low, high] address ranges of the sequences, which
	// bfd adds to the unit's ranges.
	ranges [][2]uint64
}

type bfdSeq struct {
	low  uint64
	rows []bfdRow // ascending; the last one ends the sequence
	ord  int      // creation order, for the stable sort
	// inserts counts rows put in out of order; past maxInserts they are
	// appended and the sequence is unsorted until sortSequences.
	inserts  int
	unsorted bool
}

// maxInserts bounds the out-of-order rows of a sequence inserted one by
// one (bfd inserts all of them; a hostile table could make that take
// quadratic time).
const maxInserts = 4096

type bfdRow struct {
	addr    uint64
	file    string // "" when bfd has none
	line    uint32
	disc    uint32
	opIndex uint8
	end     bool
}

func (r *bfdRow) after(o *bfdRow) bool {
	return r.addr > o.addr || r.addr == o.addr && r.opIndex > o.opIndex
}

// lineHeader is what decodeLines needs from the unit besides the bytes.
type lineHeader struct {
	addrSize int
	compDir  string
	str      func(form uint64, c *cursor, is64 bool) (string, bool)
}

// DWARF line-program opcodes and forms used here.
const (
	lnsCopy             = 1
	lnsAdvancePC        = 2
	lnsAdvanceLine      = 3
	lnsSetFile          = 4
	lnsSetColumn        = 5
	lnsNegateStmt       = 6
	lnsSetBasicBlock    = 7
	lnsConstAddPC       = 8
	lnsFixedAdvancePC   = 9
	lneEndSequence      = 1
	lneSetAddress       = 2
	lneDefineFile       = 3
	lneSetDiscriminator = 4
	lneHPSourceFileCorr = 0x80

	lnctPath     = 1
	lnctDirIndex = 2
	lnctTime     = 3
	lnctSize     = 4
	lnctMD5      = 5
)

var errLineTable = errors.New("malformed line table")

// decodeLines decodes the line program at the start of b (its unit
// length first) as bfd's decode_line_info does. With rangesOnly, it keeps
// only the sequences' ranges, no row (see File.scanLineRanges): it fails
// where the whole decode would.
func decodeLines(b []byte, h *lineHeader, c0 cursor, rangesOnly bool) (*bfdLines, error) {
	c := c0
	c.B, c.Off = b, 0
	length := uint64(c.U32())
	is64 := false
	if length == 0xffffffff {
		length, is64 = c.U64(), true
	}
	if c.Bad || length > uint64(c.Left()) {
		return nil, errLineTable
	}
	c.B = c.B[:c.Off+int(length)]
	version := c.U16()
	if version < 2 || version > 5 {
		return nil, errLineTable
	}
	if version >= 5 {
		c.U8() // address size
		if c.U8() != 0 {
			return nil, errLineTable // segment selectors
		}
	}
	if is64 {
		c.U64()
	} else {
		c.U32()
	}
	minInsn := uint64(c.U8())
	maxOps := uint64(1)
	if version >= 4 {
		maxOps = uint64(c.U8())
	}
	if maxOps == 0 {
		return nil, errLineTable
	}
	c.U8() // default_is_stmt: bfd keeps every row
	lineBase := int64(int8(c.U8()))
	lineRange := uint64(c.U8())
	opBase := c.U8()
	var stdLen [256]uint8
	for i := 1; i < int(opBase); i++ {
		stdLen[i] = c.U8()
	}
	if c.Bad {
		return nil, errLineTable
	}
	t := &lineFiles{compDir: h.compDir, v5: version >= 5}
	if t.v5 {
		if !t.formatted(&c, h, is64, true) || !t.formatted(&c, h, is64, false) {
			return nil, errLineTable
		}
	} else {
		for {
			d := string(c.CString())
			if c.Bad {
				return nil, errLineTable
			}
			if d == "" {
				break
			}
			t.dirs = append(t.dirs, d)
		}
		for {
			f := string(c.CString())
			if c.Bad {
				return nil, errLineTable
			}
			if f == "" {
				break
			}
			dir := c.ULEB()
			c.ULEB()
			c.ULEB()
			t.files = append(t.files, lineFile{name: f, dir: dir})
		}
	}

	out := &bfdLines{files: t}
	var seqs []bfdSeq
	for c.Left() > 0 && !c.Bad {
		var (
			addr, opIndex, disc uint64
			line                int64 = 1
			file                string
			end                 bool
			seqLow, seqHigh     = ^uint64(0), uint64(0)
		)
		if len(t.files) > 0 && !rangesOnly {
			if t.v5 {
				file = t.name(0)
			} else {
				file = t.name(1)
			}
		}
		add := func(end bool) {
			if !rangesOnly {
				seqs = addRow(seqs, bfdRow{addr: addr, file: file, line: uint32(line), disc: uint32(disc), opIndex: uint8(opIndex), end: end})
			}
			disc = 0
			seqLow, seqHigh = min(seqLow, addr), max(seqHigh, addr)
		}
		for !end && c.Left() > 0 && !c.Bad {
			op := c.U8()
			if op >= opBase {
				adj := uint64(op - opBase)
				if lineRange == 0 {
					return nil, errLineTable
				}
				if maxOps == 1 {
					addr += adj / lineRange * minInsn
				} else {
					addr += (opIndex + adj/lineRange) / maxOps * minInsn
					opIndex = (opIndex + adj/lineRange) % maxOps
				}
				line += lineBase + int64(adj%lineRange)
				add(false)
				continue
			}
			switch op {
			case 0:
				n := c.ULEB()
				start := c.Off
				switch c.U8() {
				case lneEndSequence:
					end = true
					add(true)
					if seqLow != seqHigh {
						out.ranges = append(out.ranges, [2]uint64{seqLow, seqHigh})
					}
				case lneSetAddress:
					addr = c.Uint(h.addrSize)
					opIndex = 0
				case lneDefineFile:
					f := string(c.CString())
					dir := c.ULEB()
					c.ULEB()
					c.ULEB()
					t.files = append(t.files, lineFile{name: f, dir: dir})
				case lneSetDiscriminator:
					disc = c.ULEB()
				case lneHPSourceFileCorr:
					c.Off = start
					c.Take(n)
				default:
					return nil, errLineTable
				}
			case lnsCopy:
				add(false)
			case lnsAdvancePC:
				if maxOps == 1 {
					addr += minInsn * c.ULEB()
				} else {
					// bfd sets rather than advances the address here.
					adj := c.ULEB()
					addr = (opIndex + adj) / maxOps * minInsn
					opIndex = (opIndex + adj) % maxOps
				}
			case lnsAdvanceLine:
				line += c.SLEB()
			case lnsSetFile:
				if i := c.ULEB(); !rangesOnly {
					file = t.name(i)
				}
			case lnsSetColumn:
				c.ULEB()
			case lnsNegateStmt, lnsSetBasicBlock:
			case lnsConstAddPC:
				if lineRange == 0 {
					return nil, errLineTable
				}
				adj := (255 - uint64(opBase)) / lineRange
				if maxOps == 1 {
					addr += minInsn * adj
				} else {
					addr += minInsn * ((opIndex + adj) / maxOps)
					opIndex = (opIndex + adj) % maxOps
				}
			case lnsFixedAdvancePC:
				addr += uint64(c.U16())
				opIndex = 0
			default:
				for i := 0; i < int(stdLen[op]); i++ {
					c.ULEB()
				}
			}
		}
	}
	if c.Bad {
		return nil, errLineTable
	}
	out.seqs = sortSequences(seqs)
	return out, nil
}

// addRow is add_line_info: a row at the address (and op index and
// end flag) of the sequence's last row replaces it; a row after the last
// one, or one that ends the sequence, is appended; a row out of order is
// put before the first row at or after its address; a row after an
// ended sequence starts a new one.
func addRow(seqs []bfdSeq, r bfdRow) []bfdSeq {
	if n := len(seqs); n > 0 {
		s := &seqs[n-1]
		last := &s.rows[len(s.rows)-1]
		switch {
		case last.addr == r.addr && last.opIndex == r.opIndex && last.end == r.end:
			*last = r
			return seqs
		case last.end:
		case r.end || r.after(last):
			s.rows = append(s.rows, r)
			return seqs
		case s.inserts >= maxInserts:
			// So many rows out of order that inserting each would take
			// quadratic time: the rest are sorted in at the end.
			s.rows = append(s.rows, r)
			s.unsorted = true
			return seqs
		default:
			s.inserts++
			i := sort.Search(len(s.rows), func(i int) bool { return !r.after(&s.rows[i]) })
			s.rows = append(s.rows, bfdRow{})
			copy(s.rows[i+1:], s.rows[i:])
			s.rows[i] = r
			if i == 0 {
				s.low = r.addr
			}
			return seqs
		}
	}
	return append(seqs, bfdSeq{low: r.addr, rows: []bfdRow{r}, ord: len(seqs)})
}

// sortSequences is sort_line_sequences: by low address, the longer first
// among equal ones, the newer first among equal ones; nested sequences
// are dropped and overlapping ones trimmed, so the result can be
// searched.
func sortSequences(seqs []bfdSeq) []bfdSeq {
	if len(seqs) == 0 {
		return nil
	}
	for i := range seqs {
		if s := &seqs[i]; s.unsorted {
			rows := s.rows
			if rows[len(rows)-1].end {
				rows = rows[:len(rows)-1]
			}
			sort.SliceStable(rows, func(i, j int) bool { return rows[j].after(&rows[i]) })
			s.low = s.rows[0].addr
		}
	}
	sort.Slice(seqs, func(i, j int) bool {
		a, b := &seqs[i], &seqs[j]
		if a.low != b.low {
			return a.low < b.low
		}
		al, bl := &a.rows[len(a.rows)-1], &b.rows[len(b.rows)-1]
		if al.addr != bl.addr {
			return al.addr > bl.addr
		}
		if al.opIndex != bl.opIndex {
			return al.opIndex > bl.opIndex
		}
		return a.ord > b.ord
	})
	out := seqs[:1]
	lastHigh := seqs[0].rows[len(seqs[0].rows)-1].addr
	for _, s := range seqs[1:] {
		high := s.rows[len(s.rows)-1].addr
		if s.low < lastHigh {
			if high <= lastHigh {
				continue
			}
			s.low = lastHigh
		}
		lastHigh = high
		out = append(out, s)
	}
	return out
}

// lookup is lookup_address_in_line_info_table: the row covering addr.
func (t *bfdLines) lookup(addr uint64) (*bfdRow, bool) {
	if t == nil || len(t.seqs) == 0 {
		return nil, false
	}
	lo, hi := 0, len(t.seqs)
	var s *bfdSeq
	for lo < hi {
		mid := (lo + hi) / 2
		s = &t.seqs[mid]
		if addr < s.low {
			hi = mid
		} else if addr >= s.rows[len(s.rows)-1].addr {
			lo = mid + 1
		} else {
			break
		}
	}
	if s == nil || addr < s.low || addr >= s.rows[len(s.rows)-1].addr {
		return nil, false
	}
	rows := s.rows
	lo, hi = 0, len(rows)
	mid := -1
	for lo < hi {
		mid = (lo + hi) / 2
		if addr < rows[mid].addr {
			hi = mid
		} else if mid+1 < len(rows) && addr >= rows[mid+1].addr {
			lo = mid + 1
		} else {
			break
		}
	}
	if mid < 0 || mid+1 >= len(rows) {
		return nil, false
	}
	r := &rows[mid]
	if addr < r.addr || addr >= rows[mid+1].addr || r.end {
		return nil, false
	}
	return r, true
}

// lineFiles are a line table's directories and files.
type lineFiles struct {
	dirs    []string
	files   []lineFile
	compDir string
	v5      bool
}

type lineFile struct {
	name string
	dir  uint64
}

// formatted reads a DWARF 5 directory (dirs true) or file table.
func (t *lineFiles) formatted(c *cursor, h *lineHeader, is64, dirs bool) bool {
	nfmt := int(c.U8())
	type format struct{ kind, form uint64 }
	fmts := make([]format, 0, nfmt)
	for range nfmt {
		fmts = append(fmts, format{c.ULEB(), c.ULEB()})
	}
	n := c.ULEB()
	if c.Bad || nfmt == 0 && n != 0 || n > uint64(c.Left()) {
		return false
	}
	for range n {
		var f lineFile
		for _, ft := range fmts {
			switch ft.kind {
			case lnctPath:
				s, ok := h.str(ft.form, c, is64)
				if !ok {
					return false
				}
				f.name = s
			case lnctDirIndex:
				v, ok := formUint(ft.form, c)
				if !ok {
					return false
				}
				f.dir = v
			default:
				if !skipForm(ft.form, c, unitFormat{asize: h.addrSize, is64: is64, version: 5}) {
					return false
				}
			}
		}
		if c.Bad {
			return false
		}
		if dirs {
			t.dirs = append(t.dirs, f.name)
		} else {
			t.files = append(t.files, f)
		}
	}
	return true
}

// name is concat_filename: file i's name joined to its directory and the
// compilation directory as bfd joins them, "<unknown>" for a bad index.
func (t *lineFiles) name(i uint64) string {
	if !t.v5 {
		if i == 0 {
			return "<unknown>"
		}
		i--
	}
	if i >= uint64(len(t.files)) {
		return "<unknown>"
	}
	f := &t.files[i]
	if strings.HasPrefix(f.name, "/") {
		return f.name
	}
	dir := f.dir
	if !t.v5 {
		dir-- // 0 wraps: no directory
	}
	var sub string
	haveSub := dir < uint64(len(t.dirs))
	if haveSub {
		sub = t.dirs[dir]
	}
	dirName, haveDir := "", false
	if !haveSub || !strings.HasPrefix(sub, "/") {
		dirName, haveDir = t.compDir, t.compDir != ""
	}
	if !haveDir {
		dirName, haveDir = sub, haveSub
		haveSub = false
	}
	if !haveDir {
		return f.name
	}
	if haveSub {
		return dirName + "/" + sub + "/" + f.name
	}
	return dirName + "/" + f.name
}
