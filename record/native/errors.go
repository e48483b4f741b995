package native

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// paranoid reads kernel.perf_event_paranoid ("" when unknown).
func paranoid() string {
	b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// openError explains in one line why perf_event_open of event failed.
func openError(event string, o Open, err error) error {
	where := fmt.Sprintf("on CPU %d", o.CPU)
	if o.CPU < 0 {
		where = fmt.Sprintf("on thread %d", o.PID)
	}
	var hint string
	switch {
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		hint = permissionHint(paranoid(), os.Geteuid() == 0, o.PID < 0)
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENODEV), errors.Is(err, unix.EOPNOTSUPP):
		hint = "this kernel or CPU does not support the event"
	case errors.Is(err, unix.EBUSY):
		hint = "the PMU is in use by another recording"
	case errors.Is(err, unix.EINVAL):
		hint = "the kernel rejected the event's attributes (is this PMU what sysfs describes?)"
	case errors.Is(err, unix.EMFILE):
		hint = "too many open files (raise ulimit -n)"
	}
	if hint != "" {
		return fmt.Errorf("perf_event_open(%s) %s: %v: %s", event, where, err, hint)
	}
	return fmt.Errorf("perf_event_open(%s) %s: %w", event, where, err)
}

// permissionHint says what kernel.perf_event_paranoid (level p) allows an
// unprivileged user.
func permissionHint(p string, root, systemWide bool) string {
	if root {
		return "denied even to root (a security module or container policy?)"
	}
	switch p {
	case "-1":
		return "denied although kernel.perf_event_paranoid is -1"
	case "0":
		if systemWide {
			return "kernel.perf_event_paranoid is 0: -a and -C need root or CAP_PERFMON"
		}
	}
	if p == "" {
		p = "unknown"
	}
	if systemWide {
		return "kernel.perf_event_paranoid is " + p + ": -a and -C need it at most 0, or root/CAP_PERFMON"
	}
	return "kernel.perf_event_paranoid is " + p + ": kernel sampling needs it at most 1 (or root/CAP_PERFMON); add :u to record user space only"
}
