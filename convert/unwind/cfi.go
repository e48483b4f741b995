package unwind

import (
	"errors"
	"iter"
	"sort"
	"sync"
)

// Errors of a CFI lookup or step. ErrNoInfo is libunwind's UNW_ENOINFO: the
// module has unwind tables, but none covers the pc (the stepper then tries
// libunwind's heuristics); every other error stops the unwind.
var (
	ErrNoInfo  = errors.New("unwind: no FDE covers the pc")
	ErrNoTable = errors.New("unwind: no unwind table for the module")
	ErrBadCFI  = errors.New("unwind: corrupt CFI")
	ErrBadExpr = errors.New("unwind: bad DWARF expression")
	ErrNoMap   = errors.New("unwind: address outside every map")
	// ErrTablesUnmapped: the module's .eh_frame_hdr search table or
	// .eh_frame lie outside the recorded maps (Table.Unmapped).
	ErrTablesUnmapped = errors.New("unwind: .eh_frame_hdr or .eh_frame outside the recorded maps (perf record maps read-only segments only when its first event asks for DWARF stacks)")
	ErrBadReg         = errors.New("unwind: register not sampled or not unwound")
	ErrBadFrame       = errors.New("unwind: ip and CFA unchanged")
)

// Table is the call frame information of one ELF file, with addresses in
// the file's own (link-time) address space. It is immutable once made and
// safe for concurrent use.
type Table struct {
	// Name is the file the CFI came from (for messages).
	Name string
	// LoadBase is perf's elf_base_address of the file: its first
	// PT_LOAD's address rounded down to the page. A map of the file at
	// start with page offset pgoff has bias start - pgoff - LoadBase.
	LoadBase uint64

	eh     []byte // .eh_frame
	ehAddr uint64 // its sh_addr
	hdr    bool   // .eh_frame_hdr was found: eh is searched through it
	// hdrAddr is .eh_frame_hdr's sh_addr, the base of hdrTab's entries.
	hdrAddr uint64
	hdrTab  []byte // the binary-search table, 8 bytes an entry
	tabOff  int    // where hdrTab starts in .eh_frame_hdr

	df     []byte // .debug_frame
	dfOnce sync.Once
	dfIdx  []span

	// hdrUnread: the address space maps no bytes where the search table
	// or .eh_frame lie, so that reading them fails (see Unmapped).
	hdrUnread bool
	// readable, in a View, says whether the n bytes at a runtime address
	// can be read; bias is the View's. A search-table entry that cannot
	// be read fails the lookup that probes it (SetReadable).
	readable     func(addr uint64, n int) bool
	bias         uint64
	unmappedOnce sync.Once
	unmapped     *Table
}

type span struct {
	lo, hi uint64
	off    int
}

// FDE is the frame description entry covering a pc, with its CIE.
type FDE struct {
	Start, End uint64 // link-time addresses covered
	// LSDA is the link-time address of the function's language-specific
	// data area (the FDE's augmentation data under the CIE's "L"
	// augmentation; gcc's .gcc_except_table entry), 0 for none.
	LSDA      uint64
	instr     []byte
	instrAddr uint64 // link-time address of instr[0] (eh_frame), for pcrel set_loc
	cie       cie
}

// Signal says the FDE's CIE has the "S" augmentation (a signal frame).
func (f *FDE) Signal() bool { return f.cie.signal }

type cie struct {
	codeAlign uint64
	dataAlign int64
	ra        uint64
	fdeEnc    uint8
	lsdaEnc   uint8 // the "L" augmentation's encoding; peOmit without one
	signal    bool
	z         bool
	instr     []byte
	instrAddr uint64
}

// NewTable makes a table from section contents: ehFrame and its address,
// the .eh_frame_hdr contents and address (nil when the file has none; its
// search table then is not used and .eh_frame is not searched, as perf's
// find_proc_info does), and .debug_frame (nil for none). The slices are
// kept, not copied.
func NewTable(name string, ehFrame []byte, ehAddr uint64, hdr []byte, hdrAddr uint64, debugFrame []byte) *Table {
	t := &Table{Name: name, eh: ehFrame, ehAddr: ehAddr, df: debugFrame}
	if hdr != nil {
		t.hdr = true
		t.hdrAddr = hdrAddr
		t.hdrTab, t.tabOff = hdrSearchTable(hdr)
	}
	return t
}

