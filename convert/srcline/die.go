package srcline

import (
	"errors"
	"fmt"
)

// This file reads debugging information entries without debug/dwarf:
// File needs only a few attributes of a few kinds of entries (the unit
// entry, subprograms and inlined subroutines), and debug/dwarf's Data
// parses every abbreviation table of what it is given and makes an
// Entry, with its Field slice and strings, of every entry it reads. The
// values are read as debug/dwarf reads them (the same forms give the
// same classes), so that File answers as it did over debug/dwarf.

// DWARF tags and attributes File reads.
const (
	tagEntryPoint        = 0x03
	tagCompileUnit       = 0x11
	tagInlinedSubroutine = 0x1d
	tagSubprogram        = 0x2e
	tagPartialUnit       = 0x3c

	atName            = 0x03
	atStmtList        = 0x10
	atLowpc           = 0x11
	atHighpc          = 0x12
	atLanguage        = 0x13
	atCompDir         = 0x1b
	atAbstractOrigin  = 0x31
	atSpecification   = 0x47
	atEntrypc         = 0x52
	atRanges          = 0x55
	atCallFile        = 0x58
	atCallLine        = 0x59
	atLinkageName     = 0x6e
	atStrOffsetsBase  = 0x72
	atAddrBase        = 0x73
	atRnglistsBase    = 0x74
	atMIPSLinkageName = 0x2007
)

// abbrevAttr is one attribute specification of an abbreviation.
type abbrevAttr struct {
	attr, form uint32
	imm        int64 // DW_FORM_implicit_const's value
}

// abbrevDecl is one abbreviation: an entry's tag, whether it has
// children, and its attributes.
type abbrevDecl struct {
	tag      uint32
	children bool
	attrs    []abbrevAttr
	// fixed is the size of the attribute values of an entry when every
	// form has one size in the table's unit format, else -1.
	fixed int
}

// abbrevTable is one abbreviation table as units of one format use it,
// parsed as far as the codes asked for, and only those: a unit whose
// unit entry alone is read (most units a lookup passes over) needs one
// abbreviation, and gcc puts the unit's last. The abbreviations passed
// over are only remembered where they start.
type abbrevTable struct {
	f    *File
	b    []byte // the section's prefix read so far
	next int    // offset of the first abbreviation not seen, -1 after the last
	uf   unitFormat
	// dense holds small codes' abbreviations (nil: not parsed) and
	// where they start (0: not seen; else 1 + the offset), sparse the
	// others.
	dense  []*abbrevDecl
	at     []int32
	sparse map[uint64]*abbrevDecl
	// out is whether a form refers across units (DW_FORM_ref_addr and
	// the like, DW_FORM_indirect that may be one), once all are parsed.
	out bool
}

// refersOut reports whether entries of the table may refer into other
// units (it parses the whole table).
func (t *abbrevTable) refersOut() bool {
	if t == nil {
		return false
	}
	for t.next >= 0 {
		t.see(0)
	}
	for code := range t.dense {
		t.decl(uint64(code) + 1)
	}
	return t.out
}

// decl returns the abbreviation of code, nil when the table has none (a
// code given twice is its first abbreviation).
func (t *abbrevTable) decl(code uint64) *abbrevDecl {
	for {
		if code-1 < uint64(len(t.dense)) {
			if d := t.dense[code-1]; d != nil {
				return d
			}
			if at := t.at[code-1]; at > 0 {
				c := cursor{B: t.b, Off: int(at - 1)}
				_, d, _ := t.parseDecl(&c)
				t.dense[code-1] = d
				return d
			}
		} else if d := t.sparse[code]; d != nil {
			return d
		}
		if t.next < 0 {
			return nil
		}
		t.see(code)
	}
}

