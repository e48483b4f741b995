package srcline

import (
	"errors"
	"sort"
)

// DWARF languages whose DW_AT_name bfd takes for a linkage name
// (mangle_style returns 0 for them in binutils 2.40).
var plainNameLangs = map[int64]bool{
	0x0001: true, // C89
	0x0002: true, // C
	0x0005: true, // Cobol74
	0x0006: true, // Cobol85
	0x0007: true, // Fortran77
	0x0009: true, // Pascal83
	0x000c: true, // C99
	0x000f: true, // PLI
	0x0012: true, // UPC
	0x001d: true, // C11
	0x8001: true, // Mips_Assembler
	0x8765: true, // Upc (GNU)
	0x8101: true, // HP_Basic91
	0x8108: true, // HP_IMacro
	0x8109: true, // HP_Assembler
}

var errBadFuncs = errors.New("malformed function entries")

// scanFuncs reads u's functions as bfd's scan_unit_for_symbols does:
// every subprogram, entry point and inlined subroutine, in entry order,
// each inlined subroutine with the innermost function around it as its
// caller, ranges as bfd reads their attributes. Names are read when a
// lookup needs them (funcName), except where an entry refers to another
// unit: those are read now, as bfd reads them, since reading the other
// unit counts among the units read.
func (f *File) scanFuncs(u *unit) error {
	info, _ := f.info.prefix(u.end)
	if uint64(len(info)) < u.end {
		return errBadFuncs
	}
	c := cursor{B: info[:u.end], Off: int(u.kids), Big: f.big}
	nested := f.nested[:0] // per nesting level
	defer func() { f.nested = nested[:0] }()
	level := 0
	nested = append(nested, nil)
	for c.Off < len(c.B) {
		at := uint64(c.Off)
		code := c.ULEB()
		if c.Bad {
			return errBadFuncs
		}
		if code == 0 {
			level--
			if level < 0 {
				return nil
			}
			continue
		}
		d := u.tab.decl(code)
		if d == nil {
			return errBadFuncs
		}
		var fi *funcInfo
		switch d.tag {
		case tagSubprogram, tagEntryPoint, tagInlinedSubroutine:
			fi = &funcInfo{inlined: d.tag == tagInlinedSubroutine, ord: len(u.funcs), callFile: -1, u: u, die: at}
			if fi.inlined {
				for i := level - 1; i >= 0; i-- {
					if nested[i] != nil {
						fi.caller = nested[i]
						break
					}
				}
			}
			u.funcs = append(u.funcs, fi)
			if err := f.funcAttrs(u, &c, d, fi); err != nil {
				return err
			}
		default:
			if err := skipVals(&c, d, u.fmt); err != nil {
				return err
			}
		}
		nested[level] = fi
		if d.children {
			level++
			if level >= len(nested) {
				nested = append(nested, nil)
			}
			nested[level] = nil
		}
	}
	return nil
}

// funcAttrs reads the attributes bfd reads of a function entry (at c,
// past its code), in the order the entry has them, but its name.
func (f *File) funcAttrs(u *unit, c *cursor, d *abbrevDecl, fi *funcInfo) error {
	var rv rangeVals
	foreign := false
	for i := range d.attrs {
		a := &d.attrs[i]
		v, err := readVal(c, a, u.fmt, u.off)
		if err != nil {
			return err
		}
		switch a.attr {
		case atCallFile:
			if n, ok := v.asInt64(); ok {
				fi.callFile = n
			}
		case atCallLine:
			if n, ok := v.asInt64(); ok {
				fi.callLine = int(n)
			}
		case atAbstractOrigin, atSpecification:
			if v.kind == valRef && (v.v < u.off || v.v >= u.end) {
				foreign = true
			}
		case atLowpc:
			rv.low = v
		case atHighpc:
			rv.high, rv.highSeen = v, true
		case atRanges:
			rv.ranges, rv.hasRanges = v, true
		}
	}
	if !f.bfdRangesOK(u, &rv) {
		// scan_unit_for_symbols fails, and the unit with it.
		return errBadFuncs
	}
	low, lowOK, high, highRel, _ := f.lowHigh(u, &rv)
	if rv.hasRanges {
		rs := f.dieRanges(u, &rv, f.rangeBuf[:0])
		if lowOK && rv.highSeen && len(rs) > 0 {
			rs = rs[1:] // Ranges put the low/high pair first
		}
		for _, r := range rs {
			fi.addRange(r[0], r[1])
		}
		f.rangeBuf = rs[:0]
	}
	if highRel {
		high += low
	}
	if high != 0 {
		fi.addRange(low, high)
	}
	if foreign {
		f.funcName(fi)
	}
	return nil
}

// funcName reads fi's name (once) as bfd's scan_unit_for_symbols does:
// DW_AT_name where none is known yet, a linkage name in any case, and
// those of the entries DW_AT_abstract_origin and DW_AT_specification
// refer to (find_abstract_instance), in the order the entry has them.
func (f *File) funcName(fi *funcInfo) {
	if fi.named {
		return
	}
	fi.named = true
	f.nameFrom(fi.u, fi.die, fi, 0, true)
}

