package native

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Trigger takes an intel_pt snapshot at the N-th execution of a function
// of the command (perfpt record --trigger): a hardware execute breakpoint
// on it, counting N hits, whose overflow sends SIGUSR2 to the recorder,
// perf's snapshot control (perf record -S takes a snapshot on SIGUSR2).
type Trigger struct {
	Path  string // the executable
	Value uint64 // the function's address (relative to the load base for a PIE)
	PIE   bool
	N     int
}

// ErrTriggerNotHit: the command ended before the trigger's N-th hit; no
// snapshot was taken.
var ErrTriggerNotHit = errors.New("the trigger was not hit: no snapshot was taken")

// hwBreakpointX and the breakpoint's length (HW_BREAKPOINT_X, sizeof(long)).
const (
	hwBreakpointX   = 4
	hwBreakpointLen = 8
)

// triggerAddr is where the trigger's function is in process pid (which has
// exec'd the executable): for a PIE, the start of its mapping at offset 0
// plus the value.
func triggerAddr(pid int, tr *Trigger) (uint64, error) {
	if !tr.PIE {
		return tr.Value, nil
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[2] != "00000000" || fs[5] != tr.Path {
			continue
		}
		lo, _, _ := strings.Cut(fs[0], "-")
		base, err := strconv.ParseUint(lo, 16, 64)
		if err != nil {
			return 0, err
		}
		return base + tr.Value, nil
	}
	return 0, fmt.Errorf("%s is not mapped in process %d", tr.Path, pid)
}

// openTrigger opens the trigger's breakpoint on pid (and the threads it
// creates) and has its overflow signal SIGUSR2 to this process. (An
// inherited event has no ring: the overflow only signals.)
func openTrigger(sys eventSys, pid int, tr *Trigger) (int, error) {
	addr, err := triggerAddr(pid, tr)
	if err != nil {
		return -1, err
	}
	attr := unix.PerfEventAttr{Type: unix.PERF_TYPE_BREAKPOINT, Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Sample: uint64(tr.N), Bp_type: hwBreakpointX, Ext1: addr, Ext2: hwBreakpointLen,
		Bits: unix.PerfBitInherit | unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv, Wakeup: 1}
	fd, err := sys.open(&attr, pid, -1)
	if err != nil {
		return -1, fmt.Errorf("perf_event_open of a breakpoint at %#x: %w", addr, err)
	}
	if _, ok := sys.(kernelSys); ok {
		if err := signalOnOverflow(fd, syscall.SIGUSR2); err != nil {
			sys.close(fd)
			return -1, err
		}
	}
	return fd, nil
}

// signalOnOverflow makes the kernel send sig to this process when the
// event fd overflows (F_SETOWN, F_SETSIG, O_ASYNC).
func signalOnOverflow(fd int, sig syscall.Signal) error {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETOWN, os.Getpid()); err != nil {
		return fmt.Errorf("F_SETOWN on the breakpoint: %w", err)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETSIG, int(sig)); err != nil {
		return fmt.Errorf("F_SETSIG on the breakpoint: %w", err)
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl|unix.O_ASYNC)
	}
	if err != nil {
		return fmt.Errorf("O_ASYNC on the breakpoint: %w", err)
	}
	return nil
}
