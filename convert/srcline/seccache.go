package srcline

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/perfpt/perfpt/internal/atomicfile"
	"github.com/perfpt/perfpt/internal/cachedir"
	"github.com/perfpt/perfpt/internal/cachefile"
	"github.com/perfpt/perfpt/internal/dwarfbuf"
)

// The cache of inflated debug sections.
//
// Distributions ship debug files with compressed sections (libc's
// .debug_info is 8 MB inflated), and binutils' addr2line, whose answers
// perf prints, reads every compile unit up to the one that holds an
// address, or all of them for an address none holds (a PLT entry): so
// inflating them was about half of what perfpt script and pprof spent on
// a --call-graph dwarf recording. The inflated bytes depend only on the
// file, so they are kept between runs, one cache file per section, in the
// directory SetCacheDir names (perfpt's user cache directory): a later run
// reads the section from there instead of inflating it.
//
// A cache file is found by a hash of its key and holds the key whole: the
// file's identity (its GNU build id, else its path, device, inode, size and
// modification time), the section's name, where it lies and its sizes. Its
// frame (internal/cachefile) guards the key and the checksums of the
// section's blocks, each checked the first time a lookup reaches into the
// block: a file that
// does not check out, at its header or at any block, is ignored and the
// section inflated (and cached) again. Files are written to a temporary
// name and renamed into place, never rewritten, so a reader's mapping never
// changes under it; the directory is kept under secCacheLimit bytes, the
// files used least recently removed first.

// secCacheFormat frames a section's cache file: its payload is the
// section's size, the block size, the blocks' checksums; the section's
// bytes follow the frame, each block checked when a lookup reaches it.
var secCacheFormat = cachefile.Format{Magic: "perfpt dwarf section\n", Version: 2}

// Variables for the tests' sake.
var (
	// secCacheBlock is the size of a checksummed block.
	secCacheBlock uint64 = 256 << 10
	// secCacheMin is the inflated size from which a section is cached:
	// smaller ones inflate in a fraction of a millisecond.
	secCacheMin uint64 = 64 << 10
	// secCacheLimit bounds the bytes of the cache directory.
	secCacheLimit int64 = 1 << 30
)

var secCacheDir atomic.Value // string

// secCacheUnwritable is set when a cache file could not be made: sections
// are then no longer inflated whole for the cache's sake.
var secCacheUnwritable atomic.Bool

// SetCacheDir sets the directory where inflated debug sections are cached
// between runs ("" for no cache, the default). It applies to the files
// opened afterwards.
func SetCacheDir(dir string) {
	secCacheDir.Store(dir)
	secCacheUnwritable.Store(false)
}

func cacheDir() string {
	d, _ := secCacheDir.Load().(string)
	return d
}

// fileIdentity returns what identifies the contents of the ELF file ef
// read through r for the cache: its GNU build id, else (for an *os.File)
// its path, device, inode, size and modification time; nil when neither
// is known or no cache is set.
func fileIdentity(ef *elf.File, r io.ReaderAt) []byte {
	if cacheDir() == "" {
		return nil
	}
	if id := noteBuildID(ef); len(id) > 1 {
		return append([]byte("build-id:"), id...)
	}
	f, ok := r.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	b, _ := cachefile.StatID(f.Name(), fi)
	return b
}

// openCache takes the section from its cache file when id has a valid
// one; else it marks the section to be cached once inflated.
func (s *section) openCache(id []byte) bool {
	dir := cacheDir()
	if dir == "" || id == nil || s.size < secCacheMin {
		return false
	}
	key := append([]byte(nil), id...)
	key = append(key, 0)
	key = append(key, s.name...)
	key = append(key, 0)
	for _, v := range []uint64{uint64(s.off), s.raw, s.size, uint64(s.ctype)} {
		key = binary.LittleEndian.AppendUint64(key, v)
	}
	file := cachefile.Path(dir, "section-", key)
	s.cacheKey = key
	if !secCacheUnwritable.Load() {
		s.cacheFile = file
	}
	meta, body, release, err := secCacheFormat.LoadHead(file, key)
	if err != nil {
		return false
	}
	sums, ok := parseSecCache(meta, body, s.size)
	if !ok {
		release()
		return false
	}
	// The mapping is kept for the life of the process: the section's
	// bytes alias it.
	s.cached, s.sums, s.buf = body, sums, body[:0]
	s.cacheFile = ""
	return true
}

// parseSecCache checks a cache file's payload meta against the size of
// the section and the bytes that follow (body), and returns the blocks'
// checksums.
func parseSecCache(meta, body []byte, size uint64) (sums []uint32, ok bool) {
	c := dwarfbuf.Cursor{B: meta}
	nb := (size + secCacheBlock - 1) / secCacheBlock
	if c.U64() != size || uint64(c.U32()) != secCacheBlock || uint64(c.U32()) != nb ||
		uint64(c.Left()) != 4*nb || uint64(len(body)) != size {
		return nil, false
	}
	sums = make([]uint32, nb)
	for i := range sums {
		sums[i] = c.U32()
	}
	return sums, true
}

// fromCache extends buf over the cached bytes to at least n, checking
// each block it reaches; false (and the cache dropped, to be written
// again) when a block does not check out.
func (s *section) fromCache(n uint64) bool {
	for have := uint64(len(s.buf)); have < n; {
		end := min(have+secCacheBlock, s.size)
		if cachefile.Checksum(s.cached[have:end]) != s.sums[have/secCacheBlock] {
			s.cached, s.sums = nil, nil
			if !secCacheUnwritable.Load() {
				s.cacheFile = cachefile.Path(cacheDir(), "section-", s.cacheKey)
			}
			return false
		}
		have = end
		s.buf = s.cached[:end]
	}
	return true
}

// writeCache writes the whole inflated section to its cache file, once;
// failures leave no cache, silently (it only saves time).
func (s *section) writeCache() {
	file := s.cacheFile
	s.cacheFile = ""
	if file == "" || uint64(len(s.buf)) != s.size {
		return
	}
	le := binary.LittleEndian
	nb := (s.size + secCacheBlock - 1) / secCacheBlock
	meta := make([]byte, 0, 16+4*nb)
	meta = le.AppendUint64(meta, s.size)
	meta = le.AppendUint32(meta, uint32(secCacheBlock))
	meta = le.AppendUint32(meta, uint32(nb))
	for i := uint64(0); i < nb; i++ {
		meta = le.AppendUint32(meta, cachefile.Checksum(s.buf[i*secCacheBlock:min((i+1)*secCacheBlock, s.size)]))
	}
	head, sum := secCacheFormat.Seal(s.cacheKey, meta)
	if err := atomicfile.Write(file, head, meta, sum, s.buf); err != nil {
		if errors.Is(err, atomicfile.ErrCreate) {
			secCacheUnwritable.Store(true)
		}
		return
	}
	trimCache(filepath.Dir(file), secCacheLimit)
}

// trimCache removes the cache files of dir (sections, and the unit
// tables of unitcache.go) used least recently until they hold at most
// limit bytes (cachedir.Trim).
func trimCache(dir string, limit int64) { cachedir.Trim(dir, limit, "section-", "units-") }