// View returns a table with t's layout whose .eh_frame and search table
// are read through a process's memory, as libunwind reads them for perf
// (dwarf_search_unwind_table over a remote table: entries and FDEs read
// with access_mem at the file's addresses plus bias). read(addr, n)
// returns the n bytes at runtime address addr; [lo, hi) is the runtime
// span to take them from (the file's maps: an FDE is read wherever the
// search table points in it). For the file the recording mapped, this
// gives t's own bytes; for another file at the same path (a recording
// made elsewhere) it gives what perf reads, the other file's bytes at the
// recorded mappings' offsets. The number of entries still comes from the
// file's own header (perf's unwind_spec_ehframe), and .debug_frame from
// the file (libunwind's dwarf_find_debug_frame reads the file).
func (t *Table) View(read func(addr uint64, n int) []byte, bias, lo, hi uint64) *Table {
	v := &Table{Name: t.Name, LoadBase: t.LoadBase, hdr: t.hdr, hdrAddr: t.hdrAddr, tabOff: t.tabOff, df: t.df}
	if hi > lo && hi-lo <= maxSection {
		v.eh = read(lo, int(hi-lo))
		v.ehAddr = lo - bias
	}
	if t.hdr {
		v.hdrTab = read(t.hdrAddr+uint64(t.tabOff)+bias, len(t.hdrTab))
	}
	v.bias = bias
	return v
}

// SetReadable makes a View's lookups through its search table read only
// the entries they probe, as libunwind's remote_lookup does with perf's
// access_mem: probing an entry that ok says cannot be read (outside every
// recorded map) fails the lookup with ErrTablesUnmapped, which stops the
// unwind, while lookups that probe only readable entries succeed. A table
// partly inside the maps is thus neither wholly read nor wholly lost.
func (t *Table) SetReadable(ok func(addr uint64, n int) bool) { t.readable = ok }

// Spans returns the link-time spans [lo, hi) that looking a pc up
// through .eh_frame_hdr reads in a process's memory: the search table and
// .eh_frame. ok is false when the table does not search .eh_frame.
func (t *Table) Spans() (tabLo, tabHi, ehLo, ehHi uint64, ok bool) {
	if t == nil || !t.hdr {
		return 0, 0, 0, 0, false
	}
	tabLo = t.hdrAddr + uint64(t.tabOff)
	return tabLo, tabLo + uint64(len(t.hdrTab)), t.ehAddr, t.ehAddr + uint64(len(t.eh)), true
}

// Unmapped returns t as seen from an address space that maps none of the
// bytes of its search table and .eh_frame (perf's find_proc_info reads
// them with access_mem, which fails outside every recorded map): a lookup
// through .eh_frame_hdr fails with ErrTablesUnmapped, which stops the unwind, after
// .debug_frame (read from the file) is tried as perf tries it.
func (t *Table) Unmapped() *Table {
	t.unmappedOnce.Do(func() {
		t.unmapped = &Table{Name: t.Name, LoadBase: t.LoadBase, hdr: t.hdr, hdrAddr: t.hdrAddr, tabOff: t.tabOff, df: t.df, hdrUnread: true}
	})
	return t.unmapped
}

// hdrSearchTable reads .eh_frame_hdr as perf's unwind_spec_ehframe does
// (eh_frame_ptr and fde_count in the few encodings it knows) and returns
// the fde_count entries of the table that follows, cut to the section,
// and where they start.
func hdrSearchTable(h []byte) ([]byte, int) {
	c := cur{B: h}
	c.U8() // version: not checked by perf
	ptrEnc, cntEnc := c.U8(), c.U8()
	c.U8() // table_enc: libunwind assumes datarel sdata4
	if _, ok := perfEncoded(&c, ptrEnc); !ok {
		return nil, 0
	}
	n, ok := perfEncoded(&c, cntEnc)
	if !ok || c.Bad {
		return nil, 0
	}
	rest := uint64(c.Left()) / 8
	if n > rest {
		n = rest
	}
	return h[c.Off : c.Off+int(n)*8], c.Off
}

// perfEncoded is perf's __dw_read_encoded_value: only absolute or
// pc-relative 4- and 8-byte values. Only the size matters here: perf
// skips eh_frame_ptr, and a pc-relative fde_count is meaningless (perf
// adds a host address to it).
func perfEncoded(c *cur, enc uint8) (uint64, bool) {
	if enc == peOmit {
		return 0, true
	}
	if enc == peAbsptr {
		return c.U64(), !c.Bad
	}
	if a := enc & 0x70; a != peAbsptr && a != pePcrel {
		return 0, false
	}
	if enc&0x07 == 0 {
		enc |= peUdata4
	}
	switch enc & 0x0f {
	case peSdata4, peUdata4, peSdata8, peUdata8:
		return c.Format(enc)
	}
	return 0, false
}

// EHFrameFDEs returns the FDEs of .eh_frame in section order, up to its
// terminator or the first entry whose length runs past the end; an FDE
// that cannot be read is left out. The FDE passed to yield is reused.
func (t *Table) EHFrameFDEs() iter.Seq[*FDE] {
	return func(yield func(*FDE) bool) {
		var f FDE
		for off := 0; off < len(t.eh); {
			next, isCIE, ok := entryBounds(t.eh, off, true)
			if !ok {
				return
			}
			if !isCIE && parseFDE(t.eh, off, true, t.ehAddr, &f) == nil && !yield(&f) {
				return
			}
			off = next
		}
	}
}

