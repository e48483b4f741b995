package unwind

import "encoding/binary"

// cur reads little-endian CFI data from a byte slice with a sticky
// failure: the first read past the end sets bad, and every read after it
// returns zero. It never panics.
type cur struct {
	b   []byte
	off int
	bad bool
}

func (c *cur) left() int { return len(c.b) - c.off }

func (c *cur) take(n int) []byte {
	if c.bad || n < 0 || n > c.left() {
		c.bad = true
		return nil
	}
	s := c.b[c.off : c.off+n]
	c.off += n
	return s
}

func (c *cur) u8() uint8 {
	if c.bad || c.off >= len(c.b) {
		c.bad = true
		return 0
	}
	v := c.b[c.off]
	c.off++
	return v
}

func (c *cur) u16() uint16 {
	if s := c.take(2); s != nil {
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

func (c *cur) u32() uint32 {
	if s := c.take(4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (c *cur) u64() uint64 {
	if s := c.take(8); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

func (c *cur) uleb() uint64 {
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

func (c *cur) sleb() int64 {
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

// cstr reads a NUL-terminated string (without the NUL).
func (c *cur) cstr() []byte {
	if c.bad {
		return nil
	}
	for i := c.off; i < len(c.b); i++ {
		if c.b[i] == 0 {
			s := c.b[c.off:i]
			c.off = i + 1
			return s
		}
	}
	c.bad = true
	return nil
}

// Pointer encodings (DW_EH_PE_*).
const (
	peAbsptr   = 0x00
	peUleb128  = 0x01
	peUdata2   = 0x02
	peUdata4   = 0x03
	peUdata8   = 0x04
	peSleb128  = 0x09
	peSdata2   = 0x0a
	peSdata4   = 0x0b
	peSdata8   = 0x0c
	pePcrel    = 0x10
	peTextrel  = 0x20
	peDatarel  = 0x30
	peFuncrel  = 0x40
	peAligned  = 0x50
	peIndirect = 0x80
	peOmit     = 0xff
)

// format reads a value in the format part (low four bits) of a pointer
// encoding; ok is false for an unknown format or short data.
func (c *cur) format(enc uint8) (v uint64, ok bool) {
	switch enc & 0x0f {
	case peAbsptr:
		v = c.u64()
	case peUleb128:
		v = c.uleb()
	case peUdata2:
		v = uint64(c.u16())
	case peUdata4:
		v = uint64(c.u32())
	case peUdata8:
		v = c.u64()
	case peSleb128:
		v = uint64(c.sleb())
	case peSdata2:
		v = uint64(int64(int16(c.u16())))
	case peSdata4:
		v = uint64(int64(int32(c.u32())))
	case peSdata8:
		v = c.u64()
	default:
		return 0, false
	}
	return v, !c.bad
}

// encoded reads a pointer in encoding enc (libunwind's
// dwarf_read_encoded_pointer): base is the address of c.b[0] (for
// pcrel), data the datarel base, fn the funcrel base. An indirect pointer
// names memory of the process, which CFI parsing does not read: it
// fails, as do textrel and unknown encodings.
func (c *cur) encoded(enc uint8, base, data, fn uint64) (v uint64, ok bool) {
	if enc == peOmit {
		return 0, false
	}
	if enc&0x70 == peAligned {
		if pad := c.off & 7; pad != 0 {
			c.take(8 - pad)
		}
		enc = peAbsptr
	}
	at := base + uint64(c.off)
	if v, ok = c.format(enc); !ok || enc&peIndirect != 0 {
		return 0, false
	}
	if v == 0 {
		return 0, true // libunwind: a zero stays zero whatever the application
	}
	switch enc & 0x70 {
	case peAbsptr:
	case pePcrel:
		v += at
	case peDatarel:
		v += data
	case peFuncrel:
		v += fn
	default:
		return 0, false
	}
	return v, true
}
