package packet

import "unsafe"

// The SIMD kernel of Decoder.Batch (simd_amd64.s, for CPUs with AVX-512
// VBMI) finds the packet boundaries of 64 bytes at a time without walking
// the offset chain. For a window of 64 bytes at offset B it computes, for
// every byte i, the size the packet would have if it started at i (0, a
// "stop", for a packet it leaves to the general decoder), so next[i] =
// i+size[i], a byte vector whose values >= 64 point out of the window.
// Composing next with itself (a byte permutation, VPERMI2B, with the values
// >= 64 mapped to themselves) gives next^2, next^4, ..., next^64; the start
// of packet n from the window's entry e is next^n(e), computed for all 64
// n at once from the binary digits of n (lane n applies next^(2^k) where
// bit k of n is set). The packets are the lanes below X = next^64(e): the
// first offset out of the window (the next window's entry is X-64) or, if
// X < 64, a stop where the kernel returns. The windows are 64-byte steps
// apart from the decoder's offset rounded down, so only X depends on the
// previous window: the windows overlap in the CPU. Each packet then becomes
// an Item with byte permutations too: its 8 bytes gathered from the window
// and the next 64 bytes, its size and kind from per-byte tables, its
// offset B+i. The Items of a window are written after the next window is
// computed (software pipelining: the loop that writes them knows their
// number long before).
//
// The kernel takes what the lane step takes: the packets whose size their
// first byte tells, up to 8 bytes (not a full-IP TIP), a valid TNT-64 and
// a CYC of up to 5 bytes. It runs where every window has 128 bytes of
// buffer (the packets' 8 bytes), and Batch runs it only where the lanes
// would (no block, no SKD007, no error).

// simdTabT is the tables and constants of the kernel; the assembly reads
// its fields at the offsets of go_asm.h.
type simdTabT struct {
	size   [256]byte // by first byte: the size, 0 for a stop, 0x80 for a CYC with extension bytes (TNT-64 is tested aside)
	kind   [256]byte // by first byte: the Kind
	iota   [64]byte  // i
	idhi   [64]byte  // 64+i: the upper table of a permutation that keeps offsets >= 64
	rep    [64]byte  // byte 8j+t: j (lane j of a group takes packet j's start)
	inc    [64]byte  // byte 8j+t: t (the packet's bytes)
	moff   [64]byte  // byte 8j+6: 64 (the kind table is the upper one)
	ilo    [8]uint64 // interleave the raw words and metas of packets 0..3 of a group
	ihi    [8]uint64 // and of packets 4..7
	lanes  [6]uint64 // the lanes n with bit k set
	meta56 uint64    // bytes 5 and 6 of each word: size and kind in Item.meta
	b1     [64]byte  // the bytes 1, 2, 8, 64 and 0xa3
	b2     [64]byte
	b8     [64]byte
	b64    [64]byte
	ba3    [64]byte
}

var simdTab = func() (t simdTabT) {
	for i := range 256 {
		c := byte(i)
		switch s := tmplSize[c]; {
		case s != 0 && s <= laneMax:
			t.size[i], t.kind[i] = s, uint8(tmpl[c].Kind)
		case c == opcExt:
			t.kind[i] = uint8(KindTNT64)
		case c&7 == 7:
			t.size[i], t.kind[i] = 0x80, uint8(KindCYC)
		}
	}
	for i := range 64 {
		t.iota[i], t.idhi[i] = byte(i), byte(64+i)
		t.rep[i], t.inc[i] = byte(i/8), byte(i%8)
		if i%8 == 6 {
			t.moff[i] = 64
		}
	}
	for j := range 4 {
		t.ilo[2*j], t.ilo[2*j+1] = uint64(j), uint64(8+j)
		t.ihi[2*j], t.ihi[2*j+1] = uint64(4+j), uint64(12+j)
	}
	for k := range t.lanes {
		for n := range 64 {
			if n>>k&1 != 0 {
				t.lanes[k] |= 1 << n
			}
		}
	}
	t.meta56 = 0x6060606060606060
	for i := range 64 {
		t.b1[i], t.b2[i], t.b8[i], t.b64[i], t.ba3[i] = 1, 2, 8, 64, 0xa3
	}
	return t
}()

const (
	// simdWindow is the buffer a window of the kernel reads: its 64 bytes
	// and the next 64 (the 8 bytes of its last packets).
	simdWindow = 128
	// simdMinOut is the least room in out for the kernel: a window writes
	// up to 64 Items.
	simdMinOut = 64
	// simdMinBytes is the least buffer left for which Batch runs the
	// kernel.
	simdMinBytes = 256
)

// simd runs the kernel at d's offset and writes the packets to out
// (len(out) >= simdMinOut): n packets (0 when it could not decode the
// packet there); stop says that the packet after them is one it leaves to
// Next.
func (d *Decoder) simd(out []Item) (n int, stop bool) {
	n, next, stop := simdScan(unsafe.SliceData(d.buf), d.pos, len(d.buf)-simdWindow, unsafe.SliceData(out), len(out), &simdTab)
	if n == 0 {
		return 0, stop
	}
	last := &out[n-1]
	d.cur, d.pos = last.Offset(), next
	// The kernel's packets are quick's (raw holds their bytes).
	if quick(&d.pkt, byte(last.raw), last.raw>>8, true) == 0 {
		d.pkt = last.Packet()
	}
	return n, stop
}
