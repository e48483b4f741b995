package srcline

import "debug/elf"

// Record is one record `addr2line -f -i` prints for an address: a
// function name and a position.
type Record struct {
	// Func is the name as addr2line prints it (not demangled), "??"
	// when it knows none.
	Func string
	// File is the file name as addr2line prints it, "??" when it knows
	// none (it may be empty: an empty STT_FILE symbol).
	File string
	// Line is the line, 0 when unknown (addr2line prints "?").
	Line int
	// Discriminator is the DWARF discriminator of the first record's
	// row, 0 when none (addr2line prints it with every record).
	Discriminator int
}

// Addr2line appends to dst the records binutils 2.40's `addr2line -f -i
// -e FILE` prints for pc: the innermost function with the position of
// pc, then each function it is inlined in with the position of the call.
// ok is false where addr2line prints "??" and "??:0" (no section holds
// pc, or neither DWARF nor the symbol table knows it), which perf takes
// for a failed lookup.
//
// It answers as bfd does, quirks included (see bfdLines, lookupFunc and
// nearest): where DWARF gives no function, or gives a name that bfd does
// not take for a linkage name (DW_AT_name outside C and the like), the
// symbol table names the function, and bfd remembers that choice for
// the function's later lookups, so that answers depend on the order of
// the questions, as they do for perf's long-running addr2line process.
func (f *File) Addr2line(pc uint64, dst []Record) ([]Record, bool) {
	return f.addr2line(pc, dst, true)
}

// Addr2lineNames is Addr2line without the positions (every File is "??",
// every Line 0): the line tables are then read only where the functions
// alone do not decide the answer, and the answers (and bfd's state) are
// Addr2line's otherwise. perf needs no more for the names of inlined
// frames unless it prints source lines.
func (f *File) Addr2lineNames(pc uint64, dst []Record) ([]Record, bool) {
	return f.addr2line(pc, dst, false)
}

func (f *File) addr2line(pc uint64, dst []Record, lines bool) ([]Record, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.allocSecs {
		if pc < s.addr || pc-s.addr >= s.size {
			continue
		}
		if out, ok := f.nearest(s.idx, pc, dst, lines); ok {
			return out, true
		}
	}
	return dst, false
}

// nearest is bfd_find_nearest_line for pc in section sec followed by
// bfd_find_inliner_info (_bfd_dwarf2_find_nearest_line_with_alt and
// _bfd_elf_find_nearest_line in bfd 2.40).
func (f *File) nearest(sec elf.SectionIndex, pc uint64, dst []Record, lines bool) ([]Record, bool) {
	var fn *funcInfo
	var row *bfdRow
	var u *unit
	found := false
	if f.info != nil {
		u, fn, row, found = f.search(pc, lines)
	}
	rec := Record{Func: "??", File: "??"}
	fileKnown := false
	if row != nil && lines {
		rec.Line, rec.Discriminator = int(row.line), int(row.disc)
		if row.file != "" {
			rec.File, fileKnown = row.file, true
		}
	}
	if fn != nil {
		f.funcName(fn)
	}
	if fn != nil && fn.isLinkage {
		if fn.hasName && fn.name != "" {
			rec.Func = fn.name
		}
		found = true
	} else {
		sym, symFile, haveFile := f.elf().find(sec, pc)
		if sym != nil {
			if sym.name != "" {
				rec.Func = sym.name
			}
			if !fileKnown && lines {
				rec.File = "??"
				if haveFile {
					rec.File = symFile
				}
			}
			found = true
		}
		if fn != nil {
			// bfd takes the symbol's name for the function's own when
			// the symbol starts where the function does, and stops
			// asking the symbol table about it either way.
			switch {
			case sym == nil:
				if fn.hasName && fn.name != "" {
					rec.Func = fn.name
				}
			case len(fn.ranges) > 0 && sym.value == fn.ranges[0][0]:
				fn.name, fn.hasName = sym.name, true
			}
			fn.isLinkage = true
		}
	}
	if !found {
		return dst, false
	}
	dst = append(dst, rec)
	if fn != nil && fn.inlined {
		for in := fn; in.caller != nil; in = in.caller {
			// addr2line prints the first record's discriminator on
			// every line.
			r := Record{Func: "??", File: "??", Discriminator: rec.Discriminator}
			if lines {
				r.Line = in.callLine
			}
			f.funcName(in.caller)
			if c := in.caller; c.hasName && c.name != "" {
				r.Func = c.name
			}
			if lines && in.callFile >= 0 && u.files != nil {
				if name := u.files.name(uint64(in.callFile)); name != "" {
					r.File = name
				}
			}
			dst = append(dst, r)
			if len(dst) > 1<<16 {
				break
			}
		}
	}
	return dst, true
}

func (f *File) elf() *elfFuncs {
	if f.elfFuncs == nil {
		f.elfFuncs = loadELFFuncs(f.symEF)
	}
	return f.elfFuncs
}

// search looks pc up in the units as bfd does: first in the units read
// so far that hold it (or have no ranges), then, where .debug_aranges
// names units for pc, in those, and last in the units not read yet, in
// file order. bfd reads the units in file order only; .debug_aranges
// lets a lookup skip the units before the one it needs.
func (f *File) search(pc uint64, lines bool) (*unit, *funcInfo, *bfdRow, bool) {
	f.query++
	q := f.query
	try := func(u *unit) (*funcInfo, *bfdRow, bool) {
		if u == nil || u.tried == q || u.err != nil || !u.code || u.bfdFail || u.off >= f.bfdStop {
			return nil, nil, false
		}
		if len(u.ranges) > 0 && !u.contains(pc) {
			return nil, nil, false
		}
		u.tried = q
		f.readFuncs(u)
		if u.bad {
			return nil, nil, false
		}
		fn := u.lookupFunc(pc)
		if fn != nil && !lines {
			// Found, whatever the line table says.
			return fn, nil, true
		}
		f.decodeLines(u)
		if u.bad {
			return nil, nil, false
		}
		row, lineOK := u.lines.lookup(pc)
		return fn, row, lineOK || fn != nil
	}
	for i := 0; i < len(f.read); i++ {
		if fn, row, ok := try(f.read[i]); ok {
			return f.read[i], fn, row, true
		}
	}
	f.arBuf = f.arangesUnits(pc, f.arBuf[:0])
	for _, off := range f.arBuf {
		u := f.unitAt(off)
		if fn, row, ok := try(u); ok {
			return u, fn, row, true
		}
	}
	for f.next < f.info.size {
		u := f.unitAt(f.next)
		if u == nil || u.end <= f.next {
			f.next = f.info.size
			break
		}
		if u.bfdFail {
			// bfd trusts nothing after a unit it cannot parse.
			f.bfdStop = u.off
			f.next = f.info.size
			break
		}
		f.next = u.end
		if fn, row, ok := try(u); ok {
			return u, fn, row, true
		}
	}
	return nil, nil, nil, false
}
