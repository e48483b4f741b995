// Package mapfile gives the bytes of an input file: a large regular file is
// mapped read-only (no copy before decoding starts, and parallel decoders
// fault in only the pages they read); a small or special file (a pipe) is
// read whole.
package mapfile

import (
	"io"
	"os"

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
