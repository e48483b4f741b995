package dwarfbuf

import (
	"bytes"
	"testing"
)

func TestReads(t *testing.T) {
	type read func(c *Cursor) uint64
	u8 := func(c *Cursor) uint64 { return uint64(c.U8()) }
	u16 := func(c *Cursor) uint64 { return uint64(c.U16()) }
	u32 := func(c *Cursor) uint64 { return uint64(c.U32()) }
	u64 := func(c *Cursor) uint64 { return c.U64() }
	uint3 := func(c *Cursor) uint64 { return c.Uint(3) }
	uleb := func(c *Cursor) uint64 { return c.ULEB() }
	sleb := func(c *Cursor) uint64 { return uint64(c.SLEB()) }
	for _, tc := range []struct {
		name string
		in   []byte
		big  bool
		r    read
		want uint64
		off  int  // Off after the read
		bad  bool // the read failed
	}{
		{"u8", []byte{0xfe, 1}, false, u8, 0xfe, 1, false},
		{"u8 empty", nil, false, u8, 0, 0, true},
		{"u16 le", []byte{1, 2}, false, u16, 0x0201, 2, false},
		{"u16 be", []byte{1, 2}, true, u16, 0x0102, 2, false},
		{"u16 short", []byte{1}, false, u16, 0, 0, true},
		{"u32 le", []byte{1, 2, 3, 4}, false, u32, 0x04030201, 4, false},
		{"u32 be", []byte{1, 2, 3, 4}, true, u32, 0x01020304, 4, false},
		{"u64 le", []byte{1, 2, 3, 4, 5, 6, 7, 8}, false, u64, 0x0807060504030201, 8, false},
		{"u64 be", []byte{1, 2, 3, 4, 5, 6, 7, 8}, true, u64, 0x0102030405060708, 8, false},
		{"u64 short", []byte{1, 2, 3, 4, 5, 6, 7}, false, u64, 0, 0, true},
		{"uint3 le", []byte{1, 2, 3}, false, uint3, 0x030201, 3, false},
		{"uint3 be", []byte{1, 2, 3}, true, uint3, 0x010203, 3, false},
		{"uint3 short", []byte{1, 2}, false, uint3, 0, 0, true},
		{"uleb 1", []byte{0x7f}, false, uleb, 127, 1, false},
		{"uleb 2", []byte{0xe5, 0x8e, 0x26}, false, uleb, 624485, 3, false},
		{"uleb long", append(bytes.Repeat([]byte{0xff}, 11), 0x01), false, uleb, ^uint64(0), 12, false},
		{"uleb unterminated", []byte{0x80, 0x80}, false, uleb, 0, 2, true},
		{"sleb -1", []byte{0x7f}, false, sleb, neg(-1), 1, false},
		{"sleb -123456", []byte{0xc0, 0xbb, 0x78}, false, sleb, neg(-123456), 3, false},
		{"sleb 63", []byte{0x3f}, false, sleb, 63, 1, false},
		{"sleb 64", []byte{0xc0, 0x00}, false, sleb, 64, 2, false},
		{"sleb min", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, false, sleb, neg(-1 << 63), 10, false},
	} {
		c := &Cursor{B: tc.in, Big: tc.big}
		got := tc.r(c)
		if got != tc.want || c.Bad != tc.bad || c.Off != tc.off {
			t.Errorf("%s: %#x off %d bad %v, want %#x off %d bad %v", tc.name, got, c.Off, c.Bad, tc.want, tc.off, tc.bad)
		}
		if c.Bad {
			if v := c.U8(); v != 0 || !c.Bad {
				t.Errorf("%s: not sticky", tc.name)
			}
		}
	}
}

func TestTakeAndCString(t *testing.T) {
	c := &Cursor{B: []byte("ab\x00cd")}
	if s := c.CString(); string(s) != "ab" || c.Off != 3 {
		t.Fatalf("CString %q off %d", s, c.Off)
	}
	if c.Left() != 2 {
		t.Fatalf("Left %d", c.Left())
	}
	if s := c.CString(); s != nil || !c.Bad {
		t.Fatalf("unterminated: %q bad %v", s, c.Bad)
	}
	c = &Cursor{B: []byte{1, 2, 3}, Off: 1}
	if s := c.Take(2); !bytes.Equal(s, []byte{2, 3}) {
		t.Fatalf("Take %v", s)
	}
	if s := c.Take(0); s == nil || c.Bad {
		t.Fatalf("Take(0) at the end: %v bad %v", s, c.Bad)
	}
	if s := c.Take(1 << 63); s != nil || !c.Bad || c.Off != 3 {
		t.Fatalf("Take past the end: %v bad %v off %d", s, c.Bad, c.Off)
	}
	// Off past the end of B, as when a caller cuts B to an entry's end
	// after reading past it.
	for _, r := range []func(c *Cursor){
		func(c *Cursor) { c.Take(1) },
		func(c *Cursor) { c.U8() },
		func(c *Cursor) { c.U16() },
		func(c *Cursor) { c.U64() },
		func(c *Cursor) { c.Uint(3) },
		func(c *Cursor) { c.ULEB() },
		func(c *Cursor) { c.CString() },
		func(c *Cursor) { c.Encoded(PEPcrel|PESdata4, 0, 0, 0) },
	} {
		c = &Cursor{B: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9}[:2], Off: 5}
		r(c)
		if !c.Bad || c.Off != 5 {
			t.Errorf("read with Off past the end: bad %v off %d", c.Bad, c.Off)
		}
	}
}

