package perfdata

import (
	"strconv"
	"strings"
)

// PerfName returns the name perf gives an event the recording does not
// name (evsel__name): the hardware, software, hardware cache, raw and
// breakpoint names with their modifiers ("cycles:pp", "L1-dcache-load-misses",
// "raw 0x1cd:p", "mem:0x601040:rw:u"), "unknown tracepoint" (a
// tracepoint is named from the tracing data), "unknown attr type: N".
func (a *EventAttr) PerfName() string {
	switch a.Type {
	case 0:
		if a.Config < uint64(len(hwNames)) {
			return hwNames[a.Config] + a.Modifiers()
		}
		return "unknown-hardware" + a.Modifiers()
	case 1:
		if a.Config < uint64(len(swNames)) {
			return swNames[a.Config] + a.Modifiers()
		}
		return "unknown-software" + a.Modifiers()
	case 2:
		return "unknown tracepoint"
	case 3:
		return hwCacheName(a.Config) + a.Modifiers()
	case 4:
		return "raw 0x" + strconv.FormatUint(a.Config, 16) + a.Modifiers()
	case 5:
		return bpName(a) + a.Modifiers()
	}
	return "unknown attr type: " + strconv.FormatInt(int64(int32(a.Type)), 10)
}

// hwNames is evsel__hw_names.
var hwNames = []string{"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles"}

// swNames is evsel__sw_names: perf 6.1 names the first ten software
// events only (bpf-output and cgroup-switches are "unknown-software").
var swNames = []string{"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy"}

// The hardware cache event names (evsel__hw_cache, _op, _result) and the
// operations each cache has (evsel__hw_cache_stat: read 1, write 2,
// prefetch 4).
var (
	hwCacheNames   = []string{"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node"}
	hwCacheOps     = [][2]string{{"load", "loads"}, {"store", "stores"}, {"prefetch", "prefetches"}}
	hwCacheResults = []string{"refs", "misses"}
	hwCacheStat    = []uint8{7, 5, 7, 7, 1, 1, 7}
)

// hwCacheName mirrors __evsel__hw_cache_name.
func hwCacheName(config uint64) string {
	typ, op, result := config&0xff, config>>8&0xff, config>>16&0xff
	switch {
	case typ >= uint64(len(hwCacheNames)):
		return "unknown-ext-hardware-cache-type"
	case op >= uint64(len(hwCacheOps)):
		return "unknown-ext-hardware-cache-op"
	case result >= uint64(len(hwCacheResults)):
		return "unknown-ext-hardware-cache-result"
	case hwCacheStat[typ]&(1<<op) == 0:
		return "invalid-cache"
	case result != 0:
		return hwCacheNames[typ] + "-" + hwCacheOps[op][0] + "-" + hwCacheResults[result]
	}
	return hwCacheNames[typ] + "-" + hwCacheOps[op][1]
}

// bpName mirrors __evsel__bp_name: "mem:0xADDR:rwx".
func bpName(a *EventAttr) string {
	b := "mem:0x" + strconv.FormatUint(a.Config1, 16) + ":"
	for i, c := range "rwx" {
		if a.BPType&(1<<i) != 0 {
			b += string(c)
		}
	}
	return b
}

// Modifiers mirrors evsel__add_modifiers (":u", ":uH", ":pp", ...).
func (a *EventAttr) Modifiers() string {
	var b strings.Builder
	f := a.Flags
	has := func(x AttrFlags) bool { return f&x != 0 }
	guestDefault := false
	if has(AttrFlagExcludeKernel) || has(AttrFlagExcludeUser) || has(AttrFlagExcludeHV) {
		if !has(AttrFlagExcludeKernel) {
			b.WriteByte('k')
		}
		if !has(AttrFlagExcludeUser) {
			b.WriteByte('u')
		}
		if !has(AttrFlagExcludeHV) {
			b.WriteByte('h')
		}
		guestDefault = true
	}
	if p := a.PreciseIP(); p > 0 {
		b.WriteString("ppp"[:p])
		guestDefault = true
	}
	if has(AttrFlagExcludeHost) || has(AttrFlagExcludeGuest) == guestDefault {
		if !has(AttrFlagExcludeHost) {
			b.WriteByte('H')
		}
		if !has(AttrFlagExcludeGuest) {
			b.WriteByte('G')
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return ":" + b.String()
}
