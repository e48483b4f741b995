package query

// tntCache holds conditional-branch bits not yet queried (libipt's
// pt_tnt_cache): mask selects the next (oldest) bit; zero means empty.
type tntCache struct {
	bits, mask uint64
}

func (c *tntCache) empty() bool { return c.mask == 0 }

// take returns the next bit; ok is false when the cache is empty.
func (c *tntCache) take() (taken, ok bool) {
	if c.mask == 0 {
		return false, false
	}
	taken = c.bits&c.mask != 0
	c.mask >>= 1
	return taken, true
}

// add appends size bits, oldest in bit size-1. It fails with CodeOverflow
// when the cache would hold more than 64 bits.
func (c *tntCache) add(bits uint64, size uint8) Code {
	if size == 0 {
		return CodeOK
	}
	if size > 64 {
		return CodeOverflow
	}
	mask := c.mask
	if mask != 0 {
		mask <<= size // Go shifts of 64 or more give 0
		if mask == 0 {
			return CodeOverflow
		}
	} else {
		mask = 1 << (size - 1)
	}
	c.mask = mask
	c.bits = c.bits<<size | bits&(1<<size-1)
	return CodeOK
}
