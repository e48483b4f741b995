package native

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// eventSys is what recording needs from the kernel's perf interface; tests
// replace it to drive a whole intel_pt recording on synthetic memory.
type eventSys interface {
	open(attr *unix.PerfEventAttr, pid, cpu int) (int, error)
	id(fd int) (uint64, error)
	mmap(fd int, off int64, size, prot int) ([]byte, error)
	munmap(b []byte)
	setOutput(fd, target int) error
	ioctl(fd int, req uint) error
	close(fd int)
}

// kernelSys is the real perf_event_open interface.
type kernelSys struct{}

func (kernelSys) open(attr *unix.PerfEventAttr, pid, cpu int) (int, error) {
	return unix.PerfEventOpen(attr, pid, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
}

func (kernelSys) id(fd int) (uint64, error) { return eventID(fd) }

func (kernelSys) mmap(fd int, off int64, size, prot int) ([]byte, error) {
	return unix.Mmap(fd, off, size, prot, unix.MAP_SHARED)
}

func (kernelSys) munmap(b []byte) { unix.Munmap(b) }

func (kernelSys) setOutput(fd, target int) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.PERF_EVENT_IOC_SET_OUTPUT, uintptr(target)); e != 0 {
		return fmt.Errorf("PERF_EVENT_IOC_SET_OUTPUT: %w", e)
	}
	return nil
}

func (kernelSys) ioctl(fd int, req uint) error { return ioctl(fd, req) }

func (kernelSys) close(fd int) { unix.Close(fd) }

// setAuxArea writes aux_offset and aux_size into a mapped user page, as
// the kernel requires before the AUX area is mapped.
func setAuxArea(meta []byte, off, size uint64) {
	pg := (*unix.PerfEventMmapPage)(unsafe.Pointer(&meta[0]))
	pg.Aux_offset, pg.Aux_size = off, size
}
