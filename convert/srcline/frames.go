package srcline

import (
	"debug/dwarf"
	"sort"
)

// Frames is Table.Frames for pc, built from the one unit that holds pc.
func (f *File) Frames(pc uint64, dst []Frame) []Frame {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := f.unitFor(pc)
	if u == nil {
		return dst
	}
	t := f.tableOf(u)
	return t.Frames(pc, dst)
}

// Line is Table.Line for pc.
func (f *File) Line(pc uint64) (file string, line int, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := f.unitFor(pc)
	if u == nil {
		return "", 0, false
	}
	t := f.tableOf(u)
	row, ok := t.Line(pc)
	if !ok {
		return "", 0, false
	}
	return t.FileName(row.File), int(row.Line), true
}

// Func is Table.Func for pc (the function is the unit's own copy), but
// for the function's local variables, which it does not know:
// LocalSlots, ScopedSlots, AggregateLocals, AggregateFrom and
// AggregateScopes are empty.
func (f *File) Func(pc uint64) (Func, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := f.unitFor(pc)
	if u == nil {
		return Func{}, false
	}
	fn, ok := f.tableOf(u).Func(pc)
	if !ok {
		return Func{}, false
	}
	return *fn, true
}

// unitFor returns the unit whose ranges hold pc: the one .debug_aranges
// names, else the first in file order (all units are read then).
func (f *File) unitFor(pc uint64) *unit {
	if f.info == nil {
		return nil
	}
	f.arBuf = f.arangesUnits(pc, f.arBuf[:0])
	for _, off := range f.arBuf {
		if u := f.unitAt(off); u != nil && u.err == nil && u.code && u.contains(pc) {
			return u
		}
	}
	if !f.allRead {
		f.allRead = true
		for at := uint64(0); at < f.info.size; {
			u := f.unitAt(at)
			if u == nil || u.end <= at {
				break
			}
			at = u.end
		}
		f.byRange = f.byRange[:0]
		for _, u := range f.read {
			if u.err != nil || !u.code {
				continue
			}
			// The ranges of its line sequences count too (bfd adds
			// them to the unit's).
			f.scanLineRanges(u)
			for _, r := range u.ranges {
				f.byRange = append(f.byRange, arange{lo: r[0], hi: r[1], cu: u.off})
			}
		}
		sort.SliceStable(f.byRange, func(i, j int) bool { return f.byRange[i].cu < f.byRange[j].cu })
	}
	for _, a := range f.byRange {
		if pc >= a.lo && pc < a.hi {
			return f.units[a.cu]
		}
	}
	return nil
}

// tableOf returns u's Table, built on first use.
func (f *File) tableOf(u *unit) *Table {
	if u.table != nil {
		return u.table
	}
	if t := f.cachedTable(u); t != nil {
		u.table = t
		return t
	}
	u.table = &Table{}
	var line []byte
	if u.hasStmt && f.line != nil {
		b, _ := f.line.prefix(u.stmt + 12)
		if uint64(len(b)) >= u.stmt+4 {
			c := cursor{B: b, Off: int(u.stmt), Big: f.big}
			n := uint64(c.U32()) + 4
			if n == 0xffffffff+4 {
				n = c.U64() + 12
			}
			line, _ = f.line.prefix(u.stmt + n)
		}
	}
	// A unit that refers into others (DW_FORM_ref_addr) needs all of
	// them in its dwarf.Data.
	var info []byte
	base := uint64(0)
	ab := f.abbrev.buf // holds the unit's table (abbrevTable read it)
	if u.tab.refersOut() {
		info, _ = f.info.all()
		ab, _ = f.abbrev.all()
	} else {
		b, _ := f.info.prefix(u.end)
		info, base = b[u.off:u.end], u.off
	}
	d, err := f.newDataLines(ab, info, line)
	if err != nil {
		return u.table
	}
	b := newBuilder(d, u.table)
	// Frames, Line and Func's callers need no local variables (gcov,
	// which does, reads a whole Table): looking up their types was a
	// twentieth of building a Go unit's table.
	b.noLocals = true
	// A line program takes 3.4 bytes a row in Go's binaries, more in
	// gcc's.
	if u.stmt < uint64(len(line)) {
		b.rowHint = (len(line) - int(u.stmt)) / 3
	}
	r := d.Reader()
	r.Seek(dwarf.Offset(u.dieOff - base))
	cu, err := r.Next()
	if err != nil || cu == nil {
		return u.table
	}
	err = b.compUnit(r, cu)
	u.table = b.finish()
	if err == nil {
		f.builtTable(u)
	}
	return u.table
}
