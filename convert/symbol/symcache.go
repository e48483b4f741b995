package symbol

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"strings"
	"sync"

	"github.com/perfpt/perfpt/internal/cachedir"
	"github.com/perfpt/perfpt/internal/cachefile"
	"github.com/perfpt/perfpt/internal/dwarfbuf"
)

// The cache of ELF symbol tables.
//
// Building a DSO's table (build.go) reads its .symtab and .dynsym, sorts
// their symbols and runs perf's fix-ups: a few milliseconds for a big
// binary (cc1plus, Go's compiler), and half of what perfpt script spent on
// a system-wide recording, where tens of programs and libraries are hit.
// What the build makes depends only on the files it read and on how names
// are demangled, so it is kept between runs, one file per table in
// Options.CacheDir: the symbols perf inserts in its order, the names they
// use (only those, out of the string tables), the fix-ups' results and the
// choices they made, ready for lookups as a freshly built table is (names
// still demangled on first lookup, perf's tree still built only where
// symbols overlap). A file is found by a hash of its key and holds the key
// whole: each file's identity (its GNU build id, else its path, device,
// inode, size and modification time) and the demangling options. A file
// that does not check out (its frame, internal/cachefile: magic, version,
// key, a checksum over all of it; or an index out of range) is ignored and
// the table built again. A table is
// written the second time a run builds it (a marker file records the
// first), so that one-off recordings do not pay for writing tables never
// read back.

// symCacheFormat frames a symbol table's cache file (encodeSymCache
// makes its payload).
var symCacheFormat = cachefile.Format{Magic: "perfpt symtab\n", Version: 2}

// symCacheLimit bounds the bytes of the cache directory.
const symCacheLimit = 256 << 20

// symCacheMin is the number of symbols from which a table is cached:
// smaller ones build in microseconds (a variable for the tests).
var symCacheMin = 1000

// cacheFile is a file a table is built from, as LoadDSOInfo found it.
type cacheFile struct {
	path string
	ef   *elf.File
	st   os.FileInfo
}

// symCacheKey returns the key of the table built from the symbols of
// syms and the runtime image run, or nil when a file cannot be
// identified. buildID, when not nil, is the build id both files were
// checked to have.
func (o *Options) symCacheKey(buildID []byte, syms, run cacheFile) []byte {
	if o == nil || o.CacheDir == "" {
		return nil
	}
	var key []byte
	for _, f := range []cacheFile{syms, run} {
		id, ok := elfIdentity(buildID, f)
		if !ok {
			return nil
		}
		key = binary.LittleEndian.AppendUint32(key, uint32(len(id)))
		key = append(key, id...)
	}
	flags := byte(0)
	if syms.ef == run.ef {
		flags |= 1
	}
	if o.NoDemangle {
		flags |= 2
	}
	if o.DemangleParams {
		flags |= 4
	}
	return append(key, flags)
}

// elfIdentity identifies the contents of file f: its build id (buildID
// when not nil, else read) and size, else its path, device, inode, size
// and modification time.
func elfIdentity(buildID []byte, f cacheFile) ([]byte, bool) {
	if f.st == nil || !f.st.Mode().IsRegular() {
		return nil, false
	}
	id := buildID
	if id == nil {
		id = readBuildID(f.ef)
	}
	if len(id) > 1 {
		b := append([]byte("build-id:"), id...)
		return binary.LittleEndian.AppendUint64(b, uint64(f.st.Size())), true
	}
	return cachefile.StatID(f.path, f.st)
}

// cachedTable returns the table cached for key, nil when there is none
// that checks out.
func (o *Options) cachedTable(key []byte) *Table {
	if key == nil {
		return nil
	}
	payload, release, err := symCacheFormat.Load(cachefile.Path(o.CacheDir, "symtab-", key), key)
	if err != nil {
		return nil
	}
	defer release()
	return decodeSymCache(payload, o.demangler())
}

