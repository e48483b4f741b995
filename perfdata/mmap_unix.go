//go:build unix

package perfdata

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/perfpt/perfpt/internal/mapfile"
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

// dropMapped gives the whole pages of b, a slice of the file mapping, back
// to the kernel (mapfile.Drop).
func dropMapped(b []byte) { mapfile.Drop(b) }
