package srcline

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/perfpt/perfpt/internal/inflate"
)

// maxSectionSize caps the (decompressed) size of a debug section read
// into memory.
const maxSectionSize = 1 << 30

// section is one debug section of an ELF file, read on demand: only the
// prefix that lookups have needed so far is in memory. A compressed
// section (SHF_COMPRESSED with zlib or zstd, or a GNU .zdebug_ section)
// is inflated as far as the prefix reaches, so that a lookup in an early
// compile unit does not pay for the whole section.
type section struct {
	name string
	r    io.ReaderAt
	off  int64  // where the raw bytes start in the file
	raw  uint64 // raw size in the file
	size uint64 // size once decompressed
	buf  []byte // the prefix read so far
	// inf inflates a zlib section of a plausible size into one buffer;
	// z reads the others.
	inf *inflate.Zlib
	z   io.Reader
	zc  io.Closer
	err error
	// ctype is the compression (0 for none), hdr the size of its header.
	ctype elf.CompressionType
	hdr   int64
	// The cache of inflated sections (seccache.go): cached holds the
	// section from the cache file, its blocks checked against sums as
	// far as buf reaches; cacheFile is where to write the section once
	// inflated ("" for nowhere), cacheKey what it is.
	cached    []byte
	sums      []uint32
	cacheFile string
	cacheKey  []byte
}

// chunk is how much more of a section is read at least when a prefix
// grows.
const chunk = 64 << 10

// openSection prepares s for lazy reading; nil when f has no such section
// (or it holds no bytes). A compressed section comes from the cache of
// inflated sections when id (the file's identity, see fileIdentity) has
// one there, else it is inflated and, when large enough, cached.
func openSection(f *elf.File, r io.ReaderAt, name string, id []byte) *section {
	s := f.Section(name)
	z := false
	if s == nil {
		s = f.Section(".zdebug" + name[len(".debug"):])
		z = s != nil
	}
	if s == nil || s.Type == elf.SHT_NOBITS || s.FileSize == 0 {
		return nil
	}
	sec := &section{name: s.Name, r: r, off: int64(s.Offset), raw: s.FileSize, size: s.FileSize}
	switch {
	case s.Flags&elf.SHF_COMPRESSED != 0:
		sec.err = sec.compressed(f)
	case z:
		sec.err = sec.gnuCompressed()
	}
	if sec.size > maxSectionSize {
		sec.err = fmt.Errorf("%s: %d bytes is too large", sec.name, sec.size)
	}
	if sec.err == nil && sec.ctype != 0 {
		if !sec.openCache(id) {
			sec.err = sec.startInflate()
		}
	}
	return sec
}

// compressed reads the ELF compression header of an SHF_COMPRESSED
// section.
func (s *section) compressed(f *elf.File) error {
	var hdr [24]byte
	n := 24
	if f.Class == elf.ELFCLASS32 {
		n = 12
	}
	if _, err := s.r.ReadAt(hdr[:n], s.off); err != nil {
		return fmt.Errorf("%s: compression header: %w", s.name, err)
	}
	var typ uint32
	if n == 24 {
		typ = f.ByteOrder.Uint32(hdr[:])
		s.size = f.ByteOrder.Uint64(hdr[8:])
	} else {
		typ = f.ByteOrder.Uint32(hdr[:])
		s.size = uint64(f.ByteOrder.Uint32(hdr[4:]))
	}
	switch elf.CompressionType(typ) {
	case elf.COMPRESS_ZLIB, elf.COMPRESS_ZSTD:
		s.ctype, s.hdr = elf.CompressionType(typ), int64(n)
	default:
		return fmt.Errorf("%s: unknown compression type %d", s.name, typ)
	}
	return nil
}