// nameFrom reads the names of the entry at the section offset off, in
// unit u, into fi; first is true for fi's own entry, false for an
// abstract instance (whose DW_AT_abstract_origin bfd does not follow).
func (f *File) nameFrom(u *unit, off uint64, fi *funcInfo, depth int, first bool) {
	if depth >= 100 {
		return
	}
	lang := u.lang
	if off < u.off || off >= u.end {
		// A reference into another unit: its language counts.
		o := f.unitHolding(off)
		if o == nil || o.err != nil || o.tab == nil {
			return
		}
		u, lang = o, o.lang
	}
	info, _ := f.info.prefix(u.end)
	if uint64(len(info)) < u.end {
		return
	}
	c := cursor{B: info[:u.end], Off: int(off), Big: f.big}
	code := c.ULEB()
	d := u.tab.decl(code)
	if c.Bad || d == nil {
		return
	}
	for i := range d.attrs {
		a := &d.attrs[i]
		v, err := readVal(&c, a, u.fmt, u.off)
		if err != nil {
			return
		}
		switch a.attr {
		case atName:
			if s, ok := f.strVal(u, v); ok && !fi.hasName {
				fi.name, fi.hasName = s, true
				if plainNameLangs[lang] {
					fi.isLinkage = true
				}
			}
		case atAbstractOrigin:
			if first && v.kind == valRef {
				f.nameFrom(u, v.v, fi, depth+1, false)
			}
		case atSpecification:
			if v.kind == valRef {
				f.nameFrom(u, v.v, fi, depth+1, false)
			}
		case atLinkageName, atMIPSLinkageName:
			if s, ok := f.strVal(u, v); ok {
				fi.name, fi.hasName, fi.isLinkage = s, true, true
			}
		}
	}
}

// unitHolding returns the unit whose entries include the section offset
// off, reading headers from the start.
func (f *File) unitHolding(off uint64) *unit {
	for at := uint64(0); f.info != nil && at < f.info.size; {
		u := f.unitAt(at)
		if u == nil || u.end <= at {
			return nil
		}
		if off >= u.off && off < u.end {
			return u
		}
		at = u.end
	}
	return nil
}

// addRange is arange_add: an empty range is dropped, the first range
// fills the empty list, a range that touches one already there extends
// it, and any other goes after the first.
func (fi *funcInfo) addRange(low, high uint64) {
	if low == high {
		return
	}
	if len(fi.ranges) == 0 {
		fi.ranges = append(fi.ranges, [2]uint64{low, high})
		return
	}
	for i := range fi.ranges {
		r := &fi.ranges[i]
		if low == r[1] {
			r[1] = high
			return
		}
		if high == r[0] {
			r[0] = low
			return
		}
	}
	fi.ranges = append(fi.ranges, [2]uint64{})
	copy(fi.ranges[2:], fi.ranges[1:])
	fi.ranges[1] = [2]uint64{low, high}
}

// buildLookup is build_lookup_funcinfo_table: the functions sorted by
// their lowest address, each with the highest end of it and every
// function before it.
func (u *unit) buildLookup() {
	if u.lookupT != nil || len(u.funcs) == 0 {
		return
	}
	t := make([]funcLookup, len(u.funcs))
	for i, fi := range u.funcs {
		e := funcLookup{f: fi, idx: i}
		for j, r := range fi.ranges {
			if j == 0 || r[0] < e.low {
				e.low = r[0]
			}
			if j == 0 || r[1] > e.high {
				e.high = r[1]
			}
		}
		t[i] = e
	}
	sort.Slice(t, func(i, j int) bool {
		a, b := &t[i], &t[j]
		if a.low != b.low {
			return a.low < b.low
		}
		if a.high != b.high {
			return a.high < b.high
		}
		return a.idx < b.idx
	})
	high := t[0].high
	for i := 1; i < len(t); i++ {
		if t[i].high > high {
			high = t[i].high
		} else {
			t[i].high = high
		}
	}
	u.lookupT = t
}

// lookupFunc is lookup_address_in_function_table: of the functions with
// a range holding addr, the one whose range is shortest (the later one
// among equal lengths).
func (u *unit) lookupFunc(addr uint64) *funcInfo {
	if len(u.funcs) == 0 {
		return nil
	}
	u.buildLookup()
	t := u.lookupT
	if t[len(t)-1].high < addr {
		return nil
	}
	lo, hi, first := 0, len(t), len(t)
	for lo < hi {
		mid := (lo + hi) / 2
		switch {
		case addr < t[mid].low:
			hi = mid
		case addr >= t[mid].high:
			lo = mid + 1
		default:
			hi, first = mid, mid
		}
	}
	var best *funcInfo
	bestLen := ^uint64(0)
	for ; first < len(t) && addr >= t[first].low; first++ {
		fi := t[first].f
		for _, r := range fi.ranges {
			if addr < r[0] || addr >= r[1] {
				continue
			}
			if n := r[1] - r[0]; n < bestLen || n == bestLen && best != nil && fi.ord > best.ord {
				best, bestLen = fi, n
			}
		}
	}
	return best
}
