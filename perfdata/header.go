package perfdata

import (
	"encoding/binary"
	"io"
	"os"
)

// maxAttrs caps the number of attrs read from a header.
const maxAttrs = 1 << 16

// maxIDs caps the number of ids of one attr.
const maxIDs = 1 << 20

func newFile(ra io.ReaderAt, mem []byte, size int64) (*File, error) {
	if ra == nil && mem == nil {
		mem = []byte{}
	}
	f := &File{ra: ra, mem: mem, size: size}
	if mem != nil {
		f.ra = bytesReaderAt(mem)
	}
	f.init()
	var h [fileHeaderSize]byte
	if n, err := f.ra.ReadAt(h[:pipeHeaderSize], 0); n < pipeHeaderSize {
		return nil, errAt(int64(n), "file header", wrapEOF(orEOF(err)))
	}
	if err := checkMagic(h[:]); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	hsize := le.Uint64(h[8:])
	if hsize == pipeHeaderSize {
		// A pipe-mode stream saved to a file (perf record -o - > file).
		var r io.Reader
		if mem != nil {
			r = &byteStream{b: mem[pipeHeaderSize:]}
		} else {
			r = io.NewSectionReader(ra, pipeHeaderSize, 1<<62)
		}
		f.Pipe = true
		f.pipe = r
		f.ra = nil
		return f, nil
	}
	// perf_file_header__read: a header without the feature bitmap
	// (72 bytes, the first format) has no features.
	if hsize != fileHeaderSize && hsize != fileHeaderNoFeatures {
		return nil, errAt(8, "file header size (expected 104)", ErrBadSize)
	}
	if n, err := f.ra.ReadAt(h[:hsize], 0); n < int(hsize) {
		return nil, errAt(int64(n), "file header", wrapEOF(orEOF(err)))
	}
	f.attrSize = int64(le.Uint64(h[16:]))
	f.Legacy = le.Uint64(h[:]) == magicLegacy
	if f.Legacy && !legacyAttrSize(f.attrSize) {
		// try_all_file_abis: the attr size of a PERFFILE header
		// must be one of the first five ABIs' (a big-endian file
		// has it swapped).
		if legacyAttrSize(int64(binary.BigEndian.Uint64(h[16:]))) {
			return nil, errAt(0, "magic", ErrBigEndian)
		}
		return nil, errAt(16, "attr_size of a PERFFILE (first format) header", ErrBadMagic)
	}
	attrs := Section{int64(le.Uint64(h[24:])), int64(le.Uint64(h[32:]))}
	f.Data = Section{int64(le.Uint64(h[40:])), int64(le.Uint64(h[48:]))}
	// h[56:72] is the unused event_types section.
	var bits [4]uint64
	for i := range bits {
		bits[i] = le.Uint64(h[72+8*i:])
	}
	if err := f.checkSection(24, "attrs section", attrs); err != nil {
		return nil, err
	}
	// A data section cut short by the end of the file is read as perf
	// reads it (readable, below).
	if d := f.Data; d.Offset < 0 || d.Size < 0 || d.Offset+d.Size < d.Offset {
		return nil, errAt(40, "data section", ErrBadSize)
	}
	if err := f.readAttrs(attrs); err != nil {
		return nil, err
	}
	if err := f.readFeatureSections(bits); err != nil {
		return nil, err
	}
	f.buildIDMap()
	f.nameAttrs()
	return f, nil
}

// readable returns the end of the bytes of the data section that can be
// read. perf maps the data section, so where the file ends inside it the
// rest of the last page reads as zeros, and the pages after it cannot be
// read at all (perf dies of SIGBUS there): the data section ends, for
// reading, at the file's last page boundary.
func (f *File) readable() int64 {
	end := f.Data.Offset + f.Data.Size
	if f.size < 0 || end <= f.size {
		return end
	}
	page := int64(os.Getpagesize())
	return min(end, (f.size+page-1)/page*page)
}

// fileHeaderNoFeatures is the size of a struct perf_file_header without
// its feature bitmap (offsetof adds_features), which perf still reads.
const fileHeaderNoFeatures = 72

// legacyAttrSize reports whether n is the on-file attr size (attr and ids
// section) of one of the ABIs perf accepts in a PERFFILE header
// (attr_file_abi_sizes: PERF_ATTR_SIZE_VER0 to VER4).
func legacyAttrSize(n int64) bool {
	switch n - 16 {
	case 64, 72, 80, 96, 104:
		return true
	}
	return false
}