// see passes over the next abbreviation, remembering where it starts, and
// parses it when it is the one of code (which sparse codes always are).
// It reads more of the section as needed.
func (t *abbrevTable) see(code uint64) {
	for {
		c := cursor{B: t.b, Off: t.next}
		got := c.ULEB()
		if !c.Bad && got == 0 {
			t.next = -1
			return
		}
		var d *abbrevDecl
		ok := false
		if !c.Bad {
			if got == code || got > 1<<16 {
				c.Off = t.next
				_, d, ok = t.parseDecl(&c)
			} else {
				ok = skipDecl(&c)
			}
		}
		if ok {
			start := t.next
			t.next = c.Off
			if got > 1<<16 {
				if t.sparse == nil {
					t.sparse = map[uint64]*abbrevDecl{}
				}
				if t.sparse[got] == nil {
					t.sparse[got] = d
				}
				return
			}
			if got > uint64(len(t.dense)) {
				if got > uint64(cap(t.dense)) {
					n := max(2*cap(t.dense), int(got), 16)
					nd, na := make([]*abbrevDecl, got, n), make([]int32, got, n)
					copy(nd, t.dense)
					copy(na, t.at)
					t.dense, t.at = nd, na
				}
				t.dense, t.at = t.dense[:got], t.at[:got]
			}
			if t.at[got-1] == 0 {
				t.at[got-1] = int32(start + 1)
				t.dense[got-1] = d
			}
			return
		}
		// The abbreviation runs past what is read: read more, or end
		// the table at the end of the section.
		sec := t.f.abbrev
		if uint64(len(t.b)) >= sec.size || len(t.b) >= 1<<31-1 {
			t.next = -1
			return
		}
		b, err := sec.prefix(uint64(len(t.b)) * 2)
		if err != nil || len(b) <= len(t.b) {
			t.next = -1
			return
		}
		t.b = b
	}
}

// skipDecl passes over an abbreviation after its code.
func skipDecl(c *cursor) bool {
	c.ULEB()
	c.U8()
	for !c.Bad {
		attr, form := c.ULEB(), c.ULEB()
		if form == formImplicitConst {
			c.SLEB()
		}
		if attr == 0 && form == 0 {
			break
		}
	}
	return !c.Bad
}

// parseDecl parses one abbreviation at c; its attributes go to the
// File's slab (abbreviations are many and small).
func (t *abbrevTable) parseDecl(c *cursor) (uint64, *abbrevDecl, bool) {
	code := c.ULEB()
	if c.Bad || code == 0 {
		return 0, nil, !c.Bad
	}
	tag, children := uint32(c.ULEB()), c.U8() == 1
	f := t.f
	tmp := f.attrTmp[:0]
	for {
		attr, form := c.ULEB(), c.ULEB()
		var imm int64
		if form == formImplicitConst {
			imm = c.SLEB()
		}
		if c.Bad {
			f.attrTmp = tmp
			return 0, nil, false
		}
		if attr == 0 && form == 0 {
			break
		}
		tmp = append(tmp, abbrevAttr{attr: uint32(attr), form: uint32(form), imm: imm})
		switch form {
		case formRefAddr, formIndirect, formGNURefAlt:
			t.out = true
		}
	}
	f.attrTmp = tmp
	if cap(f.attrSlab)-len(f.attrSlab) < len(tmp) {
		f.attrSlab = make([]abbrevAttr, 0, max(4096, len(tmp)))
	}
	n := len(f.attrSlab)
	f.attrSlab = append(f.attrSlab, tmp...)
	if len(f.declSlab) == cap(f.declSlab) {
		f.declSlab = make([]abbrevDecl, 0, 1024)
	}
	f.declSlab = append(f.declSlab, abbrevDecl{tag: tag, children: children, attrs: f.attrSlab[n:len(f.attrSlab):len(f.attrSlab)]})
	d := &f.declSlab[len(f.declSlab)-1]
	d.fixed = fixedSize(d.attrs, t.uf)
	return code, d, true
}

// unitFormat is what the sizes of values depend on.
type unitFormat struct {
	asize   int
	is64    bool
	version int
}

func (u unitFormat) offSize() int {
	if u.is64 {
		return 8
	}
	return 4
}

