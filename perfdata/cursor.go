package perfdata

import (
	"bytes"
	"encoding/binary"
)

// cursor decodes little-endian values from b with a sticky error: the
// first short read records an *Error at base+off, later reads return zero
// values.
type cursor struct {
	b    []byte
	off  int
	base int64 // file offset of b[0]
	what string
	err  error
}

func (c *cursor) fail(n int) {
	if c.err == nil {
		c.err = errAt(c.base+int64(c.off), c.what, ErrTruncated)
	}
	c.off = len(c.b)
	_ = n
}

func (c *cursor) left() int { return len(c.b) - c.off }

func (c *cursor) u64() uint64 {
	if c.left() < 8 {
		c.fail(8)
		return 0
	}
	v := binary.LittleEndian.Uint64(c.b[c.off:])
	c.off += 8
	return v
}

func (c *cursor) u32() uint32 {
	if c.left() < 4 {
		c.fail(4)
		return 0
	}
	v := binary.LittleEndian.Uint32(c.b[c.off:])
	c.off += 4
	return v
}

func (c *cursor) u16() uint16 {
	if c.left() < 2 {
		c.fail(2)
		return 0
	}
	v := binary.LittleEndian.Uint16(c.b[c.off:])
	c.off += 2
	return v
}

func (c *cursor) u8() uint8 {
	if c.left() < 1 {
		c.fail(1)
		return 0
	}
	v := c.b[c.off]
	c.off++
	return v
}

func (c *cursor) i32() int32 { return int32(c.u32()) }

// bytes returns the next n bytes without copying.
func (c *cursor) bytes(n uint64) []byte {
	if n > uint64(c.left()) {
		c.fail(int(min(n, 1<<30)))
		return nil
	}
	v := c.b[c.off : c.off+int(n)]
	c.off += int(n)
	return v
}

// skip advances n bytes.
func (c *cursor) skip(n uint64) { c.bytes(n) }

// cstr reads a NUL-terminated string stored in n bytes.
func (c *cursor) cstr(n uint64) string {
	return cstring(c.bytes(n))
}

// cstrAligned reads a NUL-terminated string padded to 8 bytes, as the
// kernel stores names in MMAP/COMM records (see cstrRecord).
func (c *cursor) cstrAligned(rec []byte) string {
	return string(c.cstrRecord(rec))
}

// cstrRecord reads the NUL-terminated name at the cursor and consumes its
// padded length (at most what is left before the sample_id trailer). rec
// is the whole record, of which the cursor's bytes are a prefix: like
// perf, which reads the name as a C string from the record
// (perf_event__fprintf_mmap2, machine__process_mmap2_event), the string
// runs on into the trailer when the record has no NUL before it. Old
// kernels wrote MMAP2 records without prot and flags, whose names start 8
// bytes early and end in the trailer. A name with no NUL in the record
// ends at the record's end.
func (c *cursor) cstrRecord(rec []byte) []byte {
	if c.off > len(rec) {
		return nil
	}
	rest := rec[c.off:]
	if i := bytes.IndexByte(rest, 0); i >= 0 {
		rest = rest[:i]
	}
	n := min((len(rest)+8)&^7, len(c.b)-c.off)
	if n > 0 {
		c.off += n
	}
	return rest
}

// u64s decodes n u64s into dst[:0] (allocating when dst is too small).
func (c *cursor) u64s(dst []uint64, n uint64) []uint64 {
	if n > uint64(c.left()/8) {
		c.fail(int(min(n, 1<<27)) * 8)
		return dst[:0]
	}
	if uint64(cap(dst)) < n {
		dst = make([]uint64, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint64(c.b[c.off:])
		c.off += 8
	}
	return dst
}

func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
