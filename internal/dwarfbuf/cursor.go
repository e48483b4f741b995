// Package dwarfbuf reads the binary encodings of DWARF and of the
// exception-handling tables (.debug_info, .debug_line, .eh_frame,
// .gcc_except_table) from a byte slice: fixed-size integers in either
// byte order, LEB128, NUL-terminated strings and DW_EH_PE pointers.
//
// A Cursor has a sticky failure, as debug/dwarf's buf: the first read
// past the end (or of an unknown pointer format) sets Bad, and every read
// after it returns zero. It never panics. Its fields are open to callers
// that move through the data themselves (skip to an offset, cut B to an
// entry's end).
package dwarfbuf

import "encoding/binary"

// Cursor reads from B at Off. The zero value with B set reads B from the
// start, little-endian.
type Cursor struct {
	B   []byte
	Off int
	Bad bool
	Big bool // big-endian values; little-endian when false
}

// Left returns the number of bytes after Off.
func (c *Cursor) Left() int { return len(c.B) - c.Off }

// Take returns the next n bytes (a sub-slice of B, not a copy). Off may
// lie past the end of B (a caller cut B short behind it): that fails.
func (c *Cursor) Take(n uint64) []byte {
	if left := c.Left(); c.Bad || left < 0 || n > uint64(left) {
		c.Bad = true
		return nil
	}
	s := c.B[c.Off : c.Off+int(n)]
	c.Off += int(n)
	return s
}

// U8 reads a byte.
func (c *Cursor) U8() uint8 {
	if c.Bad || c.Off >= len(c.B) {
		c.Bad = true
		return 0
	}
	v := c.B[c.Off]
	c.Off++
	return v
}

// U16 reads a 2-byte value.
func (c *Cursor) U16() uint16 {
	if s := c.Take(2); s != nil {
		if c.Big {
			return binary.BigEndian.Uint16(s)
		}
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

// U32 reads a 4-byte value.
func (c *Cursor) U32() uint32 {
	if s := c.Take(4); s != nil {
		if c.Big {
			return binary.BigEndian.Uint32(s)
		}
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

// U64 reads an 8-byte value.
func (c *Cursor) U64() uint64 {
	if s := c.Take(8); s != nil {
		if c.Big {
			return binary.BigEndian.Uint64(s)
		}
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

// Uint reads an n-byte unsigned value (n from 0 to 8: DWARF's 3-byte
// forms included).
func (c *Cursor) Uint(n int) uint64 {
	switch n {
	case 1:
		return uint64(c.U8())
	case 2:
		return uint64(c.U16())
	case 4:
		return uint64(c.U32())
	case 8:
		return c.U64()
	}
	s := c.Take(uint64(n))
	var v uint64
	for i := range s {
		if c.Big {
			v = v<<8 | uint64(s[i])
		} else {
			v |= uint64(s[i]) << (8 * i)
		}
	}
	return v
}

// ULEB reads an unsigned LEB128 value; bits past the 64th are dropped.
func (c *Cursor) ULEB() uint64 {
	var v uint64
	var shift uint
	for {
		b := c.U8()
		if c.Bad {
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

// SLEB reads a signed LEB128 value; bits past the 64th are dropped.
func (c *Cursor) SLEB() int64 {
	var v int64
	var shift uint
	for {
		b := c.U8()
		if c.Bad {
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

// CString reads a NUL-terminated string and returns it without the NUL
// (a sub-slice of B).
func (c *Cursor) CString() []byte {
	if c.Bad {
		return nil
	}
	for i := c.Off; i < len(c.B); i++ {
		if c.B[i] == 0 {
			s := c.B[c.Off:i]
			c.Off = i + 1
			return s
		}
	}
	c.Bad = true
	return nil
}