// refAddrSize is DW_FORM_ref_addr's size: an address in DWARF 2, an
// offset after.
func (u unitFormat) refAddrSize() int {
	if u.version == 2 {
		return u.asize
	}
	return u.offSize()
}

type abbrevKey struct {
	off uint64
	fmt unitFormat
}

// abbrevTable returns the abbreviation table at off in .debug_abbrev for
// units of format uf.
func (f *File) abbrevTable(off uint64, uf unitFormat) (*abbrevTable, error) {
	k := abbrevKey{off, uf}
	if t, ok := f.abbrevs[k]; ok {
		return t, nil
	}
	if f.abbrev == nil {
		return nil, errors.New("no .debug_abbrev")
	}
	b, err := f.abbrev.prefix(off + 4096)
	if off >= uint64(len(b)) {
		if err == nil {
			err = fmt.Errorf("abbreviation table at %#x is past .debug_abbrev", off)
		}
		return nil, err
	}
	t := &abbrevTable{f: f, b: b, next: int(off), uf: uf}
	if f.abbrevs == nil {
		f.abbrevs = map[abbrevKey]*abbrevTable{}
	}
	f.abbrevs[k] = t
	return t, nil
}

// fixedSize is the size of values of attrs when every form has one
// size, else -1.
func fixedSize(attrs []abbrevAttr, uf unitFormat) int {
	n := 0
	for _, a := range attrs {
		s := formSize(uint64(a.form), uf)
		if s < 0 {
			return -1
		}
		n += s
	}
	return n
}

// formSize is the size of a value of form, -1 when it varies or the
// form is unknown.
func formSize(form uint64, uf unitFormat) int {
	switch form {
	case formAddr:
		return uf.asize
	case formData1, formRef1, formFlag, formStrx1, formAddrx1:
		return 1
	case formData2, formRef2, formStrx2, formAddrx2:
		return 2
	case formStrx3, formAddrx3:
		return 3
	case formData4, formRef4, formRefSup4, formStrx4, formAddrx4:
		return 4
	case formData8, formRef8, formRefSig8, formRefSup8:
		return 8
	case formData16:
		return 16
	case formStrp, formLineStrp, formSecOffset, formStrpSup, formGNURefAlt, formGNUStrpAlt:
		return uf.offSize()
	case formRefAddr:
		return uf.refAddrSize()
	case formFlagPresent, formImplicitConst:
		return 0
	}
	return -1
}

// Kinds of attribute values, as debug/dwarf's Val types them.
const (
	valNone   = iota
	valAddr   // uint64 address (DW_FORM_addr)
	valAddrx  // index into .debug_addr (an address once resolved)
	valConst  // int64 constant
	valRef    // dwarf.Offset: an entry's offset in .debug_info
	valStr    // string in .debug_str (off)
	valLine   // string in .debug_line_str (off)
	valInline // string in .debug_info (off)
	valStrx   // index into .debug_str_offsets
	valRngx   // index into the unit's range list offsets
	valOther  // a value File does not use
)

// attrVal is an attribute's value, not resolved yet where that would
// need another section.
type attrVal struct {
	kind uint8
	v    uint64
}

// asInt64 is the value as debug/dwarf's int64 (constants and section
// offsets).
func (a attrVal) asInt64() (int64, bool) {
	if a.kind == valConst {
		return int64(a.v), true
	}
	return 0, false
}

var errUnknownForm = errors.New("unknown attribute form")

