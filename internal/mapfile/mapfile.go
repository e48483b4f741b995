// Package mapfile gives the bytes of an input file: a large regular file is
// mapped read-only (no copy before decoding starts, and parallel decoders
// fault in only the pages they read); a small or special file (a pipe) is
// read whole.
package mapfile

import (
	"io"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// MinMapSize is the size from which a regular file is mapped, not read.
const MinMapSize = 1 << 20

// Open returns the contents of the named file and a function that
// releases them; the bytes must not be used after release.
func Open(name string) (data []byte, release func(), err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if size := st.Size(); st.Mode().IsRegular() && size >= MinMapSize && size == int64(int(size)) {
		if m, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE); err == nil {
			return m, func() { _ = unix.Munmap(m) }, nil
		}
	}
	data, err = io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}

// Drop gives the whole pages of b, a slice of a file mapping, back to the
// kernel: they leave the resident set, and reading b afterwards maps them
// again from the page cache, with the same contents. Long passes over a
// mapped file call it behind them so that the resident set does not grow
// with the file.
func Drop(b []byte) {
	if len(b) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(&b[0]))
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + uintptr(len(b))) &^ (page - 1)
	if hi <= lo {
		return
	}
	_ = unix.Madvise(b[lo-start:hi-start], unix.MADV_DONTNEED)
}
