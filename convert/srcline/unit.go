package srcline

import (
	"debug/dwarf"
	"errors"
	"fmt"
)

// unit is one unit of .debug_info as File reads it: its header, a
// dwarf.Data over it, and, once an address was looked up in it, its line
// table and functions as bfd reads them.
type unit struct {
	off, end  uint64 // header offset and end in .debug_info
	dieOff    uint64 // offset of its first entry
	version   int
	asize     int
	abbrevOff uint64
	code      bool // a compile or partial unit (not a type or skeleton unit)

	d    *dwarf.Data
	base uint64 // offsets in d are section offsets less base
	cu   *dwarf.Entry

	lang       int64
	compDir    string
	stmt       uint64
	hasStmt    bool
	strOffBase uint64
	// ranges are bfd's unit->arange: the unit entry's ranges, and those
	// of its line sequences once decoded (lineRanges).
	ranges     [][2]uint64
	lineRanges bool
	err        error

	funcsRead bool
	bad       bool // bfd's unit->error: nothing is found in this unit
	lines     *bfdLines
	files     *lineFiles
	funcs     []*funcInfo
	lookupT   []funcLookup

	table *Table // Table's view, for Frames
	tried uint64 // the last lookup that tried this unit
}

// funcInfo is bfd's struct funcinfo: a subprogram, entry point or
// inlined subroutine.
type funcInfo struct {
	name      string
	hasName   bool
	isLinkage bool
	inlined   bool
	ranges    [][2]uint64 // bfd's arange list: the first, then the rest
	caller    *funcInfo
	callFile  int64 // DW_AT_call_file, -1 for none
	callLine  int
	ord       int
}

type funcLookup struct {
	f         *funcInfo
	low, high uint64
	idx       int
}

func (u *unit) contains(pc uint64) bool {
	for _, r := range u.ranges {
		if pc >= r[0] && pc < r[1] {
			return true
		}
	}
	return false
}

// unitAt reads the unit whose header is at off in .debug_info (nil when
// there is none).
func (f *File) unitAt(off uint64) *unit {
	if u, ok := f.units[off]; ok {
		return u
	}
	if f.info == nil || off >= f.info.size {
		return nil
	}
	u := &unit{off: off}
	f.units[off] = u
	f.read = append(f.read, u)
	u.err = f.readUnit(u)
	return u
}

// readUnit reads u's header and unit entry.
func (f *File) readUnit(u *unit) error {
	b, err := f.info.prefix(u.off + 24)
	if uint64(len(b)) < u.off+11 {
		u.end = f.info.size
		return fmt.Errorf("unit at %#x: truncated header: %v", u.off, err)
	}
	c := cursor{b: b, off: int(u.off), order: f.order}
	length := uint64(c.u32())
	is64 := false
	if length == 0xffffffff {
		length, is64 = c.u64(), true
	}
	u.end = uint64(c.off) + length
	if length < 2 || u.end > f.info.size || u.end < uint64(c.off) {
		u.end = f.info.size
		return fmt.Errorf("unit at %#x: bad length %d", u.off, length)
	}
	u.version = int(c.u16())
	offSize := 4
	if is64 {
		offSize = 8
	}
	utype := uint8(1) // DW_UT_compile
	switch {
	case u.version == 5:
		utype = c.u8()
		u.asize = int(c.u8())
		u.abbrevOff = c.uint(offSize)
	case u.version >= 2 && u.version <= 4:
		u.abbrevOff = c.uint(offSize)
		u.asize = int(c.u8())
	default:
		return fmt.Errorf("unit at %#x: DWARF version %d", u.off, u.version)
	}
	u.dieOff = uint64(c.off)
	u.code = utype == 1 || utype == 3 // DW_UT_compile, DW_UT_partial
	if !u.code || c.bad {
		return nil
	}
	info, err := f.info.prefix(u.end)
	if uint64(len(info)) < u.end {
		return err
	}
	needWhole, err := f.scanAbbrev(u.abbrevOff)
	if err != nil {
		return fmt.Errorf("unit at %#x: %w", u.off, err)
	}
	if needWhole {
		if f.whole == nil {
			all, err := f.info.all()
			if err != nil {
				return err
			}
			ab, err := f.abbrev.all()
			if err != nil {
				return err
			}
			if f.whole, err = f.newData(ab, all); err != nil {
				return err
			}
		}
		u.d, u.base = f.whole, 0
	} else {
		// abbrev holds the unit's table (scanAbbrev read that far).
		if u.d, err = f.newData(f.abbrev.buf, info[u.off:u.end]); err != nil {
			return err
		}
		u.base = u.off
	}
	r := u.d.Reader()
	r.Seek(dwarf.Offset(u.dieOff - u.base))
	cu, err := r.Next()
	if err != nil || cu == nil {
		return fmt.Errorf("unit at %#x: no unit entry: %v", u.off, err)
	}
	u.cu = cu
	if cu.Tag != dwarf.TagCompileUnit && cu.Tag != dwarf.TagPartialUnit {
		u.code = false
		return nil
	}
	u.lang, _ = cu.Val(dwarf.AttrLanguage).(int64)
	u.compDir, _ = cu.Val(dwarf.AttrCompDir).(string)
	if v, ok := cu.Val(dwarf.AttrStmtList).(int64); ok && v >= 0 {
		u.stmt, u.hasStmt = uint64(v), true
	}
	if v, ok := cu.Val(dwarf.AttrStrOffsetsBase).(int64); ok && v >= 0 {
		u.strOffBase = uint64(v)
	}
	if rs, err := u.d.Ranges(cu); err == nil {
		for _, r := range rs {
			if r[0] < r[1] {
				u.ranges = append(u.ranges, r)
			}
		}
	}
	return nil
}

