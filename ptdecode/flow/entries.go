package flow

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Run entries of a mapping, one per byte of code, in one array: the fast
// path reads an entry with one load. Arrays up to heapEntriesMax bytes come
// from the Go heap. Larger ones are mapped from the operating system
// without reserving memory: only the pages of entries that are used are
// backed (a page of entries covers 512 bytes of code, a huge page 256 KiB),
// the garbage collector does not count or clear them, and they are
// unmapped when their mapCache is collected.

const (
	heapEntriesMax = 256 << 10
	// hugeEntriesMax is the largest mapped array that may use huge pages
	// (transparent huge pages, where the system allows them for
	// madvise): far fewer page faults, which cost more when several
	// workers fill one array (a 2 MiB Go binary: 8200 -> 2800 faults,
	// -j 2 1.8x -> 2.0x -j 1), for at most this much more memory.
	hugeEntriesMax = 64 << 20
	// flatMax is the largest mapping whose runs are kept in one array
	// (8 GiB of address space); larger ones have pages of entries,
	// allocated on use.
	flatMax = 1 << 30
)

// allocFlat gives mc an entry array for n bytes of code, or returns false.
func (mc *mapCache) allocFlat(n uint64) bool {
	if n > flatMax {
		return false
	}
	if n*8 <= heapEntriesMax {
		mc.flat = make([]atomic.Uint64, n)
		return true
	}
	mem, err := unix.Mmap(-1, 0, int(n*8), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return false
	}
	if n*8 <= hugeEntriesMax {
		_ = unix.Madvise(mem, unix.MADV_HUGEPAGE)
	}
	mc.flat = unsafe.Slice((*atomic.Uint64)(unsafe.Pointer(&mem[0])), n)
	runtime.AddCleanup(mc, func(mem []byte) { _ = unix.Munmap(mem) }, mem)
	return true
}
