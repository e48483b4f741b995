package session

import (
	"strings"

	"github.com/perfpt/perfpt/perfdata"
)

var hwNames = []string{"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles"}

var swNames = []string{"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches"}

// modifiers mirrors evsel__add_modifiers (":u", ":uH", ...).
func modifiers(a *perfdata.EventAttr) string {
	var b strings.Builder
	f := a.Flags
	has := func(x perfdata.AttrFlags) bool { return f&x != 0 }
	guestDefault := false
	if has(perfdata.AttrFlagExcludeKernel) || has(perfdata.AttrFlagExcludeUser) || has(perfdata.AttrFlagExcludeHV) {
		if !has(perfdata.AttrFlagExcludeKernel) {
			b.WriteByte('k')
		}
		if !has(perfdata.AttrFlagExcludeUser) {
			b.WriteByte('u')
		}
		if !has(perfdata.AttrFlagExcludeHV) {
			b.WriteByte('h')
		}
		guestDefault = true
	}
	if p := a.PreciseIP(); p > 0 {
		b.WriteString("ppp"[:p])
		guestDefault = true
	}
	if has(perfdata.AttrFlagExcludeHost) || has(perfdata.AttrFlagExcludeGuest) == guestDefault {
		if !has(perfdata.AttrFlagExcludeHost) {
			b.WriteByte('H')
		}
		if !has(perfdata.AttrFlagExcludeGuest) {
			b.WriteByte('G')
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return ":" + b.String()
}

// eventName mirrors evsel__name for an attr without a recorded name.
func eventName(a *perfdata.EventAttr) string {
	switch a.Type {
	case 0:
		if a.Config < uint64(len(hwNames)) {
			return hwNames[a.Config] + modifiers(a)
		}
		return "unknown-hardware" + modifiers(a)
	case 1:
		if a.Config < uint64(len(swNames)) {
			return swNames[a.Config] + modifiers(a)
		}
		return "unknown-software" + modifiers(a)
	}
	return "unknown attr type: " + itoa(int64(a.Type))
}

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var b [24]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
