package native

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Target says which tasks and CPUs events are opened on, as perf record's
// --per-thread, -a and -C do.
type Target struct {
	// PerThread opens one event on the command (cpu -1) without inherit,
	// as perf record --per-thread: children are not followed.
	PerThread bool
	// AllCPUs records every task on every online CPU while the command
	// runs (perf record -a).
	AllCPUs bool
	// CPUs records every task on these CPUs while the command runs (perf
	// record -C); nil means none given.
	CPUs []int
}

// SystemWide says whether events are opened on CPUs for all tasks.
func (t Target) SystemWide() bool { return t.AllCPUs || len(t.CPUs) > 0 }

// Check rejects contradictory targets in one line.
func (t Target) Check() error {
	if t.PerThread && t.SystemWide() {
		return fmt.Errorf("--per-thread cannot be combined with -a or -C")
	}
	return nil
}

// Open is one perf_event_open call: pid and cpu as the syscall takes them.
type Open struct{ PID, CPU int }

// Opens returns the (pid, cpu) pairs perf record opens each event on for
// command pid with the online CPUs: per-thread (pid, -1); -a every online
// CPU with pid -1; -C the listed CPUs with pid -1; by default every online
// CPU with the command's pid (events inherited by its children).
func (t Target) Opens(pid int, online []int) []Open {
	var o []Open
	switch {
	case t.PerThread:
		o = append(o, Open{pid, -1})
	case len(t.CPUs) > 0:
		for _, c := range t.CPUs {
			o = append(o, Open{-1, c})
		}
	case t.AllCPUs:
		for _, c := range online {
			o = append(o, Open{-1, c})
		}
	default:
		for _, c := range online {
			o = append(o, Open{pid, c})
		}
	}
	return o
}

// OnlineCPUs lists the online CPUs (/sys/devices/system/cpu/online), or
// the CPUs this process may run on when that file is missing.
func OnlineCPUs() []int {
	if b, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
		var cpus []int
		for _, part := range strings.Split(strings.TrimSpace(string(b)), ",") {
			lo, hi, isRange := strings.Cut(part, "-")
			l, err1 := strconv.Atoi(lo)
			h := l
			var err2 error
			if isRange {
				h, err2 = strconv.Atoi(hi)
			}
			if err1 != nil || err2 != nil || h < l || h-l > 1<<16 {
				return onlineCPUs()
			}
			for c := l; c <= h; c++ {
				cpus = append(cpus, c)
			}
		}
		if len(cpus) > 0 {
			return cpus
		}
	}
	return onlineCPUs()
}
