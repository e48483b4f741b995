package srcline

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"sort"
	"sync"
)

// File answers questions about the source of addresses in one ELF file
// as Table does, and as binutils' addr2line does (Addr2line), but reads
// only the compile units the addresses fall in: .debug_aranges (or,
// without it, the units' own ranges) tells which unit that is, and a
// compressed debug section is inflated only as far as that unit. It
// suits a file of which a few addresses are asked about (perf script's
// inlined frames and source lines), where building a Table would read
// all of it. A File is safe for concurrent use.
type File struct {
	mu     sync.Mutex
	closer io.Closer
	// debugCloser is the separate debug file the DWARF is read from.
	debugCloser io.Closer
	// symEF is the file whose symbols name functions the DWARF does not
	// know: the separate debug file where bfd pairs its sections with
	// the file's (_bfd_dwarf2_stash_syms), else ef.
	symEF *elf.File
	ef    *elf.File
	big   bool // the file is big-endian

	info, abbrev, line, str, lineStr, strOffsets, addr, ranges, rnglists, aranges *section

	// arIdx maps address ranges to units, from .debug_aranges.
	arIdx    []arange
	arLoaded bool
	// units are the units read so far, by header offset.
	units map[uint64]*unit
	// order in which bfd would have read them: the units read in file
	// order up to next, the offset of the first unit not read that way.
	next    uint64
	allRead bool
	byRange []arange // every unit's ranges, once all are read
	// abbrevs are the abbreviation tables read so far.
	abbrevs map[abbrevKey]*abbrevTable
	// Slabs the tables' abbreviations are allocated from, and
	// parseDecl's buffer.
	declSlab []abbrevDecl
	attrSlab []abbrevAttr
	attrTmp  []abbrevAttr
	// nested and rangeBuf are scanFuncs' buffers.
	nested   []*funcInfo
	rangeBuf [][2]uint64
	// data is dwarf.New's string and range sections, loaded once.
	dataSecs  *dataSections
	elfFuncs  *elfFuncs
	allocSecs []allocSec
	// read are the units read so far, in the order read; query counts
	// lookups (a unit is tried once per lookup).
	read  []*unit
	query uint64
	arBuf []uint64
	// bfdStop is the offset of the first unit bfd cannot parse (see
	// unit.bfdFail), once the units were read up to it: addr2line finds
	// nothing from there on. Max when none.
	bfdStop uint64
	// cacheID is the identity of the file the DWARF is read from (see
	// fileIdentity), nil when there is no cache; uc is its cache of unit
	// tables (unitcache.go), once opened; ucDirty says f is listed in
	// dirtyFiles.
	cacheID  []byte
	uc       *unitCache
	ucOpened bool
	ucDirty  bool
}

type allocSec struct {
	idx        elf.SectionIndex
	addr, size uint64
}

type arange struct {
	lo, hi uint64
	cu     uint64
}

// OpenFile opens the ELF file at path. A file without DWARF is no error:
// Addr2line then answers from the symbol table alone.
func OpenFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	sf, err := NewFile(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	sf.closer = f
	return sf, nil
}

// OpenAddr2line opens the ELF file at path as binutils' addr2line does:
// when it has no DWARF, the DWARF comes from its separate debug file
// (found by build id, then by .gnu_debuglink, see separateDebug), and the
// names of functions the DWARF does not know from that file's symbols.
func OpenAddr2line(path string) (*File, error) {
	sf, err := OpenFile(path)
	if err != nil || sf.info != nil {
		return sf, err
	}
	if df, def := separateDebug(path, sf.ef); df != nil {
		sf.debugSections(def, df)
		sf.debugCloser = df
		if sameSections(sf.ef, def) {
			sf.symEF = def
		}
	}
	return sf, nil
}

// NewFile reads an ELF file through r, which must stay readable until
// the File is no longer used.
func NewFile(r io.ReaderAt) (*File, error) {
	ef, err := elf.NewFile(r)
	if err != nil {
		return nil, err
	}
	f := &File{ef: ef, symEF: ef, big: ef.ByteOrder == binary.BigEndian, units: map[uint64]*unit{}, bfdStop: ^uint64(0)}
	f.debugSections(ef, r)
	for i, s := range ef.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 {
			f.allocSecs = append(f.allocSecs, allocSec{idx: elf.SectionIndex(i), addr: s.Addr, size: s.Size})
		}
	}
	return f, nil
}

