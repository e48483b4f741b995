package packet

import "math/bits"

// Item is a packet in the compact form [Decoder.Batch] writes, 16 bytes:
// its offset, kind and size, and 8 of its bytes, from which the accessors
// compute the fields a decoder's hot loop needs (IP, TNT, CYC, MTC, TSC)
// and [Item.Packet] the whole [Packet].
//
// The 8 bytes ([Item.Raw]) are those from the packet's start, for a packet
// of up to 8 bytes (the bytes past its end are those that follow it), and
// its last 8 for a longer one; [Item.Aux] is then the byte before them.
// Either way they hold all the packet's fields.
type Item struct {
	raw  uint64
	meta uint64 // offset | size<<40 | kind<<48 | aux<<56; size 0: a CYC, see Size
}

// Offsets in an Item have 40 bits: buffers up to 1 TiB.
const itemOffBits = 40

// Kind returns the packet's kind.
func (it Item) Kind() Kind { return Kind(it.meta >> 48) }

// Offset returns the packet's offset in the buffer.
func (it Item) Offset() int { return int(it.meta & (1<<itemOffBits - 1)) }

// Size returns the packet's size in bytes (Packet.Size).
func (it Item) Size() int {
	if s := uint8(it.meta >> 40); s != 0 {
		return int(s)
	}
	return cycSize(it.raw)
}

// cycSize returns the size of the CYC packet of up to 5 bytes whose first
// bytes are w: its last extension byte is the first of bytes 1..4 of w
// with bit 0 clear (9 if none: such a CYC the lanes leave to the general
// decoder, which sets its size).
func cycSize(w uint64) int { return (bits.TrailingZeros64(^w&cycStops|1<<63) + 15) >> 3 }

// Raw returns the packet's bytes as a little-endian word: its first 8
// bytes for a packet of up to 8 bytes, else its last 8.
func (it Item) Raw() uint64 { return it.raw }

// Aux returns the packet's first byte (its opcode) for a packet of up to 9
// bytes, else its byte Size-9.
func (it Item) Aux() byte { return byte(it.meta >> 56) }

// IPC returns an IP packet's compression (TIP, TIP.PGE, TIP.PGD, FUP).
func (it Item) IPC() IPC { return IPC(it.Aux() >> 5) }

// IP returns an IP packet's payload: the IP bytes as carried,
// zero-extended (Packet.Payload).
func (it Item) IP() uint64 {
	c := it.Aux() >> 5
	return it.raw >> ipShifts[c] & ipMasks[c]
}

var (
	ipMasks  = [8]uint64{0, 1<<16 - 1, 1<<32 - 1, 1<<48 - 1, 1<<48 - 1, 0, ^uint64(0), 0}
	ipShifts = [8]uint8{8, 8, 8, 8, 8, 8, 0, 8} // the full IP is the last 8 bytes of 9
)

// TNT returns a TNT-8 or TNT-64 packet's branch bits and their number
// (Packet.Payload and Packet.Bits): the oldest branch is bit n-1, 1 is
// taken.
func (it Item) TNT() (payload uint64, n int) {
	pl := uint64(it.Aux() >> 1)
	if it.Kind() == KindTNT64 {
		pl = it.raw >> 16 & (1<<48 - 1)
	}
	n = bits.Len64(pl) - 1
	return pl &^ (1 << uint(n)), n
}

// Cycles returns a CYC packet's cycle count (Packet.Payload).
func (it Item) Cycles() uint64 {
	v := uint64(it.Aux() >> 3)
	x, n := it.raw>>8, it.Size()-1 // the extension bytes
	if n == 8 {
		x = it.raw
	}
	for i := 0; i < n; i++ {
		v |= (x >> (8 * i) & 0xfe) << (4 + 7*i)
	}
	return v
}

// CTC returns an MTC packet's CTC payload (Packet.CTC).
func (it Item) CTC() uint16 { return uint16(uint8(it.raw >> 8)) }

// TSC returns a TSC packet's payload (Packet.Payload).
func (it Item) TSC() uint64 { return it.raw >> 8 }

// Packet returns the packet as Decoder.Next returns it, every field set.
func (it Item) Packet() Packet {
	size := it.Size()
	switch k := it.Kind(); k {
	case KindInvalid, KindOVF, KindPSB, KindPSBEnd, KindPad, KindStop:
		// No fields (an Invalid packet is SKZ84's, an OVF may be
		// SKD007's inside a CYC).
		return Packet{Kind: k, Size: uint8(size)}
	}
	var b [MaxSize]byte
	if size > 9 {
		// The bytes before the last 9 are constants of the kind.
		switch it.Kind() {
		case KindMNT:
			copy(b[:], []byte{opcExt, extExt2})
		case KindEVD:
			copy(b[:], []byte{opcExt, extEVD})
		default: // PTW, MWAIT
			b[0] = opcExt
		}
	}
	k := max(0, size-8)
	if k > 0 {
		b[k-1] = it.Aux()
	}
	for i := range 8 {
		b[k+i] = byte(it.raw >> (8 * i))
	}
	var p Packet
	var err error
	if it.Kind() == KindBIP {
		err = decodeBIP(&p, b[:size], size == 5)
	} else {
		err = decode(&p, b[:size])
	}
	if err != nil || int(p.Size) != size {
		return Packet{Kind: KindInvalid} // not an Item Batch wrote
	}
	return p
}

// makeItem returns the Item of packet p, decoded at buf[off:].
func makeItem(buf []byte, off int, p *Packet) Item {
	size := int(p.Size)
	k := off + max(0, size-8)
	var raw uint64
	if k+8 <= len(buf) {
		raw = le64(buf[k : k+8])
	} else {
		for i := len(buf) - 1; i >= k; i-- {
			raw = raw<<8 | uint64(buf[i])
		}
	}
	aux := buf[off+max(0, size-9)]
	return Item{raw: raw, meta: uint64(off) | uint64(size)<<40 | uint64(p.Kind)<<48 | uint64(aux)<<56}
}
