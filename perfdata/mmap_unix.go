//go:build unix

package perfdata

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mmapFile maps the whole file read-only.
func mmapFile(fh *os.File, size int64) ([]byte, func() error, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, unix.EINVAL
	}
	b, err := unix.Mmap(int(fh.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return unix.Munmap(b) }, nil
}

// dropMapped gives the whole pages of b, a slice of a file mapping, back to
// the kernel: they leave the resident set, and reading b afterwards maps
// them again from the page cache, with the same contents.
func dropMapped(b []byte) {
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
