// Package srcline maps instruction addresses of an ELF binary to source
// positions using its DWARF debug information, the way binutils'
// `addr2line -i -f` does: the line-table row that covers an address, the
// function that contains it, and the chain of inlined calls around it.
//
// A Table is built once per binary (Open or New) and is then read-only and
// safe for concurrent use. Addresses are the binary's own virtual addresses
// (st_value / p_vaddr space); callers translate run-time addresses of a
// mapping (PIE, shared objects) before looking them up.
//
//	t, err := srcline.Open("/usr/bin/prog")
//	frames := t.Frames(pc, nil) // innermost first, like addr2line -i
//	row, ok := t.Line(pc)       // the covering line-table row
//	fn, ok := t.Func(pc)        // the out-of-line function (DW_TAG_subprogram)
//
// Rows gives the whole line table sorted by address (for coverage: which
// lines have code and which address ranges belong to each line), Funcs the
// functions sorted by address.
//
// A File answers for the few addresses a profile asks about without
// reading the whole binary: .debug_aranges says which compile unit holds
// an address, and only that unit is read (compressed sections are
// inflated only as far as it). Its Frames, Line and Func answer as a
// Table's; its Addr2line answers as binutils 2.40's `addr2line -f -i`
// does, bfd's quirks included, because perf 6.1 prints what addr2line
// prints (inlined frames and source lines):
//
//	f, err := srcline.OpenFile("/usr/lib/debug/.build-id/93/ac61....debug")
//	recs, ok := f.Addr2line(pc, nil) // addr2line's records, innermost first
package srcline
