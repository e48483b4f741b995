package perfdata

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
)

// Magic is the first 8 bytes of a little-endian perf.data ("PERFILE2").
const Magic = 0x32454c4946524550

// magicSwapped is Magic as read from a big-endian file.
const magicSwapped = 0x50455246494c4532

// magicLegacy is the first 8 bytes of a perf.data of the first format
// ("PERFFILE"), whose endianness only its attr size tells (perf's
// check_magic_endian, try_all_file_abis).
const magicLegacy = 0x454c494646524550

const (
	fileHeaderSize = 104 // struct perf_file_header
	pipeHeaderSize = 16  // struct perf_pipe_file_header
)

// Section is a perf_file_section: a byte range of the file.
type Section struct {
	Offset int64
	Size   int64
}

// File is an open perf.data file, in file mode (read through an
// io.ReaderAt, mmapped by Open) or pipe mode (read once from an io.Reader
// by NewPipe). A File is not safe for concurrent iteration, but its
// ReaderAt may be used concurrently.
type File struct {
	// Attrs are the file's events in file order. In pipe mode they are
	// filled in as PERF_RECORD_HEADER_ATTR records go by.
	Attrs []*Attr
	// Pipe is true for a pipe-mode stream.
	Pipe bool
	// Legacy is true for a file of the first format (magic PERFFILE),
	// which perf reports as header version 0 (PERF_HEADER_VERSION_1).
	Legacy bool
	// Data is the data section (file mode).
	Data Section
	// FeatureSections lists, for each feature bit set in the header, where
	// its section lies (file mode; in pipe mode features arrive as
	// HEADER_FEATURE records and are kept in memory).
	FeatureSections map[Feature]Section
	// Dir is the perf.data directory Open was given (perf record --kcore
	// or --threads write one: the records in Dir/data, the kernel's code
	// in Dir/kcore_dir), "" for a plain file.
	Dir string

	path     string
	dirFiles []dirFile   // a directory's data.N files (openDirFiles)
	mem      []byte      // whole file when mmapped or given as bytes
	mapped   bool        // mem is Open's mapping of the file (not bytes given)
	ra       io.ReaderAt // the source in file mode
	size     int64       // file size, -1 when unknown
	closer   func() error
	fh       *os.File // the file Open opened (nil otherwise)
	pipe     io.Reader
	pipeOff  int64
	used     bool // pipe iteration started

	attrSize int64
	idToAttr map[uint64]*Attr
	idPos    int // position of the id in a sample (in u64s), -1 if not usable
	isPos    int // position of the id from the end of a sample_id trailer, -1
	featRaw  map[Feature][]byte
	feats    *Features
	// featTableErr: the feature section table could not be read;
	// featUnread: the features the header lists then.
	featTableErr error
	featUnread   []Feature
	timeConv     *RecordTimeConv
}

// Open opens and mmaps the perf.data file at path (file or pipe format).
// A directory is read as perf reads one (perf_data__open, open_dir): its
// "data" file, the directory kept in File.Dir. Close releases it.
func Open(path string) (*File, error) {
	dir := ""
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		dir, path = path, filepath.Join(path, "data")
	}
	fh, err := os.Open(path)
	if err != nil {
		// An *os.PathError naming DIR/data for a directory, as perf's
		// open_file_read does ("failed to open DIR/data: ...").
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	mem, unmap, err := mmapFile(fh, st.Size())
	if err != nil {
		// Fall back to reading through the os.File.
		f, err2 := newFile(fh, nil, st.Size())
		if err2 != nil {
			fh.Close()
			return nil, err2
		}
		f.path, f.Dir = path, dir
		f.fh = fh
		f.closer = fh.Close
		return f, f.withDirFiles()
	}
	f, err := newFile(nil, mem, int64(len(mem)))
	if err != nil {
		unmap()
		fh.Close()
		return nil, err
	}
	f.path, f.Dir = path, dir
	f.mapped = true
	f.fh = fh
	f.closer = func() error {
		err := unmap()
		if err2 := fh.Close(); err == nil {
			err = err2
		}
		return err
	}
	return f, f.withDirFiles()
}