// HasEHFrameHdr says whether the table searches .eh_frame.
func (t *Table) HasEHFrameHdr() bool { return t != nil && t.hdr }

// HasDebugFrame says whether the table has .debug_frame.
func (t *Table) HasDebugFrame() bool { return t != nil && t.df != nil }

// Find returns the FDE covering the link-time address pc, as perf's
// find_proc_info looks for it: through .eh_frame_hdr first, then
// .debug_frame. The error is ErrNoTable when the file has neither,
// ErrNoInfo when they do not cover pc, ErrBadCFI when the entry found
// cannot be read.
func (t *Table) Find(pc uint64, f *FDE) error {
	if t == nil {
		return ErrNoTable
	}
	err := ErrNoTable
	switch {
	case t.hdrUnread:
		err = ErrTablesUnmapped
	case t.hdr:
		if err = t.findHdr(pc, f); err == nil {
			return nil
		}
	}
	if t.df != nil && (err == ErrNoInfo || err == ErrNoTable || err == ErrTablesUnmapped) {
		// perf goes on to .debug_frame whatever went wrong, and returns
		// the first error when .debug_frame has nothing.
		if t.findDebugFrame(pc, f) == nil {
			return nil
		}
	}
	return err
}

// findHdr mirrors libunwind's remote_lookup over .eh_frame_hdr's table
// (the pc relative to the header and the entries compared as int32, as
// libunwind passes them) and dwarf_extract_proc_info_from_fde.
func (t *Table) findHdr(pc uint64, f *FDE) error {
	tab := t.hdrTab
	rel := int32(pc - t.hdrAddr)
	lo, hi := 0, len(tab)/8
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if t.readable != nil && !t.readable(t.hdrAddr+uint64(t.tabOff)+uint64(mid)*8+t.bias, 8) {
			return ErrTablesUnmapped
		}
		start := int32(le32(tab[mid*8:]))
		if rel < start {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if hi <= 0 {
		return ErrNoInfo
	}
	fdeAddr := t.hdrAddr + uint64(int64(int32(le32(tab[(hi-1)*8+4:]))))
	off := fdeAddr - t.ehAddr
	if fdeAddr < t.ehAddr || off >= uint64(len(t.eh)) {
		return ErrBadCFI
	}
	if err := parseFDE(t.eh, int(off), true, t.ehAddr, f); err != nil {
		return err
	}
	if pc < f.Start || pc >= f.End {
		return ErrNoInfo
	}
	return nil
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func (t *Table) findDebugFrame(pc uint64, f *FDE) error {
	t.dfOnce.Do(t.indexDebugFrame)
	idx := t.dfIdx
	i := sort.Search(len(idx), func(i int) bool { return idx[i].lo > pc }) - 1
	if i < 0 || pc >= idx[i].hi {
		return ErrNoInfo
	}
	if err := parseFDE(t.df, idx[i].off, false, 0, f); err != nil {
		return err
	}
	return nil
}

// maxFDEs bounds the .debug_frame index (each FDE is at least 16 bytes, so
// a section gives at most len/16 of them anyway).
func (t *Table) indexDebugFrame() {
	var f FDE
	for off := 0; off < len(t.df); {
		next, isCIE, ok := entryBounds(t.df, off, false)
		if !ok {
			break
		}
		if !isCIE && parseFDE(t.df, off, false, 0, &f) == nil && f.Start < f.End {
			t.dfIdx = append(t.dfIdx, span{f.Start, f.End, off})
		}
		off = next
	}
	sort.SliceStable(t.dfIdx, func(i, j int) bool { return t.dfIdx[i].lo < t.dfIdx[j].lo })
}

// entryBounds reads the length and id of the CIE or FDE at off: the
// offset of the next entry, whether this one is a CIE, and false at a
// terminator or a length past the end.
func entryBounds(sec []byte, off int, eh bool) (next int, isCIE, ok bool) {
	c := cur{B: sec, Off: off}
	n := uint64(c.U32())
	is64 := false
	if n == 0xffffffff {
		n, is64 = c.U64(), true
	}
	if c.Bad || n == 0 || n > uint64(c.Left()) {
		return 0, false, false
	}
	next = c.Off + int(n)
	var id uint64
	if is64 {
		id = c.U64()
	} else {
		id = uint64(c.U32())
	}
	if c.Bad {
		return 0, false, false
	}
	switch {
	case eh:
		isCIE = id == 0
	case is64:
		isCIE = id == ^uint64(0)
	default:
		isCIE = id == 0xffffffff
	}
	return next, isCIE, true
}

// parseFDE reads the FDE at off of sec (.eh_frame when eh, with secAddr
// its address, else .debug_frame) and its CIE.
func parseFDE(sec []byte, off int, eh bool, secAddr uint64, f *FDE) error {
	c := cur{B: sec, Off: off}
	n := uint64(c.U32())
	is64 := false
	if n == 0xffffffff {
		n, is64 = c.U64(), true
	} else if n == 0 && !c.Bad {
		// libunwind's dwarf_extract_proc_info_from_fde: "an FDE with a 0
		// length indicates the end of the FDE-table".
		return ErrNoInfo
	}
	if c.Bad || n == 0 || n > uint64(c.Left()) {
		return ErrBadCFI
	}
	end := c.Off + int(n)
	idAt := c.Off
	var id uint64
	if is64 {
		id = c.U64()
	} else {
		id = uint64(c.U32())
	}
	var cieOff uint64
	if eh {
		if id == 0 {
			// A CIE where an FDE was expected: libunwind ignores it and
			// finds the pc outside the (empty) range it read.
			return ErrNoInfo
		}
		cieOff = uint64(idAt) - id
	} else {
		if (!is64 && id == 0xffffffff) || (is64 && id == ^uint64(0)) {
			return ErrBadCFI
		}
		cieOff = id
	}
	if cieOff >= uint64(len(sec)) {
		return ErrBadCFI
	}
	if err := parseCIE(sec, int(cieOff), eh, secAddr, &f.cie); err != nil {
		return err
	}
	c.B = sec[:end]
	enc := f.cie.fdeEnc
	start, ok := c.Encoded(enc, secAddr, 0, 0)
	if !ok {
		return ErrBadCFI
	}
	length, ok := c.Format(enc)
	if !ok {
		return ErrBadCFI
	}
	f.LSDA = 0
	if f.cie.z {
		n := c.ULEB()
		augAt := c.Off
		aug := c.Take(n)
		if f.cie.lsdaEnc != peOmit && aug != nil {
			// An LSDA pointer that cannot be read is no LSDA: the
			// unwinder does not need it.
			ac := cur{B: aug}
			f.LSDA, _ = ac.Encoded(f.cie.lsdaEnc, secAddr+uint64(augAt), 0, start)
		}
	}
	if c.Bad {
		return ErrBadCFI
	}
	f.Start, f.End = start, start+length
	f.instr = sec[c.Off:end]
	f.instrAddr = secAddr + uint64(c.Off)
	return nil
}

// parseCIE mirrors libunwind's parse_cie.
func parseCIE(sec []byte, off int, eh bool, secAddr uint64, ci *cie) error {
	next, isCIE, ok := entryBounds(sec, off, eh)
	if !ok || !isCIE {
		return ErrBadCFI
	}
	c := cur{B: sec[:next], Off: off}
	if c.U32() == 0xffffffff {
		c.U64()
		c.U64()
	} else {
		c.U32()
	}
	*ci = cie{lsdaEnc: peOmit}
	if eh {
		ci.fdeEnc = peAbsptr
	}
	version := c.U8()
	if version != 1 && version != 3 && version != 4 {
		return ErrBadCFI
	}
	aug := c.CString()
	if version == 4 {
		if c.U8() != 8 { // address_size
			return ErrBadCFI
		}
		c.U8() // segment_selector_size
	}
	ci.codeAlign = c.ULEB()
	ci.dataAlign = c.SLEB()
	if version == 1 {
		ci.ra = uint64(c.U8())
	} else {
		ci.ra = c.ULEB()
	}
	if c.Bad {
		return ErrBadCFI
	}
	i := 0
	if len(aug) >= 2 && aug[0] == 'e' && aug[1] == 'h' {
		c.U64() // old GCC's eh_ptr
		i = 2
	}
	augEnd := -1
	if i < len(aug) && aug[i] == 'z' {
		l := c.ULEB()
		if c.Bad || l > uint64(c.Left()) {
			return ErrBadCFI
		}
		ci.z = true
		augEnd = c.Off + int(l)
		i++
	}
loop:
	for ; i < len(aug); i++ {
		switch aug[i] {
		case 'L':
			ci.lsdaEnc = c.U8()
		case 'R':
			ci.fdeEnc = c.U8()
		case 'P':
			pe := c.U8()
			if _, ok := c.Format(pe); !ok {
				return ErrBadCFI
			}
		case 'S':
			ci.signal = true
		default:
			if !ci.z {
				return ErrBadCFI
			}
			break loop // the augmentation length skips what we do not know
		}
	}
	if augEnd >= 0 {
		c.Off = augEnd
	}
	if c.Bad || c.Off > next {
		return ErrBadCFI
	}
	ci.instr = sec[c.Off:next]
	ci.instrAddr = secAddr + uint64(c.Off)
	return nil
}