// cacheTable writes t, as built for key, to the cache; failures leave no
// cache, silently (it only saves time).
func (o *Options) cacheTable(key []byte, t *Table) {
	if key == nil || t == nil || t.src == nil {
		return
	}
	src, ok := t.src.src.(*elfSource)
	if !ok || len(src.lo.syms) < symCacheMin {
		return
	}
	file := cachefile.Path(o.CacheDir, "symtab-", key)
	// A table is cached the second time a run builds it: a DSO seen
	// once (a one-off recording's) costs an empty file, not the writing
	// of its table (a few MB for a big C++ binary).
	if _, err := os.Stat(file + ".seen"); err != nil {
		f, err := os.Create(file + ".seen")
		if err != nil && os.MkdirAll(o.CacheDir, 0o755) == nil {
			f, err = os.Create(file + ".seen")
		}
		if err == nil {
			f.Close()
		}
		return
	}
	b, ok := encodeSymCache(src, t.segs, t.exact != nil)
	if !ok {
		return
	}
	if symCacheFormat.Write(file, key, b) == nil {
		os.Remove(file + ".seen")
		trimSymCache.Do(func() { cachedir.Trim(o.CacheDir, symCacheLimit, "symtab-") })
	}
}

// trimSymCache trims the cache directory once a run, at its first write.
var trimSymCache sync.Once

// noName is the name offset of a symbol whose offset was past the end of
// its string table (it has no name, and sameRawName tells it apart).
const noName = ^uint32(0)

