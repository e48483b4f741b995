// Package cachefile frames the files of perfpt's caches between runs
// (inflated DWARF sections, unit tables, ELF symbol tables, the running
// kernel's symbols), so that each cache checks a file the same way
// before it trusts its bytes.
//
// A cache file is, in order:
//
//	magic     the Format's Magic: which cache the file belongs to
//	version   uint32: the layout of what follows
//	key       uint32 length, then the bytes: what the file was made for
//	payload   uint64 length, then the bytes: the cache's own
//	checksum  uint32: CRC-32C (Castagnoli) of all the above
//	rest      bytes the checksum does not cover (Seal and OpenHead):
//	          a cache that checks them itself, piece by piece
//
// All integers are little-endian. A file is found by a hash of its key
// (Path) and holds the key whole, so that two keys with the same hash
// never share a file's bytes. A file that does not check out is an error
// (Error, wrapping ErrFormat, ErrVersion, ErrKey or ErrDamaged): the
// cache ignores it and builds what it holds again. A cache bumps its
// Format's Version when its layout changes, so that files of older
// layouts are refused, never misread.
//
// Files are written whole or not at all (internal/atomicfile) and never
// rewritten in place, so that the bytes of a mapped file (Load) do not
// change under a reader.
package cachefile

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/perfpt/perfpt/internal/atomicfile"
	"github.com/perfpt/perfpt/internal/mapfile"
)

// Format is one cache's kind of file.
type Format struct {
	Magic   string // the first bytes of its files
	Version uint32 // the layout of their contents
}

// Why a file does not check out (wrapped in an *Error).
var (
	ErrFormat  = errors.New("not a file of this cache") // too short for its header, or another magic
	ErrVersion = errors.New("another version")
	ErrKey     = errors.New("made for another key")
	ErrDamaged = errors.New("damaged") // a length out of range, a checksum that differs, bytes after the end
)

// Error is a file that does not check out: Err says why, Off where.
type Error struct {
	Off int
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("cache file: offset %d: %v", e.Off, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum returns the CRC-32C of b, the checksum of a cache file; for
// a cache that checks its rest (OpenHead) itself.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// Seal returns the bytes that go before and after payload, given in
// parts (not copied: a big payload is written as it is), in a file of
// format f for key: the file is head, the parts, then sum.
func (f Format) Seal(key []byte, payload ...[]byte) (head, sum []byte) {
	n := 0
	for _, p := range payload {
		n += len(p)
	}
	le := binary.LittleEndian
	head = make([]byte, 0, len(f.Magic)+4+4+len(key)+8)
	head = append(head, f.Magic...)
	head = le.AppendUint32(head, f.Version)
	head = le.AppendUint32(head, uint32(len(key)))
	head = append(head, key...)
	head = le.AppendUint64(head, uint64(n))
	crc := crc32.Update(0, castagnoli, head)
	for _, p := range payload {
		crc = crc32.Update(crc, castagnoli, p)
	}
	return head, le.AppendUint32(nil, crc)
}

// Write replaces file with a file of format f that holds payload (the
// concatenation of its parts) for key, through internal/atomicfile (its
// ErrCreate when the file cannot be made at all).
func (f Format) Write(file string, key []byte, payload ...[]byte) error {
	head, sum := f.Seal(key, payload...)
	parts := make([][]byte, 0, len(payload)+2)
	parts = append(append(append(parts, head), payload...), sum)
	return atomicfile.Write(file, parts...)
}

// Open checks that data is a whole file of format f made for key and
// returns its payload, a sub-slice of data.
func (f Format) Open(data, key []byte) ([]byte, error) {
	payload, rest, err := f.OpenHead(data, key)
	if err == nil && len(rest) != 0 {
		return nil, &Error{len(data) - len(rest), ErrDamaged}
	}
	return payload, err
}

// OpenHead is Open for a file that goes on after its checksum: it
// returns too the bytes that follow it (for the cache to check).
func (f Format) OpenHead(data, key []byte) (payload, rest []byte, err error) {
	le := binary.LittleEndian
	p := len(f.Magic)
	if len(data) < p+8 || string(data[:p]) != f.Magic {
		return nil, nil, &Error{0, ErrFormat}
	}
	if le.Uint32(data[p:]) != f.Version {
		return nil, nil, &Error{p, ErrVersion}
	}
	p += 4
	kl := uint64(le.Uint32(data[p:]))
	p += 4
	if kl+8 > uint64(len(data)-p) {
		return nil, nil, &Error{p - 4, ErrDamaged}
	}
	k := data[p : p+int(kl)]
	p += int(kl)
	pl := le.Uint64(data[p:])
	p += 8
	if pl > uint64(len(data)-p) || uint64(len(data)-p)-pl < 4 {
		return nil, nil, &Error{p - 8, ErrDamaged}
	}
	end := p + int(pl)
	if Checksum(data[:end]) != le.Uint32(data[end:]) {
		return nil, nil, &Error{end, ErrDamaged}
	}
	if !bytes.Equal(k, key) {
		return nil, nil, &Error{len(f.Magic) + 8, ErrKey}
	}
	return data[p:end], data[end+4:], nil
}

// Path returns the file for key among the files of dir whose names start
// with prefix: prefix and a hash of key.
func Path(dir, prefix string, key []byte) string {
	h := fnv.New128a()
	h.Write(key)
	return filepath.Join(dir, prefix+hex.EncodeToString(h.Sum(nil)))
}

// StatID returns what identifies the contents of the file at path, whose
// information is fi, for a key when it has no build id: its absolute
// path, device, inode, size and modification time; false for a file that
// is not regular or whose device and inode are not known.
func StatID(path string, fi os.FileInfo) ([]byte, bool) {
	if fi == nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, false
	}
	b := append([]byte("stat:"), abs...)
	b = append(b, 0)
	for _, v := range []uint64{uint64(st.Dev), st.Ino, uint64(fi.Size()), uint64(fi.ModTime().UnixNano())} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b, true
}

// Load reads file (mapped when it is big, internal/mapfile) and opens it
// as Open does. On success it touches file, so that the caches used
// least recently are trimmed first (internal/cachedir.Trim), and release
// frees the bytes: the payload must not be used after it. On failure
// nothing is kept.
func (f Format) Load(file string, key []byte) (payload []byte, release func(), err error) {
	payload, _, release, err = f.load(file, key, false)
	return payload, release, err
}

// LoadHead is Load for a file that goes on after its checksum
// (OpenHead).
func (f Format) LoadHead(file string, key []byte) (payload, rest []byte, release func(), err error) {
	return f.load(file, key, true)
}

func (f Format) load(file string, key []byte, head bool) (payload, rest []byte, release func(), err error) {
	data, release, err := mapfile.Open(file)
	if err != nil {
		return nil, nil, nil, err
	}
	if head {
		payload, rest, err = f.OpenHead(data, key)
	} else {
		payload, err = f.Open(data, key)
	}
	if err != nil {
		release()
		return nil, nil, nil, err
	}
	now := time.Now()
	os.Chtimes(file, now, now)
	return payload, rest, release, nil
}