// withDirFiles opens a directory's data.N files (openDirFiles) and makes
// Close close them too; on failure the file is closed.
func (f *File) withDirFiles() error {
	if err := f.openDirFiles(); err != nil {
		f.Close()
		return err
	}
	if len(f.dirFiles) > 0 {
		c := f.closer
		f.closer = func() error {
			err := c()
			if err2 := f.closeDirFiles(); err == nil {
				err = err2
			}
			return err
		}
	}
	return nil
}

// New reads a file-mode perf.data from r. If r has a Size() int64 method
// (os.File via Stat is not used; *io.SectionReader, *bytes.Reader and
// *strings.Reader have one) reads are checked against it.
func New(r io.ReaderAt) (*File, error) {
	size := int64(-1)
	if s, ok := r.(interface{ Size() int64 }); ok {
		size = s.Size()
	}
	return newFile(r, nil, size)
}

// NewBytes reads a perf.data held in memory: file mode, or a pipe-mode
// stream saved whole. Record slices (AUXTRACE data, raw sample data) alias
// b.
func NewBytes(b []byte) (*File, error) {
	return newFile(nil, b, int64(len(b)))
}

// NewPipe reads a pipe-mode perf.data stream (as written by `perf record
// -o -`) from r. It reads the 16-byte header now; attrs and features arrive
// with the records, so iterate with Records (once) before using Attrs or
// Features. A file-mode stream is rejected with ErrBadMagic.
func NewPipe(r io.Reader) (*File, error) {
	var h [pipeHeaderSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, errAt(0, "pipe header", wrapEOF(err))
	}
	if err := checkMagic(h[:]); err != nil {
		return nil, err
	}
	if sz := binary.LittleEndian.Uint64(h[8:]); sz != pipeHeaderSize {
		return nil, errAt(8, "pipe header size (expected 16; a file-mode header cannot be read from a pipe)", ErrBadMagic)
	}
	f := &File{Pipe: true, pipe: r, size: -1}
	f.init()
	return f, nil
}

// Close releases the file's mapping and descriptor. Slices obtained from
// records are invalid afterwards.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	c := f.closer
	f.closer = nil
	f.mem = nil
	f.ra = nil
	return c()
}

// Path returns the path of the file Open opened (DIR/data for a
// directory), "" for a File made otherwise.
func (f *File) Path() string { return f.path }

// ReaderAt returns the file's contents for random access, e.g. to read an
// AUXTRACE buffer lazily at RecordAuxtrace.DataOffset. Nil in pipe mode.
func (f *File) ReaderAt() io.ReaderAt {
	if f.mem != nil {
		return bytesReaderAt(f.mem)
	}
	return f.ra
}

// CanSeek reports whether the file's descriptor can be positioned at off
// (an lseek that succeeds). perf seeks to each feature section before it
// reads or prints it, and passes over one it cannot seek to: beyond the
// largest file its file system allows, or past 2^63. Without a file
// (pipe, bytes) only a negative off fails.
func (f *File) CanSeek(off int64) bool {
	if off < 0 {
		return false
	}
	if f.fh == nil {
		return true
	}
	_, err := f.fh.Seek(off, io.SeekStart)
	return err == nil
}

// Size returns the file's size, or -1 when unknown (pipe mode, or a
// ReaderAt without Size).
func (f *File) Size() int64 { return f.size }

// AttrByID returns the attr with the given sample id, or nil.
func (f *File) AttrByID(id uint64) *Attr { return f.idToAttr[id] }

func wrapEOF(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return ErrTruncated
	}
	return err
}

func checkMagic(h []byte) error {
	m := binary.LittleEndian.Uint64(h)
	switch {
	case m == Magic || m == magicLegacy:
		return nil
	case m == magicSwapped || binary.BigEndian.Uint64(h) == Magic:
		return errAt(0, "magic", ErrBigEndian)
	default:
		return errAt(0, "magic (expected PERFILE2)", ErrBadMagic)
	}
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
