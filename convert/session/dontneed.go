package session

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

var pageSize = uintptr(os.Getpagesize())

// dropPages tells the kernel we no longer need the whole pages of b, a
// slice of the mmapped perf.data: the parallel decode reads AUX data
// through the mapping, and the pages of the chunks it has finished would
// otherwise stay in the resident set, growing it with the trace. (The
// sequential decode reads AUX data with pread, and the record readers
// drop the pages they pass: perfdata's dropMapped.)
func dropPages(b []byte) {
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(&b[0]))
	end := start + uintptr(len(b))
	lo := (start + pageSize - 1) &^ (pageSize - 1)
	hi := end &^ (pageSize - 1)
	if hi <= lo {
		return
	}
	region := b[lo-start : hi-start]
	_ = unix.Madvise(region, unix.MADV_DONTNEED)
}