// scanAbbrev reads the abbreviation table at off far enough to see its
// end, and reports whether it uses forms that refer across units.
func (f *File) scanAbbrev(off uint64) (needWhole bool, err error) {
	if f.abbrev == nil {
		return false, errors.New("no .debug_abbrev")
	}
	for want := off + 4096; ; want *= 2 {
		b, perr := f.abbrev.prefix(want)
		c := cursor{b: b, off: int(min(off, uint64(len(b)))), order: f.order}
		needWhole = false
		for !c.bad {
			if c.uleb() == 0 {
				break
			}
			c.uleb()
			c.u8()
			for !c.bad {
				attr, form := c.uleb(), c.uleb()
				if form == formImplicitConst {
					c.sleb()
				}
				if attr == 0 && form == 0 {
					break
				}
				switch form {
				case formRefAddr, formIndirect, formGNURefAlt:
					needWhole = true
				}
			}
		}
		if !c.bad {
			return needWhole, nil
		}
		if uint64(len(b)) >= f.abbrev.size || perr != nil {
			if perr == nil {
				perr = errors.New("abbreviation table runs past .debug_abbrev")
			}
			return false, perr
		}
	}
}

// readFuncs reads u's functions (once); u is bad when it cannot have
// any (bfd's comp_unit_maybe_decode_line_info also fails a unit whose line
// table cannot be read: that is found out when the table is needed).
func (f *File) readFuncs(u *unit) {
	if u.funcsRead {
		return
	}
	u.funcsRead = true
	if u.err != nil || !u.code || !u.hasStmt || f.line == nil {
		u.bad = true
		return
	}
	if !u.cu.Children {
		return
	}
	if err := f.scanFuncs(u); err != nil {
		u.bad = true
	}
}

// decodeLines reads u's line table (once); u is bad when it has none.
func (f *File) decodeLines(u *unit) {
	if u.lines != nil || u.bad {
		return
	}
	lt := f.lineProgram(u, false)
	if lt == nil {
		return
	}
	u.lines, u.files = lt, lt.files
	if !u.lineRanges {
		u.lineRanges = true
		u.ranges = append(u.ranges, lt.ranges...)
	}
}

// scanLineRanges adds the ranges of u's line sequences to u's, as
// decodeLines does, without keeping the rows: File.Frames reads the lines
// through u's Table, and needs from bfd's line tables only which unit
// holds an address when .debug_aranges does not say (Go's binaries have
// none, so every unit's table was decoded whole for one lookup).
func (f *File) scanLineRanges(u *unit) {
	if u.lineRanges || u.bad {
		return
	}
	if lt := f.lineProgram(u, true); lt != nil {
		u.lineRanges = true
		u.ranges = append(u.ranges, lt.ranges...)
	}
}

// lineProgram decodes u's line program (see decodeLines), nil when it
// cannot (u is then bad, as bfd's unit->error).
func (f *File) lineProgram(u *unit, rangesOnly bool) *bfdLines {
	if u.err != nil || !u.code || !u.hasStmt || f.line == nil {
		u.bad = true
		return nil
	}
	b, _ := f.line.prefix(u.stmt + 12)
	if uint64(len(b)) < u.stmt+4 {
		u.bad = true
		return nil
	}
	c := cursor{b: b, off: int(u.stmt), order: f.order}
	n := uint64(c.u32())
	if n == 0xffffffff {
		n = c.u64() + 12
	} else {
		n += 4
	}
	b, _ = f.line.prefix(u.stmt + n)
	if uint64(len(b)) < u.stmt+n {
		u.bad = true
		return nil
	}
	h := &lineHeader{addrSize: u.asize, compDir: u.compDir, str: f.lineString(u)}
	lt, err := decodeLines(b[u.stmt:], h, cursor{order: f.order}, rangesOnly)
	if err != nil {
		u.bad = true
		return nil
	}
	return lt
}

// lineString reads a string of a line table's DWARF 5 file table.
func (f *File) lineString(u *unit) func(form uint64, c *cursor, is64 bool) (string, bool) {
	return func(form uint64, c *cursor, is64 bool) (string, bool) {
		off := func() uint64 {
			if is64 {
				return c.u64()
			}
			return uint64(c.u32())
		}
		var sec []byte
		var at uint64
		switch form {
		case formString:
			s := c.cstring()
			return s, !c.bad
		case formLineStrp:
			at = off()
			sec = f.sharedSections().lineStr
		case formStrp:
			at = off()
			sec = f.sharedSections().str
		case formStrx, formStrx1, formStrx2, formStrx3, formStrx4:
			var i uint64
			switch form {
			case formStrx:
				i = c.uleb()
			case formStrx1:
				i = c.uint(1)
			case formStrx2:
				i = c.uint(2)
			case formStrx3:
				i = c.uint(3)
			default:
				i = c.uint(4)
			}
			w := uint64(4)
			if is64 {
				w = 8
			}
			so := f.sharedSections().strOffsets
			p := u.strOffBase + i*w
			if p+w > uint64(len(so)) || p < u.strOffBase {
				return "", false
			}
			oc := cursor{b: so, off: int(p), order: f.order}
			at = oc.uint(int(w))
			sec = f.sharedSections().str
		default:
			return "", false
		}
		if c.bad {
			return "", false
		}
		return cstringAt(sec, at)
	}
}