// startInflate reads the compressed stream and prepares its inflating.
func (s *section) startInflate() error {
	rest, err := s.compressedBytes(s.hdr)
	if err != nil {
		return err
	}
	if s.ctype == elf.COMPRESS_ZSTD {
		zr, err := zstd.NewReader(bytes.NewReader(rest), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		s.z = zr
		return nil
	}
	return s.zlib(rest)
}

// zlib prepares the inflating of a zlib stream: into one buffer of the
// section's size when the size is plausible (DWARF inflates to a few
// times its compressed size), else through a reader whose memory grows
// with what it reads.
func (s *section) zlib(rest []byte) error {
	if s.size <= 64*s.raw+1<<20 && s.size <= maxSectionSize {
		inf, err := inflate.New(rest, int(s.size))
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		s.inf = inf
		return nil
	}
	zr, err := zlib.NewReader(bytes.NewReader(rest))
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	s.z, s.zc = zr, zr
	return nil
}

// compressedBytes reads the compressed stream that starts hdr bytes into
// the section into memory: the stream is small next to what it inflates
// to.
func (s *section) compressedBytes(hdr int64) ([]byte, error) {
	n := int64(s.raw) - hdr
	if n < 0 || s.raw > maxSectionSize {
		return nil, fmt.Errorf("%s: bad compressed size %d", s.name, s.raw)
	}
	b := make([]byte, n)
	if got, err := s.r.ReadAt(b, s.off+hdr); got != len(b) {
		return nil, fmt.Errorf("%s: reading %d compressed bytes: %v", s.name, n, err)
	}
	return b, nil
}

// gnuCompressed reads the header of a .zdebug_ section: "ZLIB" and the
// big-endian size.
func (s *section) gnuCompressed() error {
	var hdr [12]byte
	if _, err := s.r.ReadAt(hdr[:], s.off); err != nil || string(hdr[:4]) != "ZLIB" {
		return fmt.Errorf("%s: no ZLIB header", s.name)
	}
	s.size = binary.BigEndian.Uint64(hdr[4:])
	s.ctype, s.hdr = elf.COMPRESS_ZLIB, 12
	return nil
}

// prefix returns the section's first n bytes (all of it when n is
// larger), reading or inflating what is not in memory yet. It returns
// fewer bytes when the section cannot be read that far; the error says
// why. Memory grows with what is actually read, never with the size the
// file claims.
func (s *section) prefix(n uint64) ([]byte, error) {
	if s == nil {
		return nil, nil
	}
	n = min(n, s.size)
	if s.cached != nil && uint64(len(s.buf)) < n {
		if s.fromCache(n) {
			return s.buf[:n], nil
		}
		// The cache file does not check out: inflate after all.
		if s.err = s.startInflate(); s.err != nil {
			return s.buf[:0], s.err
		}
		s.buf = nil
	}
	want := n
	if s.cacheFile != "" && s.err == nil && n > 0 {
		// A section worth caching is inflated whole, then cached.
		want = s.size
	}
	if s.inf != nil && uint64(len(s.buf)) < want && s.err == nil {
		// Inflating costs nothing more per step: go just as far.
		b, err := s.inf.Fill(int(min(want+chunk, s.size)))
		s.buf = b
		if err != nil {
			s.err = fmt.Errorf("%s: %w", s.name, err)
		}
		if s.err != nil || uint64(len(b)) == s.size {
			s.inf = nil
		}
	}
	for uint64(len(s.buf)) < want && s.err == nil {
		s.grow(min(max(uint64(len(s.buf))+chunk, uint64(len(s.buf))*2), s.size))
	}
	if s.cacheFile != "" && s.err == nil && uint64(len(s.buf)) == s.size {
		s.writeCache()
	}
	return s.buf[:min(uint64(len(s.buf)), n)], s.err
}

// grow reads the section up to want bytes.
func (s *section) grow(want uint64) {
	if s.buf == nil && s.z != nil && s.size <= 64*s.raw+1<<20 {
		// A compressed section goes to a buffer of its whole size at
		// once (when the size is plausible: DWARF inflates to a few
		// times its compressed size), so that its prefix never moves.
		s.buf = make([]byte, 0, s.size)
	}
	if uint64(cap(s.buf)) < want {
		nb := make([]byte, len(s.buf), want)
		copy(nb, s.buf)
		s.buf = nb
	}
	have := len(s.buf)
	dst := s.buf[have:want]
	var got int
	var err error
	if s.z != nil {
		got, err = io.ReadFull(s.z, dst)
	} else {
		got, err = s.r.ReadAt(dst, s.off+int64(have))
		if got == len(dst) {
			err = nil
		}
	}
	s.buf = s.buf[:have+got]
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%s: truncated at %d of %d bytes", s.name, len(s.buf), s.size)
		} else {
			err = fmt.Errorf("%s: %w", s.name, err)
		}
		s.err = err
		s.release()
	}
	if uint64(len(s.buf)) == s.size {
		s.release()
	}
}

// all returns the whole section.
func (s *section) all() ([]byte, error) {
	if s == nil {
		return nil, nil
	}
	return s.prefix(s.size)
}

func (s *section) release() {
	if s.zc != nil {
		s.zc.Close()
	}
	if d, ok := s.z.(*zstd.Decoder); ok {
		d.Close()
	}
	s.z, s.zc = nil, nil
}
