package srcline

import "fmt"

// unit is one unit of .debug_info as File reads it: its header, its
// unit entry, and, once an address was looked up in it, its line table
// and functions as bfd reads them.
type unit struct {
	off, end  uint64 // header offset and end in .debug_info
	dieOff    uint64 // offset of its first entry
	version   int
	asize     int
	abbrevOff uint64
	code      bool // a compile or partial unit (not a type or skeleton unit)

	fmt unitFormat
	tab *abbrevTable
	// kids is the offset of the unit entry's first child, children
	// whether it has any.
	kids     uint64
	children bool
	// The unit entry's bases: DW_AT_addr_base, DW_AT_rnglists_base and
	// DW_AT_str_offsets_base as debug/dwarf takes them (DWARF 5 units
	// only), and the base address of its range lists.
	addrBase, rngBase, strOffBase5 uint64
	rangeBase                      uint64

	lang       int64
	compDirV   attrVal
	stmt       uint64
	hasStmt    bool
	strOffBase uint64
	// ranges are bfd's unit->arange: the unit entry's ranges, and those
	// of its line sequences once decoded (lineRanges).
	ranges     [][2]uint64
	lineRanges bool
	err        error
	// bfdFail says bfd cannot read the unit entry (parse_comp_unit fails):
	// addr2line finds nothing in it or in any unit after it.
	bfdFail bool

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
	// u and die are the unit and offset of its entry, named whether its
	// name was read (funcName).
	u     *unit
	die   uint64
	named bool
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
	c := cursor{B: b, Off: int(u.off), Big: f.big}
	length := uint64(c.U32())
	is64 := false
	if length == 0xffffffff {
		length, is64 = c.U64(), true
	}
	u.end = uint64(c.Off) + length
	if length < 2 || u.end > f.info.size || u.end < uint64(c.Off) {
		u.end = f.info.size
		return fmt.Errorf("unit at %#x: bad length %d", u.off, length)
	}
	u.version = int(c.U16())
	offSize := 4
	if is64 {
		offSize = 8
	}
	utype := uint8(1) // DW_UT_compile
	switch {
	case u.version == 5:
		utype = c.U8()
		u.asize = int(c.U8())
		u.abbrevOff = c.Uint(offSize)
	case u.version >= 2 && u.version <= 4:
		u.abbrevOff = c.Uint(offSize)
		u.asize = int(c.U8())
	default:
		return fmt.Errorf("unit at %#x: DWARF version %d", u.off, u.version)
	}
	u.dieOff = uint64(c.Off)
	u.code = utype == 1 || utype == 3 // DW_UT_compile, DW_UT_partial
	if !u.code || c.Bad {
		return nil
	}
	info, err := f.info.prefix(u.end)
	if uint64(len(info)) < u.end {
		return err
	}
	u.fmt = unitFormat{asize: u.asize, is64: is64, version: u.version}
	if u.tab, err = f.abbrevTable(u.abbrevOff, u.fmt); err != nil {
		return fmt.Errorf("unit at %#x: %w", u.off, err)
	}
	c = cursor{B: info[:u.end], Off: int(u.dieOff), Big: f.big}
	code := c.ULEB()
	if c.Bad {
		return fmt.Errorf("unit at %#x: no unit entry", u.off)
	}
	if code == 0 {
		u.code = false
		return nil
	}
	d := u.tab.decl(code)
	if d == nil {
		return fmt.Errorf("unit at %#x: no unit entry: unknown abbreviation %d", u.off, code)
	}
	var rv rangeVals
	var entry attrVal
	for i := range d.attrs {
		a := &d.attrs[i]
		v, err := readVal(&c, a, u.fmt, u.off)
		if err != nil {
			return fmt.Errorf("unit at %#x: no unit entry: %v", u.off, err)
		}
		switch a.attr {
		case atLanguage:
			u.lang, _ = v.asInt64()
		case atCompDir:
			u.compDirV = v
		case atStmtList:
			if n, ok := v.asInt64(); ok && n >= 0 {
				u.stmt, u.hasStmt = uint64(n), true
			}
		case atStrOffsetsBase:
			if n, ok := v.asInt64(); ok {
				if n >= 0 {
					u.strOffBase = uint64(n)
				}
				u.strOffBase5 = uint64(n)
			}
		case atAddrBase:
			if n, ok := v.asInt64(); ok {
				u.addrBase = uint64(n)
			}
		case atRnglistsBase:
			if n, ok := v.asInt64(); ok {
				u.rngBase = uint64(n)
			}
		case atLowpc:
			rv.low = v
		case atHighpc:
			rv.high, rv.highSeen = v, true
		case atEntrypc:
			entry = v
		case atRanges:
			rv.ranges, rv.hasRanges = v, true
		}
	}
	if u.version < 5 {
		u.addrBase, u.rngBase, u.strOffBase5 = 0, 0, 0
	}
	u.kids, u.children = uint64(c.Off), d.children
	if d.tag != tagCompileUnit && d.tag != tagPartialUnit {
		u.code = false
		return nil
	}
	if a, ok := f.addrVal(u, entry); ok {
		u.rangeBase = a
	} else if a, ok := f.addrVal(u, rv.low); ok {
		u.rangeBase = a
	}
	// bfd's parse_comp_unit fails on a range list it cannot read, and
	// then reads no unit after it (stash_comp_unit).
	u.bfdFail = !f.bfdRangesOK(u, &rv)
	for _, r := range f.dieRanges(u, &rv, nil) {
		if r[0] < r[1] {
			u.ranges = append(u.ranges, r)
		}
	}
	return nil
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
	if !u.children {
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
	if rs, ok := f.cachedLineRanges(u); ok {
		u.lineRanges = true
		u.ranges = append(u.ranges, rs...)
		return
	}
	if lt := f.lineProgram(u, true); lt != nil {
		u.lineRanges = true
		u.ranges = append(u.ranges, lt.ranges...)
		f.scannedLineRanges(u, lt.ranges)
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
	c := cursor{B: b, Off: int(u.stmt), Big: f.big}
	n := uint64(c.U32())
	if n == 0xffffffff {
		n = c.U64() + 12
	} else {
		n += 4
	}
	b, _ = f.line.prefix(u.stmt + n)
	if uint64(len(b)) < u.stmt+n {
		u.bad = true
		return nil
	}
	h := &lineHeader{addrSize: u.asize, compDir: f.compDir(u), str: f.lineString(u)}
	lt, err := decodeLines(b[u.stmt:], h, cursor{Big: f.big}, rangesOnly)
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
				return c.U64()
			}
			return uint64(c.U32())
		}
		var sec []byte
		var at uint64
		switch form {
		case formString:
			s := string(c.CString())
			return s, !c.Bad
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
				i = c.ULEB()
			case formStrx1:
				i = c.Uint(1)
			case formStrx2:
				i = c.Uint(2)
			case formStrx3:
				i = c.Uint(3)
			default:
				i = c.Uint(4)
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
			oc := cursor{B: so, Off: int(p), Big: f.big}
			at = oc.Uint(int(w))
			sec = f.sharedSections().str
		default:
			return "", false
		}
		if c.Bad {
			return "", false
		}
		return cstringAt(sec, at)
	}
}

// compDir is the unit's DW_AT_comp_dir ("" when it has none).
func (f *File) compDir(u *unit) string {
	s, _ := f.strVal(u, u.compDirV)
	return s
}