// debugSections takes the DWARF sections from ef, read through r.
func (f *File) debugSections(ef *elf.File, r io.ReaderAt) {
	id := fileIdentity(ef, r)
	f.cacheID = id
	for _, n := range []struct {
		s    **section
		name string
	}{
		{&f.info, ".debug_info"}, {&f.abbrev, ".debug_abbrev"}, {&f.line, ".debug_line"},
		{&f.str, ".debug_str"}, {&f.lineStr, ".debug_line_str"}, {&f.strOffsets, ".debug_str_offsets"},
		{&f.addr, ".debug_addr"}, {&f.ranges, ".debug_ranges"}, {&f.rnglists, ".debug_rnglists"},
		{&f.aranges, ".debug_aranges"},
	} {
		*n.s = openSection(ef, r, n.name, id)
	}
}

// Close releases the file.
func (f *File) Close() error {
	if f == nil || f.closer == nil {
		return nil
	}
	if f.debugCloser != nil {
		f.debugCloser.Close()
	}
	return f.closer.Close()
}

// HasDWARF reports whether the file has debug information.
func (f *File) HasDWARF() bool { return f != nil && f.info != nil }

// HasLines reports whether the file has a line table.
func (f *File) HasLines() bool { return f != nil && f.line != nil }

// dataSections are the sections every unit's dwarf.Data shares.
type dataSections struct {
	str, ranges                         []byte
	rnglists, addr, strOffsets, lineStr []byte
	err                                 error
}

func (f *File) sharedSections() *dataSections {
	if f.dataSecs != nil {
		return f.dataSecs
	}
	d := &dataSections{}
	var errs []error
	load := func(s *section) []byte {
		b, err := s.all()
		if err != nil {
			errs = append(errs, err)
		}
		return b
	}
	d.str, d.ranges, d.rnglists = load(f.str), load(f.ranges), load(f.rnglists)
	d.addr, d.strOffsets, d.lineStr = load(f.addr), load(f.strOffsets), load(f.lineStr)
	d.err = errors.Join(errs...)
	f.dataSecs = d
	return d
}

// newDataLines makes a dwarf.Data over info (one unit, or all of them),
// the shared sections and a line table section (a prefix that holds the
// unit's table).
func (f *File) newDataLines(abbrev, info, line []byte) (*dwarf.Data, error) {
	s := f.sharedSections()
	d, err := dwarf.New(abbrev, nil, nil, info, line, nil, s.ranges, s.str)
	if err != nil {
		return nil, err
	}
	for _, a := range []struct {
		name string
		b    []byte
	}{{".debug_rnglists", s.rnglists}, {".debug_addr", s.addr}, {".debug_str_offsets", s.strOffsets}, {".debug_line_str", s.lineStr}} {
		if a.b != nil {
			if err := d.AddSection(a.name, a.b); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

// loadAranges reads .debug_aranges into arIdx, sorted by address.
func (f *File) loadAranges() {
	if f.arLoaded {
		return
	}
	f.arLoaded = true
	b, _ := f.aranges.all()
	c := cursor{B: b, Big: f.big}
	for c.Left() > 0 && !c.Bad {
		start := c.Off
		length := uint64(c.U32())
		hdr := 4
		is64 := false
		if length == 0xffffffff {
			length, hdr, is64 = c.U64(), 12, true
		}
		if c.Bad || length > uint64(c.Left()) {
			break
		}
		end := c.Off + int(length)
		c.U16() // version
		var cu uint64
		if is64 {
			cu = c.U64()
		} else {
			cu = uint64(c.U32())
		}
		asize := int(c.U8())
		c.U8() // segment selector size
		if asize != 4 && asize != 8 {
			c.Off = end
			continue
		}
		// Tuples start at a multiple of twice the address size from the
		// start of the set.
		if pad := (c.Off - start) % (2 * asize); pad != 0 {
			c.Take(uint64(2*asize - pad))
		}
		_ = hdr
		for c.Off+2*asize <= end && !c.Bad {
			lo, n := c.Uint(asize), c.Uint(asize)
			if lo == 0 && n == 0 {
				break
			}
			if lo+n > lo {
				f.arIdx = append(f.arIdx, arange{lo: lo, hi: lo + n, cu: cu})
			}
		}
		c.Off = end
	}
	sort.SliceStable(f.arIdx, func(i, j int) bool { return f.arIdx[i].lo < f.arIdx[j].lo })
}

// arangesUnits returns the header offsets of the units .debug_aranges
// gives for pc.
func (f *File) arangesUnits(pc uint64, dst []uint64) []uint64 {
	f.loadAranges()
	i := sort.Search(len(f.arIdx), func(i int) bool { return f.arIdx[i].lo > pc })
	// Ranges do not overlap in well-formed files; look back a little.
	for j := i - 1; j >= 0 && j >= i-8; j-- {
		if a := &f.arIdx[j]; pc >= a.lo && pc < a.hi {
			dst = append(dst, a.cu)
		}
	}
	return dst
}
