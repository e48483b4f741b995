package srcline

import (
	"debug/dwarf"
	"encoding/binary"
	"path/filepath"
	"sort"
	"sync"

	"github.com/perfpt/perfpt/internal/cachefile"
	"github.com/perfpt/perfpt/internal/dwarfbuf"
)

// The cache of unit tables.
//
// File.Frames builds the Table of each compile unit an address falls in
// (the whole unit's line program and entries, through debug/dwarf), and,
// in a file without .debug_aranges (Go's binaries), first decodes every
// unit's line program for its ranges to find the unit. In a system-wide
// profile that was most of what pprof spent on DWARF: a Go binary's
// twenty units hit cost 30 ms. What a unit's Table holds for Frames, Line
// and Func, and the ranges of its line sequences, depend only on the
// file, so they are kept between runs: one cache file per DWARF file (by
// the identity the section cache uses, fileIdentity, and the sizes of its
// main sections), in the section cache's directory. It grows as runs
// build tables of more units: FlushCaches, at the end of a command,
// writes the units built in this run beside those read from the cache
// (through a temporary file renamed into place). A file that does not
// check out (its frame, internal/cachefile: magic, version, key, a
// checksum over all of it; or an entry that does not decode) is ignored
// and the tables built from DWARF.

// unitCacheFormat frames a unit cache file: its payload is the number of
// entries, their index (offset, kind, size) and their bytes.
var unitCacheFormat = cachefile.Format{Magic: "perfpt unit tables\n", Version: 4}

// Entry kinds.
const (
	ucTable  = 1 // a unit's Table (tableOf)
	ucRanges = 2 // the ranges of a unit's line sequences (scanLineRanges)
)

type ucKey struct {
	off  uint64
	kind uint8
}

// unitCache is one File's cache of unit tables.
type unitCache struct {
	dir  string // the cache directory when the cache was opened
	file string // the cache file ("": no cache)
	key  []byte
	old  map[ucKey][]byte // the entries read from file
	// Made in this run, to be written by flush.
	tables []*unit
	ranges map[uint64][][2]uint64
}

// dirtyFiles are the Files whose caches have entries to write.
var dirtyFiles struct {
	mu    sync.Mutex
	files []*File
}

// unitCache returns f's cache of unit tables, opened on first use; nil
// when there is none (no cache directory, or f's identity is unknown).
func (f *File) unitCache() *unitCache {
	if f.ucOpened {
		return f.uc
	}
	f.ucOpened = true
	dir := cacheDir()
	if dir == "" || f.cacheID == nil || f.info == nil {
		return nil
	}
	key := append([]byte(nil), f.cacheID...)
	for _, s := range []*section{f.info, f.abbrev, f.line} {
		size := uint64(0)
		if s != nil {
			size = s.size
		}
		key = binary.LittleEndian.AppendUint64(key, size)
	}
	uc := &unitCache{dir: dir, file: cachefile.Path(dir, "units-", key), key: key}
	if data, release, err := unitCacheFormat.Load(uc.file, key); err == nil {
		if old, ok := parseUnitCache(data); ok {
			// The mapping is kept for the life of the process: the
			// entries alias it.
			uc.old = old
		} else {
			release()
		}
	}
	f.uc = uc
	return uc
}

// parseUnitCache returns the entries of a cache file's payload.
func parseUnitCache(payload []byte) (map[ucKey][]byte, bool) {
	c := dwarfbuf.Cursor{B: payload}
	count := uint64(c.U32())
	if count > uint64(c.Left())/13 {
		return nil, false
	}
	index := dwarfbuf.Cursor{B: c.Take(13 * count)}
	m := make(map[ucKey][]byte, count)
	for i := uint64(0); i < count; i++ {
		k := ucKey{off: index.U64(), kind: index.U8()}
		m[k] = c.Take(uint64(index.U32()))
	}
	if c.Bad || c.Left() != 0 {
		return nil, false
	}
	return m, true
}

// cachedTable returns u's table from the cache, nil when it has none.
func (f *File) cachedTable(u *unit) *Table {
	uc := f.unitCache()
	if uc == nil {
		return nil
	}
	if b, ok := uc.old[ucKey{u.off, ucTable}]; ok {
		if t, ok := decodeTable(b); ok {
			return t
		}
	}
	return nil
}

// builtTable notes that u's table was built from DWARF, for the cache.
func (f *File) builtTable(u *unit) {
	if uc := f.unitCache(); uc != nil {
		uc.tables = append(uc.tables, u)
		f.markDirty()
	}
}

// cachedLineRanges returns the ranges of u's line sequences from the
// cache.
func (f *File) cachedLineRanges(u *unit) ([][2]uint64, bool) {
	uc := f.unitCache()
	if uc == nil {
		return nil, false
	}
	b, ok := uc.old[ucKey{u.off, ucRanges}]
	if !ok {
		return nil, false
	}
	d := decoder{cursor: cursor{B: b}}
	n := d.count(16)
	rs := make([][2]uint64, n)
	for i := range rs {
		rs[i] = [2]uint64{d.U64(), d.U64()}
	}
	if d.Bad || d.Left() != 0 {
		return nil, false
	}
	return rs, true
}