func orEOF(err error) error {
	if err == nil {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (f *File) init() {
	f.idToAttr = make(map[uint64]*Attr)
	f.FeatureSections = make(map[Feature]Section)
	f.featRaw = make(map[Feature][]byte)
	f.idPos, f.isPos = -1, -1
}

// checkSection checks that s lies inside the file.
func (f *File) checkSection(at int64, what string, s Section) error {
	if s.Offset < 0 || s.Size < 0 || s.Offset+s.Size < s.Offset {
		return errAt(at, what, ErrBadSize)
	}
	if f.size >= 0 && s.Offset+s.Size > f.size {
		return errAt(at, what+" extends past the end of the file", ErrTruncated)
	}
	return nil
}

// readAt reads n bytes at off, capped by the file's size.
func (f *File) readAt(off int64, n int64, what string) ([]byte, error) {
	if n < 0 || off < 0 || (f.size >= 0 && off+n > f.size) {
		return nil, errAt(off, what, ErrTruncated)
	}
	if f.mem != nil {
		return f.mem[off : off+n], nil
	}
	if n > 1<<30 {
		return nil, errAt(off, what, ErrBadSize)
	}
	b := make([]byte, n)
	if m, err := f.ra.ReadAt(b, off); m < len(b) {
		return nil, errAt(off+int64(m), what, wrapEOF(orEOF(err)))
	}
	return b, nil
}

func (f *File) readAttrs(s Section) error {
	if s.Size == 0 {
		return nil
	}
	if f.attrSize < attrSize0+16 || f.attrSize > 4096 {
		return errAt(16, "attr_size", ErrBadSize)
	}
	if s.Size%f.attrSize != 0 {
		return errAt(32, "attrs section size (not a multiple of attr_size)", ErrBadSize)
	}
	n := s.Size / f.attrSize
	if n > maxAttrs {
		return errAt(32, "attrs section size (too many attrs)", ErrBadSize)
	}
	b, err := f.readAt(s.Offset, s.Size, "attrs section")
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	for i := int64(0); i < n; i++ {
		off := s.Offset + i*f.attrSize
		rec := b[i*f.attrSize : (i+1)*f.attrSize]
		asz := le.Uint32(rec[4:])
		if asz == 0 {
			asz = attrSize0
		}
		if int64(asz)+16 > f.attrSize || asz < attrSize0 {
			return errAt(off+4, "perf_event_attr.size", ErrBadSize)
		}
		a := &Attr{EventAttr: decodeAttr(rec[:asz]), Index: len(f.Attrs)}
		ids := Section{int64(le.Uint64(rec[f.attrSize-16:])), int64(le.Uint64(rec[f.attrSize-8:]))}
		if err := f.checkSection(off+f.attrSize-16, "attr ids section", ids); err != nil {
			return err
		}
		if ids.Size%8 != 0 || ids.Size/8 > maxIDs {
			return errAt(off+f.attrSize-8, "attr ids section size", ErrBadSize)
		}
		if ids.Size > 0 {
			ib, err := f.readAt(ids.Offset, ids.Size, "attr ids")
			if err != nil {
				return err
			}
			a.IDs = make([]uint64, ids.Size/8)
			for j := range a.IDs {
				a.IDs[j] = le.Uint64(ib[8*j:])
			}
		}
		f.Attrs = append(f.Attrs, a)
	}
	return nil
}

func (f *File) readFeatureSections(bits [4]uint64) error {
	off := f.Data.Offset + f.Data.Size
	le := binary.LittleEndian
	for i := 0; i < MaxFeatures; i++ {
		if bits[i/64]&(1<<(i%64)) == 0 {
			continue
		}
		b, err := f.readAt(off, 16, "feature section table")
		if err != nil {
			// perf_header__process_sections reads the table in one go:
			// if it is cut short, perf has no features at all (but the
			// header still lists them).
			clear(f.FeatureSections)
			f.featTableErr = err
			f.featUnread = nil
			for j := 0; j < MaxFeatures; j++ {
				if bits[j/64]&(1<<(j%64)) != 0 {
					f.featUnread = append(f.featUnread, Feature(j))
				}
			}
			return nil
		}
		// A section past the end is the feature's failure, when it is
		// decoded (Features), not the file's.
		s := Section{int64(le.Uint64(b)), int64(le.Uint64(b[8:]))}
		f.FeatureSections[Feature(i)] = s
		off += 16
	}
	return nil
}

// buildIDMap maps sample ids to attrs and works out where a record's id
// lies (perf's evlist id_pos / is_pos).
func (f *File) buildIDMap() {
	for _, a := range f.Attrs {
		for _, id := range a.IDs {
			f.idToAttr[id] = a
		}
	}
	f.idPos, f.isPos = -1, -1
	if len(f.Attrs) == 0 {
		return
	}
	ip, is := idPos(f.Attrs[0].SampleType), isPos(f.Attrs[0].SampleType)
	for _, a := range f.Attrs[1:] {
		if idPos(a.SampleType) != ip {
			ip = -1
		}
		if isPos(a.SampleType) != is {
			is = -1
		}
	}
	f.idPos, f.isPos = ip, is
}

// idPos is the index (in u64s, after the header) of the id in a sample;
// -1 when the sample has none (perf's __perf_evsel__calc_id_pos).
func idPos(st SampleFormat) int {
	if st&SampleFormatIdentifier != 0 {
		return 0
	}
	if st&SampleFormatID == 0 {
		return -1
	}
	n := 0
	for _, b := range []SampleFormat{SampleFormatIP, SampleFormatTID, SampleFormatTime, SampleFormatAddr} {
		if st&b != 0 {
			n++
		}
	}
	return n
}

// isPos is the index, counted from the end (1 = last u64), of the id in a
// sample_id trailer; -1 when absent (perf's __perf_evsel__calc_is_pos).
func isPos(st SampleFormat) int {
	if st&SampleFormatIdentifier != 0 {
		return 1
	}
	if st&SampleFormatID == 0 {
		return -1
	}
	n := 1
	if st&SampleFormatCPU != 0 {
		n++
	}
	if st&SampleFormatStreamID != 0 {
		n++
	}
	return n
}

// byteStream is an io.Reader over a byte slice that also hands out views.
type byteStream struct {
	b   []byte
	off int
}

func (s *byteStream) Read(p []byte) (int, error) {
	if s.off >= len(s.b) {
		return 0, io.EOF
	}
	n := copy(p, s.b[s.off:])
	s.off += n
	return n, nil
}