// encodeSymCache encodes a table built by fixedTable, for a cache file's
// payload: its load order (the names it uses moved into one string
// table), ties, kept symbols, runs and whether it has zones.
func encodeSymCache(src *elfSource, segs []seg, zones bool) ([]byte, bool) {
	lo := src.lo
	le := binary.LittleEndian
	// The names, each once, NUL-ended.
	var names []byte
	moved := map[[2]uint32]uint32{}
	newName := make([]uint32, len(lo.syms))
	for k := range lo.syms {
		s := &lo.syms[k]
		if int(s.tab) >= len(lo.strs) {
			return nil, false
		}
		t := lo.strs[s.tab]
		if int(s.name) >= len(t) {
			newName[k] = noName
			continue
		}
		at := [2]uint32{uint32(s.tab), s.name}
		off, ok := moved[at]
		if !ok {
			n := t[s.name:]
			if i := strings.IndexByte(n, 0); i >= 0 {
				n = n[:i]
			}
			if len(names)+len(n)+1 >= int(noName) {
				return nil, false
			}
			off = uint32(len(names))
			names = append(append(names, n...), 0)
			moved[at] = off
		}
		newName[k] = off
	}
	b := make([]byte, 0, 64+24*len(lo.syms)+len(names)+16*len(src.idx)+12*len(segs))
	b = le.AppendUint32(b, uint32(len(lo.syms)))
	for k := range lo.syms {
		s := &lo.syms[k]
		b = le.AppendUint64(b, s.start)
		b = le.AppendUint64(b, s.end)
		b = le.AppendUint32(b, newName[k])
		b = append(b, s.bind, s.typ, s.flags, 0)
	}
	b = le.AppendUint32(b, uint32(len(names)))
	b = append(b, names...)
	ints := func(v []int32) {
		b = le.AppendUint32(b, uint32(len(v)))
		for _, x := range v {
			b = le.AppendUint32(b, uint32(x))
		}
	}
	ints(lo.groups)
	b = le.AppendUint32(b, uint32(len(lo.sorted)))
	for _, keys := range lo.sorted {
		ints(keys)
	}
	b = le.AppendUint32(b, uint32(len(lo.choices)))
	b = append(b, lo.choices...)
	b = le.AppendUint32(b, uint32(len(src.ties.groups)))
	for _, g := range src.ties.groups {
		ints(g)
	}
	ints(src.idx)
	for i := range src.idx {
		b = le.AppendUint64(b, src.end[i])
		b = le.AppendUint32(b, uint32(src.tie[i]))
	}
	b = le.AppendUint32(b, uint32(len(segs)))
	for _, sg := range segs {
		b = le.AppendUint64(b, sg.from)
		b = le.AppendUint32(b, uint32(sg.sym))
	}
	if zones {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return b, true
}

// readInts reads a count and that many int32s, each in [lo, hi) (else
// c goes Bad).
func readInts(c *dwarfbuf.Cursor, lo, hi int64) []int32 {
	n := c.U32()
	raw := c.Take(4 * uint64(n))
	if raw == nil {
		return nil
	}
	v := make([]int32, n)
	for i := range v {
		x := int32(binary.LittleEndian.Uint32(raw[4*i:]))
		if int64(x) < lo || int64(x) >= hi {
			c.Bad = true
		}
		v[i] = x
	}
	return v
}

// decodeSymCache returns the table a cache file's payload holds, its
// names demangled by dm; nil when the payload does not check out.
func decodeSymCache(payload []byte, dm func(string) string) *Table {
	le := binary.LittleEndian
	r := &dwarfbuf.Cursor{B: payload}
	nsyms := int(r.U32())
	raw := r.Take(uint64(24 * nsyms))
	if r.Bad {
		return nil
	}
	syms := make([]lsym, nsyms)
	for k := range syms {
		e := raw[24*k:]
		syms[k] = lsym{start: le.Uint64(e), end: le.Uint64(e[8:]), name: le.Uint32(e[16:]),
			bind: e[20], typ: e[21], flags: e[22]}
	}
	names := string(r.Take(uint64(r.U32())))
	for k := range syms {
		if syms[k].name != noName && int(syms[k].name) >= len(names) {
			return nil
		}
	}
	ns := int64(nsyms)
	lo := &loadOrder{syms: syms, strs: []string{names}, dm: memoized(dm)}
	lo.groups = readInts(r, 0, ns+1)
	nsorted := int(r.U32())
	if nsorted > r.Left()/4 || nsorted+1 != len(lo.groups) {
		return nil
	}
	for g := 0; g < nsorted && !r.Bad; g++ {
		keys := readInts(r, int64(lo.groups[g]), int64(lo.groups[g+1]))
		if lo.groups[g+1] < lo.groups[g] || len(keys) != int(lo.groups[g+1]-lo.groups[g]) || !isPermutation(keys, lo.groups[g]) {
			return nil
		}
		lo.sorted = append(lo.sorted, keys)
	}
	if len(lo.groups) > 0 && (lo.groups[0] != 0 || lo.groups[len(lo.groups)-1] != int32(nsyms)) {
		return nil
	}
	lo.choices = append([]uint8(nil), r.Take(uint64(r.U32()))...)
	for _, c := range lo.choices {
		if c > keepTie {
			return nil
		}
	}
	ties := &tieSet{lo: lo}
	nties := int(r.U32())
	if nties > r.Left()/4 {
		return nil
	}
	for i := 0; i < nties && !r.Bad; i++ {
		g := readInts(r, 0, ns)
		if len(g) == 0 {
			return nil
		}
		ties.groups = append(ties.groups, g)
	}
	idx := readInts(r, 0, ns)
	raw = r.Take(uint64(12 * len(idx)))
	if r.Bad {
		return nil
	}
	src := &elfSource{lo: lo, ties: ties, idx: idx, end: make([]uint64, len(idx)), tie: make([]int32, len(idx))}
	for i := range idx {
		src.end[i] = le.Uint64(raw[12*i:])
		src.tie[i] = int32(le.Uint32(raw[12*i+8:]))
		if src.tie[i] < 0 || int(src.tie[i]) > len(ties.groups) {
			return nil
		}
	}
	nsegs := int(r.U32())
	raw = r.Take(uint64(12 * nsegs))
	if r.Bad {
		return nil
	}
	segs := make([]seg, nsegs)
	for i := range segs {
		segs[i] = seg{le.Uint64(raw[12*i:]), int32(le.Uint32(raw[12*i+8:]))}
		if segs[i].sym < segZone || segs[i].sym >= int32(len(idx)) || i > 0 && segs[i].from <= segs[i-1].from {
			return nil
		}
	}
	zones := r.Take(1)
	if r.Bad || r.Left() != 0 || zones[0] > 1 {
		return nil
	}
	for _, sg := range segs {
		if sg.sym == segZone && zones[0] == 0 {
			return nil // a zone, and no tree to ask
		}
	}
	t := &Table{segs: segs, src: newLazySyms(src)}
	if zones[0] == 1 {
		t.exact = &exactTable{lo: lo}
	}
	return t
}

// isPermutation reports whether keys holds each of base..base+len-1 once.
func isPermutation(keys []int32, base int32) bool {
	seen := make([]bool, len(keys))
	for _, k := range keys {
		i := k - base
		if i < 0 || int(i) >= len(seen) || seen[i] {
			return false
		}
		seen[i] = true
	}
	return true
}