func TestEncoded(t *testing.T) {
	const base, data, fn = 0x1000, 0x8000, 0x9000
	for _, tc := range []struct {
		name string
		in   []byte
		off  int
		enc  uint8
		want uint64
		ok   bool
	}{
		{"absptr", []byte{1, 0, 0, 0, 0, 0, 0, 0}, 0, PEAbsptr, 1, true},
		{"udata2", []byte{0xff, 0xff}, 0, PEUdata2, 0xffff, true},
		{"sdata2", []byte{0xfe, 0xff}, 0, PESdata2, neg(-2), true},
		{"udata4", []byte{4, 3, 2, 1}, 0, PEUdata4, 0x01020304, true},
		{"uleb", []byte{0x81, 0x01}, 0, PEUleb128, 129, true},
		{"sleb", []byte{0x7e}, 0, PESleb128, neg(-2), true},
		{"pcrel sdata4", []byte{0, 0, 0xf0, 0xff, 0xff, 0xff}, 2, PEPcrel | PESdata4, base + 2 - 16, true},
		{"pcrel zero stays zero", []byte{0, 0, 0, 0}, 0, PEPcrel | PESdata4, 0, true},
		{"datarel", []byte{8, 0, 0, 0}, 0, PEDatarel | PEUdata4, data + 8, true},
		{"funcrel", []byte{8, 0}, 0, PEFuncrel | PEUdata2, fn + 8, true},
		{"aligned", []byte{9, 9, 9, 9, 9, 9, 9, 9, 5, 0, 0, 0, 0, 0, 0, 0}, 3, PEAligned, 5, true},
		{"textrel", []byte{8, 0, 0, 0}, 0, PETextrel | PEUdata4, 0, false},
		{"indirect", []byte{8, 0, 0, 0}, 0, PEIndirect | PEPcrel | PESdata4, 0, false},
		{"omit", []byte{8, 0, 0, 0}, 0, PEOmit, 0, false},
		{"unknown format", []byte{8, 0, 0, 0}, 0, 0x05, 0, false},
		{"short", []byte{8, 0, 0}, 0, PEUdata4, 0, false},
	} {
		c := &Cursor{B: tc.in, Off: tc.off}
		got, ok := c.Encoded(tc.enc, base, data, fn)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %#x %v, want %#x %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func neg(v int64) uint64 { return uint64(v) }

// FuzzCursor reads the input as a program of reads: no read may panic or
// move Off outside B, and after the first failure every read returns
// zero.
func FuzzCursor(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x80, 0x80, 0x01})
	f.Add([]byte{0x9b, 0xff, 0xff, 0xff, 0x7f, 0x1b, 0x10, 0, 0, 0, 0x50, 0xff})
	f.Add([]byte("\x07abc\x00\x0aFF"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := &Cursor{B: b, Big: len(b)%2 == 1}
		for steps := 0; steps < 4*len(b)+4; steps++ {
			op := c.U8()
			wasBad := c.Bad
			var v uint64
			switch op % 11 {
			case 0:
				v = uint64(c.U16())
			case 1:
				v = uint64(c.U32())
			case 2:
				v = c.U64()
			case 3:
				v = c.Uint(int(op>>4) % 9)
			case 4:
				v = c.ULEB()
			case 5:
				v = uint64(c.SLEB())
			case 6:
				v = uint64(len(c.CString()))
			case 7:
				v = uint64(len(c.Take(uint64(op >> 4))))
			case 8:
				v, _ = c.Format(op >> 3)
			default:
				v, _ = c.Encoded(c.U8(), 0x1000, 0x2000, 0x3000)
			}
			if c.Off < 0 || c.Off > len(c.B) {
				t.Fatalf("Off %d outside [0, %d]", c.Off, len(c.B))
			}
			if wasBad && (v != 0 || !c.Bad) {
				t.Fatalf("read after a failure gave %#x, bad %v", v, c.Bad)
			}
			if c.Bad {
				break
			}
		}
	})
}
