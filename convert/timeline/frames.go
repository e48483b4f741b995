package timeline

import (
	"strings"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
)

// fnInfo is what a slice of a function says: its name (the symbol, as
// perf names it), its arguments (the DSO and the source line of the
// address it was entered at; the address itself when there is no symbol)
// and the function's address range ([lo, hi), empty without a symbol).
type fnInfo struct {
	name   Str
	args   [3]Arg
	nargs  int
	lo, hi uint64
	// fxt holds the Fuchsia records of a call to it ([0], a Begin of
	// category call), a return from it ([1], an End of category return),
	// a tail call to it ([2], a Begin of category tail) and one out of it
	// ([3], an End of category tail) as FXT.recent held them (valid while
	// cat is set and FXT.epoch is theirs): thread.directRuns and
	// directTail write them. (A tail call's Begin and End of a function
	// share their FXT.recent entry, by category and name, and so missed
	// it at each tail call through a PLT stub.)
	fxt [4]fxtRecord
}

// elsewhere says whether addr lies outside fi's function, which has a
// range.
func (fi *fnInfo) elsewhere(addr uint64) bool {
	return fi != nil && fi.hi > fi.lo && (addr < fi.lo || addr >= fi.hi)
}

// argList returns the arguments (nil for none).
func (fi *fnInfo) argList() []Arg {
	if fi == nil || fi.nargs == 0 {
		return nil
	}
	return fi.args[:fi.nargs]
}

// fnCache caches the fnInfo of each address entered, per address space:
// it is dropped when a map is inserted into it (an exec or an mmap).
type fnCache struct {
	maps    *machine.Maps
	gen     uint64
	m       map[uint64]*fnInfo
	dropped bool // by an exec: the threads that kept it look again
	// recent holds the last fnInfo looked up at each address hash, in
	// front of m (a call's target is mostly one of a few).
	recent [fnRecent]fnEntry
}

type fnEntry struct {
	addr uint64
	fi   *fnInfo
}

// fnRecent is the size of fnCache.recent (a power of 2).
const fnRecent = 256

// recentFn returns the recent entry of addr, or nil (c nil: none); fnAt
// would return it.
func (c *fnCache) recentFn(addr uint64) *fnInfo {
	if c == nil {
		return nil
	}
	if e := &c.recent[(addr^addr>>8)&(fnRecent-1)]; e.addr == addr {
		return e.fi
	}
	return nil
}

// fnAt returns the function at addr in t's address space.
func (c *converter) fnAt(t *thread, addr uint64) *fnInfo {
	th, fc := t.mth, t.fc
	if th == nil || fc == nil || th.Maps != fc.maps || fc.gen != th.Maps.Gen() || fc.dropped {
		// The thread's machine thread and its address space's cache,
		// kept while the address space does not change.
		th = c.m.FindThread(t.tid)
		if th == nil || th.PID != t.pid {
			th = c.m.FindNewThread(t.pid, t.tid)
		}
		fc = c.fns[t.pid]
		if fc == nil || fc.maps != th.Maps || fc.gen != th.Maps.Gen() {
			fc = &fnCache{maps: th.Maps, gen: th.Maps.Gen(), m: map[uint64]*fnInfo{}}
			c.fns[t.pid] = fc
		}
		t.mth, t.fc = th, fc
	}
	e := &fc.recent[(addr^addr>>8)&(fnRecent-1)]
	if e.fi != nil && e.addr == addr {
		return e.fi
	}
	fi := fc.m[addr]
	if fi == nil {
		fi = c.resolve(th, addr)
		fc.m[addr] = fi
	}
	e.addr, e.fi = addr, fi
	return fi
}

// resolve builds the fnInfo of addr.
func (c *converter) resolve(th *machine.Thread, addr uint64) *fnInfo {
	kernel := addr >= c.m.KernelStart
	l := c.m.Resolve(th, kernel, addr)
	fi := &fnInfo{}
	if l.Sym != nil {
		fi.name = c.strs.Intern(l.Sym.Name)
		if l.HasMap {
			// Sym's range is in the DSO's addresses: shift it to addr's.
			off := addr - l.Addr
			fi.lo, fi.hi = l.Sym.Start+off, l.Sym.End+off
		}
	} else {
		fi.name = c.nameUnknown
		fi.args[fi.nargs] = Arg{Name: c.argAddr, Kind: ArgPointer, U: addr}
		fi.nargs++
	}
	if l.HasMap && l.DSO != "" {
		fi.args[fi.nargs] = Arg{Name: c.argDSO, Kind: ArgString, S: c.strs.Intern(l.DSO)}
		fi.nargs++
	}
	if src := c.srcline(th, kernel, &l); src != "" && !strings.HasSuffix(src, ":0") {
		fi.args[fi.nargs] = Arg{Name: c.argSrc, Kind: ArgString, S: c.strs.Intern(src)}
		fi.nargs++
	}
	return fi
}

// srcline is the source line perf gives for l ("file:line").
func (c *converter) srcline(th *machine.Thread, kernel bool, l *sample.Loc) string {
	if !l.HasMap || l.Sym == nil {
		return ""
	}
	r := c.m.Resolver(th, kernel)
	return r.Srcline(l)
}