// scannedLineRanges notes the ranges of u's line sequences, for the
// cache.
func (f *File) scannedLineRanges(u *unit, rs [][2]uint64) {
	if uc := f.unitCache(); uc != nil {
		if uc.ranges == nil {
			uc.ranges = map[uint64][][2]uint64{}
		}
		uc.ranges[u.off] = rs
		f.markDirty()
	}
}

func (f *File) markDirty() {
	if f.ucDirty {
		return
	}
	f.ucDirty = true
	dirtyFiles.mu.Lock()
	dirtyFiles.files = append(dirtyFiles.files, f)
	dirtyFiles.mu.Unlock()
}

// FlushCaches writes the unit tables built since the last call to the
// cache (see SetCacheDir). Failures leave the cache as it was, silently:
// it only saves time.
func FlushCaches() {
	dirtyFiles.mu.Lock()
	files := dirtyFiles.files
	dirtyFiles.files = nil
	dirtyFiles.mu.Unlock()
	for _, f := range files {
		f.mu.Lock()
		f.flushUnitCache()
		f.mu.Unlock()
	}
}

func (f *File) flushUnitCache() {
	uc := f.uc
	f.ucDirty = false
	if uc == nil || (len(uc.tables) == 0 && len(uc.ranges) == 0) {
		return
	}
	if uc.dir != cacheDir() {
		// The cache directory was changed (or unset) since f's cache
		// was opened, as a process running several commands, or tests,
		// does: writing to the old one would recreate a directory its
		// owner has removed.
		uc.tables, uc.ranges = nil, nil
		return
	}
	entries := map[ucKey][]byte{}
	for k, b := range uc.old {
		entries[k] = b
	}
	for _, u := range uc.tables {
		if b, ok := encodeTable(u.table); ok {
			entries[ucKey{u.off, ucTable}] = b
		}
	}
	for off, rs := range uc.ranges {
		var e encoder
		e.uvarint(uint64(len(rs)))
		for _, r := range rs {
			e.u64(r[0])
			e.u64(r[1])
		}
		entries[ucKey{off, ucRanges}] = e.b
	}
	uc.tables, uc.ranges = nil, nil
	keys := make([]ucKey, 0, len(entries))
	size := 0
	for k, b := range entries {
		keys = append(keys, k)
		size += 13 + len(b)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].off != keys[j].off {
			return keys[i].off < keys[j].off
		}
		return keys[i].kind < keys[j].kind
	})
	le := binary.LittleEndian
	out := make([]byte, 0, 4+size)
	out = le.AppendUint32(out, uint32(len(keys)))
	for _, k := range keys {
		out = le.AppendUint64(out, k.off)
		out = append(out, k.kind)
		out = le.AppendUint32(out, uint32(len(entries[k])))
	}
	for _, k := range keys {
		out = append(out, entries[k]...)
	}
	// The old entries alias the old file's mapping: they are copied
	// into out, and stay valid (a rename replaces the file, the mapping
	// keeps the old one).
	if err := unitCacheFormat.Write(uc.file, uc.key, out); err != nil {
		return
	}
	trimCache(filepath.Dir(uc.file), secCacheLimit)
}

// encodeTable encodes what Frames, Line and Func read of t (not its
// inlined calls, nor the local variables a unit table has none of); false
// when t has what it cannot encode.
func encodeTable(t *Table) ([]byte, bool) {
	var e encoder
	e.strs = map[string]uint64{}
	e.uvarint(uint64(len(t.files)))
	for _, s := range t.files {
		e.str(s)
	}
	e.uvarint(uint64(len(t.rows)))
	prev := uint64(0)
	for i := range t.rows {
		r := &t.rows[i]
		e.varint(int64(r.Addr - prev))
		prev = r.Addr
		e.varint(int64(r.File))
		e.varint(int64(r.Line))
		e.varint(int64(r.Col))
		e.b = append(e.b, boolBits(r.IsStmt, r.EndSeq))
		e.uvarint(uint64(r.Discriminator))
	}
	e.uvarint(uint64(len(t.funcs)))
	for i := range t.funcs {
		fn := &t.funcs[i]
		if fn.AggregateLocals || fn.AggregateFrom != 0 || len(fn.AggregateScopes) > 0 || len(fn.LocalSlots) > 0 || len(fn.ScopedSlots) > 0 {
			return nil, false
		}
		e.str(fn.Name)
		e.str(fn.LinkageName)
		e.u64(fn.Low)
		e.u64(fn.High)
		e.str(fn.File)
		e.varint(int64(fn.Line))
		e.varint(int64(fn.Column))
		e.b = append(e.b, boolBits(fn.External, fn.ReturnsValue, fn.Artificial, fn.NoReturn, fn.Closure, fn.ReturnsRecord))
		e.varint(int64(fn.Part))
		e.u64(fn.MainLow)
		e.varint(int64(fn.entry))
		e.varint(int64(fn.spec))
	}
	e.uvarint(uint64(len(t.scopes)))
	for i := range t.scopes {
		s := &t.scopes[i]
		e.str(s.name)
		e.str(s.linkage)
		e.uvarint(uint64(len(s.ranges)))
		for _, r := range s.ranges {
			e.u64(r[0])
			e.u64(r[1])
		}
		e.varint(int64(s.callFile))
		e.varint(int64(s.callLine))
		e.varint(int64(s.callCol))
		e.uvarint(uint64(len(s.children)))
		for _, c := range s.children {
			e.varint(int64(c))
		}
		e.b = append(e.b, boolBits(s.subprogram))
	}
	return e.b, true
}

