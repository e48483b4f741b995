package srcline

import "encoding/binary"

// cursor reads DWARF data from a byte slice with a sticky failure: the
// first read past the end sets bad, and every read after it returns
// zero. It never panics.
type cursor struct {
	b     []byte
	off   int
	bad   bool
	order binary.ByteOrder
}

func (c *cursor) left() int { return len(c.b) - c.off }

func (c *cursor) take(n uint64) []byte {
	if c.bad || n > uint64(c.left()) {
		c.bad = true
		return nil
	}
	s := c.b[c.off : c.off+int(n)]
	c.off += int(n)
	return s
}

func (c *cursor) u8() uint8 {
	if c.bad || c.off >= len(c.b) {
		c.bad = true
		return 0
	}
	v := c.b[c.off]
	c.off++
	return v
}

func (c *cursor) u16() uint16 {
	if s := c.take(2); s != nil {
		return c.order.Uint16(s)
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if s := c.take(4); s != nil {
		return c.order.Uint32(s)
	}
	return 0
}

func (c *cursor) u64() uint64 {
	if s := c.take(8); s != nil {
		return c.order.Uint64(s)
	}
	return 0
}

// uint reads an n-byte unsigned value (1, 2, 3, 4 or 8 bytes).
func (c *cursor) uint(n int) uint64 {
	switch n {
	case 1:
		return uint64(c.u8())
	case 2:
		return uint64(c.u16())
	case 4:
		return uint64(c.u32())
	case 8:
		return c.u64()
	}
	s := c.take(uint64(n))
	var v uint64
	for i := range s {
		if c.order == binary.BigEndian {
			v = v<<8 | uint64(s[i])
		} else {
			v |= uint64(s[i]) << (8 * i)
		}
	}
	return v
}

func (c *cursor) uleb() uint64 {
	var v uint64
	var shift uint
	for {
		b := c.u8()
		if c.bad {
			return 0
		}
		if shift < 64 {
			v |= uint64(b&0x7f) << shift
		}
		shift += 7
		if b&0x80 == 0 {
			return v
		}
	}
}

func (c *cursor) sleb() int64 {
	var v int64
	var shift uint
	for {
		b := c.u8()
		if c.bad {
			return 0
		}
		if shift < 64 {
			v |= int64(b&0x7f) << shift
		}
		shift += 7
		if b&0x80 == 0 {
			if shift < 64 && b&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

// cstring reads a NUL-terminated string.
func (c *cursor) cstring() string {
	if c.bad {
		return ""
	}
	for i := c.off; i < len(c.b); i++ {
		if c.b[i] == 0 {
			s := string(c.b[c.off:i])
			c.off = i + 1
			return s
		}
	}
	c.bad = true
	return ""
}

// cstringAt returns the NUL-terminated string at off in b ("" and false
// when off is outside b or the string has no end).
func cstringAt(b []byte, off uint64) (string, bool) {
	if off >= uint64(len(b)) {
		return "", false
	}
	for i := off; i < uint64(len(b)); i++ {
		if b[i] == 0 {
			return string(b[off:i]), true
		}
	}
	return "", false
}
