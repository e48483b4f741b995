package srcline

import (
	"debug/dwarf"
	"errors"
	"sort"
)

// attrMIPSLinkageName is DW_AT_MIPS_linkage_name.
const attrMIPSLinkageName dwarf.Attr = 0x2007

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
// caller, names and ranges as bfd reads their attributes.
func (f *File) scanFuncs(u *unit) error {
	r := u.d.Reader()
	r.Seek(dwarf.Offset(u.dieOff - u.base))
	if cu, err := r.Next(); err != nil || cu == nil {
		return errBadFuncs
	}
	var nested []*funcInfo // per nesting level
	level := 0
	nested = append(nested, nil)
	for {
		e, err := r.Next()
		if err != nil {
			return err
		}
		if e == nil {
			return nil
		}
		if e.Tag == 0 {
			level--
			if level < 0 {
				return nil
			}
			continue
		}
		var fi *funcInfo
		switch e.Tag {
		case dwarf.TagSubprogram, dwarf.TagEntryPoint, dwarf.TagInlinedSubroutine:
			fi = &funcInfo{inlined: e.Tag == dwarf.TagInlinedSubroutine, ord: len(u.funcs), callFile: -1}
			if fi.inlined {
				for i := level - 1; i >= 0; i-- {
					if nested[i] != nil {
						fi.caller = nested[i]
						break
					}
				}
			}
			u.funcs = append(u.funcs, fi)
			f.funcAttrs(u, e, fi)
		}
		nested[level] = fi
		if e.Children {
			level++
			if level >= len(nested) {
				nested = append(nested, nil)
			}
			nested[level] = nil
		}
	}
}

// funcAttrs reads the attributes bfd reads of a function entry, in the
// order the entry has them.
func (f *File) funcAttrs(u *unit, e *dwarf.Entry, fi *funcInfo) {
	var low, high uint64
	highRel, haveRanges := false, false
	for _, a := range e.Field {
		switch a.Attr {
		case dwarf.AttrCallFile:
			if v, ok := a.Val.(int64); ok {
				fi.callFile = v
			}
		case dwarf.AttrCallLine:
			if v, ok := a.Val.(int64); ok {
				fi.callLine = int(v)
			}
		case dwarf.AttrAbstractOrigin, dwarf.AttrSpecification:
			if off, ok := a.Val.(dwarf.Offset); ok {
				f.abstractName(u, off, fi, 0)
			}
		case dwarf.AttrName:
			if s, ok := a.Val.(string); ok && !fi.hasName {
				fi.name, fi.hasName = s, true
				if plainNameLangs[u.lang] {
					fi.isLinkage = true
				}
			}
		case dwarf.AttrLinkageName, attrMIPSLinkageName:
			if s, ok := a.Val.(string); ok {
				fi.name, fi.hasName, fi.isLinkage = s, true, true
			}
		case dwarf.AttrLowpc:
			if v, ok := a.Val.(uint64); ok {
				low = v
			}
		case dwarf.AttrHighpc:
			switch v := a.Val.(type) {
			case uint64:
				high = v
			case int64:
				high, highRel = uint64(v), true
			}
		case dwarf.AttrRanges:
			haveRanges = true
		}
	}
	if haveRanges {
		rs, _ := u.d.Ranges(e)
		if _, ok := e.Val(dwarf.AttrLowpc).(uint64); ok && e.Val(dwarf.AttrHighpc) != nil && len(rs) > 0 {
			rs = rs[1:] // Ranges put the low/high pair first
		}
		for _, r := range rs {
			fi.addRange(r[0], r[1])
		}
	}
	if highRel {
		high += low
	}
	if high != 0 {
		fi.addRange(low, high)
	}
}

// abstractName is find_abstract_instance for the entry at off (in u's
// data): its name (DW_AT_name when none is known yet, a linkage name in
// any case), following DW_AT_specification.
func (f *File) abstractName(u *unit, off dwarf.Offset, fi *funcInfo, depth int) {
	if depth >= 100 {
		return
	}
	r := u.d.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return
	}
	lang := u.lang
	if abs := uint64(off) + u.base; abs < u.off || abs >= u.end {
		// A reference into another unit: its language counts.
		if o := f.unitHolding(abs); o != nil {
			lang = o.lang
		}
	}
	for _, a := range e.Field {
		switch a.Attr {
		case dwarf.AttrName:
			if s, ok := a.Val.(string); ok && !fi.hasName {
				fi.name, fi.hasName = s, true
				if plainNameLangs[lang] {
					fi.isLinkage = true
				}
			}
		case dwarf.AttrSpecification:
			if o, ok := a.Val.(dwarf.Offset); ok {
				f.abstractName(u, o, fi, depth+1)
			}
		case dwarf.AttrLinkageName, attrMIPSLinkageName:
			if s, ok := a.Val.(string); ok {
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