// readVal reads a value of form at c.
func readVal(c *cursor, a *abbrevAttr, uf unitFormat, unitOff uint64) (attrVal, error) {
	form := uint64(a.form)
	for form == formIndirect {
		form = c.ULEB()
	}
	off := func() uint64 { return c.Uint(uf.offSize()) }
	var v attrVal
	switch form {
	case formAddr:
		if uf.asize != 1 && uf.asize != 2 && uf.asize != 4 && uf.asize != 8 {
			return v, fmt.Errorf("address size %d", uf.asize)
		}
		v = attrVal{valAddr, c.Uint(uf.asize)}
	case formAddrx, formGNUAddrIndex:
		if form == formGNUAddrIndex {
			return v, errUnknownForm
		}
		v = attrVal{valAddrx, c.ULEB()}
	case formAddrx1, formAddrx2, formAddrx3, formAddrx4:
		v = attrVal{valAddrx, c.Uint(int(form-formAddrx1) + 1)}
	case formData1:
		v = attrVal{valConst, uint64(c.U8())}
	case formData2:
		v = attrVal{valConst, uint64(c.U16())}
	case formData4:
		v = attrVal{valConst, uint64(c.U32())}
	case formData8:
		v = attrVal{valConst, c.U64()}
	case formUdata:
		v = attrVal{valConst, c.ULEB()}
	case formSdata:
		v = attrVal{valConst, uint64(c.SLEB())}
	case formImplicitConst:
		v = attrVal{valConst, uint64(a.imm)}
	case formSecOffset, formGNURefAlt, formGNUStrpAlt:
		v = attrVal{valConst, off()}
	case formRefAddr:
		v = attrVal{valRef, c.Uint(uf.refAddrSize())}
	case formRef1:
		v = attrVal{valRef, unitOff + uint64(c.U8())}
	case formRef2:
		v = attrVal{valRef, unitOff + uint64(c.U16())}
	case formRef4:
		v = attrVal{valRef, unitOff + uint64(c.U32())}
	case formRef8:
		v = attrVal{valRef, unitOff + c.U64()}
	case formRefUdata:
		v = attrVal{valRef, unitOff + c.ULEB()}
	case formString:
		at := c.Off
		for c.Off < len(c.B) && c.B[c.Off] != 0 {
			c.Off++
		}
		c.U8()
		v = attrVal{valInline, uint64(at)}
	case formStrp:
		v = attrVal{valStr, off()}
	case formLineStrp:
		v = attrVal{valLine, off()}
	case formStrx:
		v = attrVal{valStrx, c.ULEB()}
	case formStrx1, formStrx2, formStrx3, formStrx4:
		v = attrVal{valStrx, c.Uint(int(form-formStrx1) + 1)}
	case formRnglistx:
		v = attrVal{valRngx, c.ULEB()}
	default:
		if !skipForm(form, c, uf) || form == formGNUStrIndex {
			return v, errUnknownForm
		}
		v = attrVal{kind: valOther}
	}
	if c.Bad {
		return attrVal{}, errors.New("entry runs past its unit")
	}
	return v, nil
}

// skipVals skips the values of an entry of abbreviation d.
func skipVals(c *cursor, d *abbrevDecl, uf unitFormat) error {
	if d.fixed >= 0 {
		c.Take(uint64(d.fixed))
	} else {
		for i := range d.attrs {
			form := uint64(d.attrs[i].form)
			for form == formIndirect {
				form = c.ULEB()
			}
			if form == formGNUAddrIndex || form == formGNUStrIndex || !skipForm(form, c, uf) {
				if c.Bad {
					break
				}
				return errUnknownForm
			}
		}
	}
	if c.Bad {
		return errors.New("entry runs past its unit")
	}
	return nil
}

// str resolves a string value of an entry of unit u.
func (f *File) strVal(u *unit, v attrVal) (string, bool) {
	switch v.kind {
	case valInline:
		b, _ := f.info.prefix(u.end)
		return cstringAt(b[:min(uint64(len(b)), u.end)], v.v)
	case valStr:
		return cstringAt(f.sharedSections().str, v.v)
	case valLine:
		return cstringAt(f.sharedSections().lineStr, v.v)
	case valStrx:
		w := uint64(u.fmt.offSize())
		so := f.sharedSections().strOffsets
		p := u.strOffBase5 + v.v*w
		if p+w > uint64(len(so)) || p+w < p {
			return "", false
		}
		c := cursor{B: so, Off: int(p), Big: f.big}
		return cstringAt(f.sharedSections().str, c.Uint(int(w)))
	}
	return "", false
}

