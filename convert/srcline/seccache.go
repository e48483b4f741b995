package srcline

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/perfpt/perfpt/internal/atomicfile"
	"github.com/perfpt/perfpt/internal/cachedir"
	"github.com/perfpt/perfpt/internal/mapfile"
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
// modification time), the section's name, where it lies and its sizes. A
// header checksum guards the key and the checksums of the section's blocks,
// each checked the first time a lookup reaches into the block: a file that
// does not check out, at its header or at any block, is ignored and the
// section inflated (and cached) again. Files are written to a temporary
// name and renamed into place, never rewritten, so a reader's mapping never
// changes under it; the directory is kept under secCacheLimit bytes, the
// files used least recently removed first.

const (
	secCacheMagic   = "perfpt dwarf section\n"
	secCacheVersion = 1
)

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

var crcTable = crc32.MakeTable(crc32.Castagnoli)

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
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	path, err := filepath.Abs(f.Name())
	if err != nil {
		return nil
	}
	b := append([]byte("stat:"), path...)
	b = append(b, 0)
	for _, v := range []uint64{uint64(st.Dev), st.Ino, uint64(fi.Size()), uint64(fi.ModTime().UnixNano())} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
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
	file := cachePath(dir, key)
	s.cacheKey = key
	if !secCacheUnwritable.Load() {
		s.cacheFile = file
	}
	data, release, err := mapfile.Open(file)
	if err != nil {
		return false
	}
	sums, body, ok := parseSecCache(data, key, s.size)
	if !ok {
		release()
		return false
	}
	// The mapping is kept for the life of the process: the section's
	// bytes alias it.
	s.cached, s.sums, s.buf = body, sums, body[:0]
	s.cacheFile = ""
	now := time.Now()
	os.Chtimes(file, now, now) // least recently used goes first
	return true
}

// parseSecCache checks a cache file's header against key and size and
// returns its block checksums and the section's bytes.
func parseSecCache(data, key []byte, size uint64) (sums []uint32, body []byte, ok bool) {
	le := binary.LittleEndian
	n := len(secCacheMagic)
	if len(data) < n+8 || string(data[:n]) != secCacheMagic || le.Uint32(data[n:]) != secCacheVersion {
		return nil, nil, false
	}
	kl := uint64(le.Uint32(data[n+4:]))
	p := uint64(n + 8)
	if kl != uint64(len(key)) || p+kl+16 > uint64(len(data)) || !bytes.Equal(data[p:p+kl], key) {
		return nil, nil, false
	}
	p += kl
	if le.Uint64(data[p:]) != size || uint64(le.Uint32(data[p+8:])) != secCacheBlock {
		return nil, nil, false
	}
	nb := uint64(le.Uint32(data[p+12:]))
	p += 16
	if nb != (size+secCacheBlock-1)/secCacheBlock || p+4*nb+4 > uint64(len(data)) {
		return nil, nil, false
	}
	hdrEnd := p + 4*nb
	if crc32.Checksum(data[:hdrEnd], crcTable) != le.Uint32(data[hdrEnd:]) {
		return nil, nil, false
	}
	if uint64(len(data))-(hdrEnd+4) != size {
		return nil, nil, false
	}
	sums = make([]uint32, nb)
	for i := range sums {
		sums[i] = le.Uint32(data[p+4*uint64(i):])
	}
	return sums, data[hdrEnd+4:], true
}

// fromCache extends buf over the cached bytes to at least n, checking
// each block it reaches; false (and the cache dropped, to be written
// again) when a block does not check out.
func (s *section) fromCache(n uint64) bool {
	for have := uint64(len(s.buf)); have < n; {
		end := min(have+secCacheBlock, s.size)
		if crc32.Checksum(s.cached[have:end], crcTable) != s.sums[have/secCacheBlock] {
			s.cached, s.sums = nil, nil
			if !secCacheUnwritable.Load() {
				s.cacheFile = cachePath(cacheDir(), s.cacheKey)
			}
			return false
		}
		have = end
		s.buf = s.cached[:end]
	}
	return true
}

// cachePath is the cache file for key in dir.
func cachePath(dir string, key []byte) string {
	h := fnv.New128a()
	h.Write(key)
	return filepath.Join(dir, "section-"+hex.EncodeToString(h.Sum(nil)))
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
	h := make([]byte, 0, len(secCacheMagic)+8+len(s.cacheKey)+16+4*int(nb)+4)
	h = append(h, secCacheMagic...)
	h = le.AppendUint32(h, secCacheVersion)
	h = le.AppendUint32(h, uint32(len(s.cacheKey)))
	h = append(h, s.cacheKey...)
	h = le.AppendUint64(h, s.size)
	h = le.AppendUint32(h, uint32(secCacheBlock))
	h = le.AppendUint32(h, uint32(nb))
	for i := uint64(0); i < nb; i++ {
		h = le.AppendUint32(h, crc32.Checksum(s.buf[i*secCacheBlock:min((i+1)*secCacheBlock, s.size)], crcTable))
	}
	h = le.AppendUint32(h, crc32.Checksum(h, crcTable))
	if err := atomicfile.Write(file, h, s.buf); err != nil {
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
