package ptrace

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

func ptraceReq(req, pid int, addr, data uintptr) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, uintptr(req), uintptr(pid), addr, data, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func singleStep(pid, sig int) error {
	return ptraceReq(unix.PTRACE_SINGLESTEP, pid, 0, uintptr(sig))
}

func syscallCont(pid, sig int) error { return ptraceReq(unix.PTRACE_SYSCALL, pid, 0, uintptr(sig)) }

// procStatus returns a field of /proc/TID/status.
func procStatus(tid int, field string) (string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tid))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("no %s in /proc/%d/status", field, tid)
}

func tgid(tid int) int {
	v, err := procStatus(tid, "Tgid")
	if err != nil {
		return tid
	}
	n, _ := strconv.Atoi(v)
	return n
}

// caught says whether the thread's process has a handler for sig.
func caught(tid, sig int) bool {
	v, err := procStatus(tid, "SigCgt")
	if err != nil {
		return false
	}
	m, _ := strconv.ParseUint(v, 16, 64)
	return m&(1<<(sig-1)) != 0
}

func comm(tid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", tid))
	return strings.TrimSpace(string(b))
}

// syscalls after which the executable mappings may have changed.
func mapsSyscall(nr uint64) bool {
	switch nr {
	case unix.SYS_MMAP, unix.SYS_MPROTECT, unix.SYS_MUNMAP, unix.SYS_MREMAP, unix.SYS_REMAP_FILE_PAGES,
		unix.SYS_SHMAT, unix.SYS_SHMDT:
		return true
	}
	return false
}