// addr resolves an address value of an entry of unit u (debug/dwarf's
// debugAddr for DW_FORM_addrx).
func (f *File) addrVal(u *unit, v attrVal) (uint64, bool) {
	switch v.kind {
	case valAddr:
		return v.v, true
	case valAddrx:
		return f.debugAddr(u, v.v)
	}
	return 0, false
}

func (f *File) debugAddr(u *unit, idx uint64) (uint64, bool) {
	a := f.sharedSections().addr
	w := uint64(u.fmt.asize)
	p := u.addrBase + idx*w
	if a == nil || w == 0 || p+w > uint64(len(a)) || p+w < p || (idx*w)/w != idx {
		return 0, false
	}
	c := cursor{B: a, Off: int(p), Big: f.big}
	return c.Uint(u.fmt.asize), true
}

// rangeVals are the attributes of an entry its ranges come from.
type rangeVals struct {
	low, high attrVal
	highSeen  bool
	ranges    attrVal
	hasRanges bool
}

// lowHigh resolves an entry's DW_AT_low_pc and DW_AT_high_pc as
// debug/dwarf types them: high is an address, or an offset from low
// when rel (a constant form); highOK is false when high_pc has neither
// form or its address cannot be read (high is then 0).
func (f *File) lowHigh(u *unit, rv *rangeVals) (low uint64, lowOK bool, high uint64, rel, highOK bool) {
	low, lowOK = f.addrVal(u, rv.low)
	switch rv.high.kind {
	case valAddr, valAddrx:
		high, highOK = f.addrVal(u, rv.high)
	case valConst:
		high, rel, highOK = rv.high.v, true, true
	}
	return low, lowOK, high, rel, highOK
}

// dieRanges is debug/dwarf's Data.Ranges for an entry of unit u: the
// low/high pair first, then the range list (nil when the list cannot be
// read).
func (f *File) dieRanges(u *unit, rv *rangeVals, ret [][2]uint64) [][2]uint64 {
	low, lowOK, high, rel, highOK := f.lowHigh(u, rv)
	if rel {
		high += low
	}
	if lowOK && highOK {
		ret = append(ret, [2]uint64{low, high})
	}
	if !rv.hasRanges {
		return ret
	}
	s := f.sharedSections()
	if u.fmt.version >= 5 && s.rnglists != nil {
		var off uint64
		switch rv.ranges.kind {
		case valConst:
			off = rv.ranges.v
		case valRngx:
			w := uint64(u.fmt.offSize())
			p := u.rngBase + rv.ranges.v*w
			if p+w > uint64(len(s.rnglists)) || p+w < p {
				return nil
			}
			c := cursor{B: s.rnglists, Off: int(p), Big: f.big}
			off = u.rngBase + c.Uint(int(w))
		default:
			return ret
		}
		return f.rnglist(u, off, ret)
	}
	if rv.ranges.kind == valConst && s.ranges != nil {
		return f.rangeList(u, rv.ranges.v, ret)
	}
	return ret
}

