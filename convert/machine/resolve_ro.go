package machine

import "github.com/perfpt/perfpt/convert/symbol"

// ROCache is ResolveRO's last answer.
type ROCache struct {
	ms     *Maps
	mp     *Map
	sym    *symbol.Symbol
	lo, hi uint64
}

// ResolveRO is ResolveInto for a parallel decode worker: the same answer,
// found without the maps' and the machine's caches (it writes only c).
func (m *Machine) ResolveRO(c *ROCache, t *Thread, kernel bool, addr uint64) (*Map, *symbol.Symbol, uint64) {
	var ms *Maps
	if kernel {
		ms = m.kmaps
	} else if t != nil {
		ms = t.Maps
	}
	if ms != nil && c.ms == ms && c.lo < c.hi {
		mp := c.mp
		if addr >= mp.Start && addr < mp.End {
			if a := mp.MapIP(addr); a >= c.lo && a < c.hi {
				return mp, c.sym, a
			}
		}
	}
	var mp *Map
	if kernel {
		mp = m.findKernel(addr)
	} else {
		mp = ms.Find(addr)
	}
	if mp == nil {
		// Resolve: the other address space.
		if addrKernel := addr >= m.KernelStart; addrKernel != kernel {
			var mp2 *Map
			if addrKernel {
				mp2 = m.findKernel(addr)
			} else if t != nil {
				mp2 = t.Maps.Find(addr)
			}
			if mp2 != nil {
				a := mp2.MapIP(addr)
				return mp2, mp2.DSO.Symbols().Find(a), a
			}
		}
		return nil, nil, addr
	}
	a := mp.MapIP(addr)
	sym, lo, hi := mp.DSO.Symbols().FindRange(a)
	*c = ROCache{ms: ms, mp: mp, sym: sym, lo: lo, hi: hi}
	return mp, sym, a
}

// Span returns the addresses [lo, hi) that resolve to mp and sym (but for
// their map-relative address), when they are what ResolveRO with c found
// last; lo == hi says nothing is known (LocCache.Span's).
func (c *ROCache) Span(mp *Map, sym *symbol.Symbol) (lo, hi uint64) {
	if c.mp == nil || c.mp != mp || c.sym != sym || c.lo >= c.hi {
		return 0, 0
	}
	lo, hi = mp.UnmapIP(c.lo), mp.UnmapIP(c.hi)
	if lo > hi { // wrapped
		return 0, 0
	}
	return max(lo, mp.Start), min(hi, mp.End)
}