// decodeTable decodes encodeTable's bytes; false when they do not
// decode.
func decodeTable(b []byte) (*Table, bool) {
	d := decoder{cursor: cursor{B: b}}
	t := &Table{}
	t.files = make([]string, d.count(1))
	for i := range t.files {
		t.files[i] = d.str()
	}
	t.rows = make([]Row, d.count(5))
	prev := uint64(0)
	for i := range t.rows {
		r := &t.rows[i]
		r.Addr = prev + uint64(d.varint())
		prev = r.Addr
		r.File, r.Line, r.Col = int32(d.varint()), int32(d.varint()), int32(d.varint())
		fl := d.U8()
		r.IsStmt, r.EndSeq = fl&1 != 0, fl&2 != 0
		r.Discriminator = uint32(d.ULEB())
	}
	t.funcs = make([]Func, d.count(28))
	for i := range t.funcs {
		fn := &t.funcs[i]
		fn.Name, fn.LinkageName = d.str(), d.str()
		fn.Low, fn.High = d.U64(), d.U64()
		fn.File = d.str()
		fn.Line, fn.Column = int(d.varint()), int(d.varint())
		fl := d.U8()
		fn.External, fn.ReturnsValue, fn.Artificial, fn.NoReturn, fn.Closure, fn.ReturnsRecord = fl&1 != 0, fl&2 != 0, fl&4 != 0, fl&8 != 0, fl&16 != 0, fl&32 != 0
		fn.Part = int(d.varint())
		fn.MainLow = d.U64()
		fn.entry = int32(d.varint())
		fn.spec = dwarf.Offset(d.varint())
		if fn.entry < 0 {
			d.Bad = true
		}
	}
	t.scopes = make([]scope, d.count(7))
	for i := range t.scopes {
		s := &t.scopes[i]
		s.name, s.linkage = d.str(), d.str()
		if n := d.count(16); n > 0 {
			s.ranges = make([][2]uint64, n)
			for j := range s.ranges {
				s.ranges[j] = [2]uint64{d.U64(), d.U64()}
			}
		}
		s.callFile, s.callLine, s.callCol = int32(d.varint()), int32(d.varint()), int32(d.varint())
		if n := d.count(1); n > 0 {
			s.children = make([]int32, n)
			for j := range s.children {
				c := d.varint()
				if c < 0 || c >= int64(len(t.scopes)) {
					d.Bad = true
				}
				s.children[j] = int32(c)
			}
		}
		s.subprogram = d.U8()&1 != 0
	}
	for i := range t.funcs {
		if int(t.funcs[i].entry) >= len(t.scopes) {
			d.Bad = true
		}
	}
	if d.Bad || d.Left() != 0 {
		return nil, false
	}
	return t, true
}

func boolBits(bs ...bool) byte {
	var v byte
	for i, b := range bs {
		if b {
			v |= 1 << i
		}
	}
	return v
}

// encoder writes a cache entry (LEB128 for counts and unsigned values,
// zigzag LEB128 for signed ones, as binary.AppendUvarint and
// AppendVarint write them); strs numbers the strings written so far
// (each is written once, then referred to).
type encoder struct {
	b    []byte
	strs map[string]uint64
}

func (e *encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) u64(v uint64)     { e.b = binary.LittleEndian.AppendUint64(e.b, v) }

// str writes 0 and the string the first time, its number + 1 after.
func (e *encoder) str(s string) {
	if i, ok := e.strs[s]; ok {
		e.uvarint(i + 1)
		return
	}
	e.strs[s] = uint64(len(e.strs))
	e.uvarint(0)
	e.uvarint(uint64(len(s)))
	e.b = append(e.b, s...)
}

// decoder reads a cache entry: a cursor (whose Bad is set by the first
// read past the end or of a malformed value, reads returning zeros from
// then on) that knows encoder's signed values and strings; strs are the
// strings read so far.
type decoder struct {
	cursor
	strs []string
}

// varint reads what encoder.varint wrote: a zigzag-encoded LEB128.
func (d *decoder) varint() int64 {
	u := d.ULEB()
	return int64(u>>1) ^ -int64(u&1)
}

// count reads a count of items of at least min bytes each: 0 (and Bad)
// when the rest cannot hold that many.
func (d *decoder) count(min int) int {
	n := d.ULEB()
	if n > uint64(d.Left()/min) {
		d.Bad = true
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	i := d.ULEB()
	if i > 0 {
		if i > uint64(len(d.strs)) {
			d.Bad = true
			return ""
		}
		return d.strs[i-1]
	}
	s := string(d.Take(d.ULEB()))
	d.strs = append(d.strs, s)
	return s
}