// bfdRangesOK reports whether binutils 2.40 reads the range list of an
// entry (rv) without error (bfd's read_rangelist). Its read_rnglists knows
// no .debug_addr ("TODO x-variants need .debug_addr support"): a DWARF 5
// list with DW_RLE_base_addressx, DW_RLE_startx_endx or
// DW_RLE_startx_length fails, as one that runs off its section does. Go's
// linker (1.25 and later) writes DW_RLE_base_addressx in every unit entry,
// so bfd reads no unit of a Go binary, and addr2line names its code from
// the symbol table alone ("go.go:?", after Go's STT_FILE symbol).
func (f *File) bfdRangesOK(u *unit, rv *rangeVals) bool {
	if !rv.hasRanges || rv.ranges.kind != valConst {
		return true
	}
	s := f.sharedSections()
	off, asize := rv.ranges.v, uint64(u.fmt.asize)
	if u.fmt.version <= 4 {
		if s.ranges == nil || off > uint64(len(s.ranges)) {
			return false
		}
		c := cursor{B: s.ranges, Off: int(off), Big: f.big}
		for {
			if uint64(c.Left()) < 2*asize {
				return false
			}
			low, high := c.Uint(int(asize)), c.Uint(int(asize))
			if low == 0 && high == 0 {
				return true
			}
		}
	}
	if s.rnglists == nil || off > uint64(len(s.rnglists)) {
		return false
	}
	c := cursor{B: s.rnglists, Off: int(off), Big: f.big}
	for {
		if c.Left() <= 0 {
			return false
		}
		switch c.U8() {
		case 0: // DW_RLE_end_of_list
			return true
		case 4: // DW_RLE_offset_pair
			c.ULEB()
			c.ULEB()
		case 5: // DW_RLE_base_address
			if uint64(c.Left()) < asize {
				return false
			}
			c.Uint(int(asize))
		case 6: // DW_RLE_start_end
			if uint64(c.Left()) < 2*asize {
				return false
			}
			c.Uint(int(asize))
			c.Uint(int(asize))
		case 7: // DW_RLE_start_length
			if uint64(c.Left()) < asize {
				return false
			}
			c.Uint(int(asize))
			c.ULEB()
		default:
			return false
		}
	}
}

// rangeList is debug/dwarf's dwarf2Ranges: a .debug_ranges list.
func (f *File) rangeList(u *unit, off uint64, ret [][2]uint64) [][2]uint64 {
	b := f.sharedSections().ranges
	if int64(off) < 0 || off > uint64(len(b)) {
		return nil
	}
	base := u.rangeBase
	asize := u.fmt.asize
	if asize < 1 || asize > 8 {
		return ret
	}
	maxAddr := ^uint64(0) >> uint((8-asize)*8)
	c := cursor{B: b, Off: int(off), Big: f.big}
	for c.Left() > 0 {
		low, high := c.Uint(asize), c.Uint(asize)
		if c.Bad || low == 0 && high == 0 {
			break
		}
		if low == maxAddr {
			base = high
		} else {
			ret = append(ret, [2]uint64{base + low, base + high})
		}
	}
	return ret
}

// rnglist is debug/dwarf's dwarf5Ranges: a .debug_rnglists list.
func (f *File) rnglist(u *unit, off uint64, ret [][2]uint64) [][2]uint64 {
	b := f.sharedSections().rnglists
	if int64(off) < 0 || off > uint64(len(b)) {
		return nil
	}
	base := u.rangeBase
	asize := u.fmt.asize
	c := cursor{B: b, Off: int(off), Big: f.big}
	for {
		op := c.U8()
		if c.Bad {
			return nil
		}
		switch op {
		case 0: // DW_RLE_end_of_list
			return ret
		case 1: // DW_RLE_base_addressx
			a, ok := f.debugAddr(u, c.ULEB())
			if !ok {
				return nil
			}
			base = a
		case 2: // DW_RLE_startx_endx
			s, ok1 := f.debugAddr(u, c.ULEB())
			e, ok2 := f.debugAddr(u, c.ULEB())
			if !ok1 || !ok2 {
				return nil
			}
			ret = append(ret, [2]uint64{s, e})
		case 3: // DW_RLE_startx_length
			s, ok := f.debugAddr(u, c.ULEB())
			n := c.ULEB()
			if !ok {
				return nil
			}
			ret = append(ret, [2]uint64{s, s + n})
		case 4: // DW_RLE_offset_pair
			a, b := c.ULEB(), c.ULEB()
			ret = append(ret, [2]uint64{base + a, base + b})
		case 5: // DW_RLE_base_address
			base = c.Uint(asize)
		case 6: // DW_RLE_start_end
			s, e := c.Uint(asize), c.Uint(asize)
			ret = append(ret, [2]uint64{s, e})
		case 7: // DW_RLE_start_length
			s := c.Uint(asize)
			ret = append(ret, [2]uint64{s, s + c.ULEB()})
		}
	}
}
