package packet

import (
	"encoding/binary"
	"math/bits"
)

// The fast paths of Decode and Decoder.Next. Most packets of a trace are
// told by their first byte alone: tmpl holds, for each first byte c,
//
//   - Size 1: the whole packet (TNT-8, PAD, 1-byte CYC), copied as is;
//   - Size > 1: a packet whose kind and size c tells and whose payload is
//     in the little-endian word w of the 8 bytes after c (TIP, TIP.PGE,
//     TIP.PGD, FUP, MTC, TSC): tmplMask[c] masks the Payload in w, and the
//     template's CTC field the CTC;
//   - Size 0: a packet for the general decoder.
//
// So a fast-path packet is tmpl[c] with Payload |= w&tmplMask[c] and
// CTC = uint16(w)&CTC, with no branch on its kind.
var tmpl, tmplMask = func() (t [256]Packet, m [256]uint64) {
	for i := range t {
		c := byte(i)
		switch cls := opClass[c]; cls {
		case clsTNT8, clsPad:
			_ = decode(&t[i], []byte{c})
		case clsCYC:
			if c&4 == 0 {
				_ = decode(&t[i], []byte{c})
			}
		case clsTIP, clsPGE, clsPGD, clsFUP:
			if n := ipcSizes[c>>5]; n >= 0 {
				t[i] = Packet{Kind: ipKinds[cls], Size: uint8(1 + n), IPC: IPC(c >> 5)}
				m[i] = ^uint64(0) >> (64 - 8*uint(n))
			}
		case clsMTC:
			t[i] = Packet{Kind: KindMTC, Size: 2, CTC: 0xff}
		case clsTSC:
			t[i] = Packet{Kind: KindTSC, Size: 8}
			m[i] = 1<<56 - 1
		}
	}
	return t, m
}()

// branchSize is tmpl[c].Size for the TNT-8 packets and the TIPs with an
// IP (StepBranch's packets), else 0.
var branchSize = func() (s [256]uint8) {
	for i := range s {
		switch t := &tmpl[i]; t.Kind {
		case KindTNT8:
			s[i] = t.Size
		case KindTIP:
			if t.IPC != IPCSuppressed {
				s[i] = t.Size
			}
		}
	}
	return s
}()

// tmplSize is tmpl[c].Size: a byte table, indexed without the shift that
// a 32-byte template needs, on the chain from one packet's offset to the
// next (see BenchmarkOffsetChain).
var tmplSize = func() (s [256]uint8) {
	for i := range s {
		s[i] = tmpl[i].Size
	}
	return s
}()

// quick decodes into *p, which may hold anything, the packet whose first
// byte is c and whose next 8 bytes are w (little endian) when it is one of
// tmpl's packets, a TNT-64, or (if cyc) a CYC of up to 9 bytes. It returns
// the packet's size, or 0 to leave the packet to the general decoder.
func quick(p *Packet, c byte, w uint64, cyc bool) int {
	t := &tmpl[c]
	if t.Size != 0 {
		// Copy the template whole, then patch it: building the value
		// field by field would stall store forwarding on the copy.
		*p = *t
		p.Payload = t.Payload | w&tmplMask[c]
		p.CTC = uint16(w) & t.CTC
		return int(t.Size)
	}
	if c == opcExt && uint8(w) == extTNT64 {
		if n := tnt64Bits(w); n != 0 {
			*p = Packet{Kind: KindTNT64, Size: 8, Bits: uint8(n), Payload: w >> 8 & (1<<n - 1)}
			return 8
		}
	} else if c&7 == 7 && cyc {
		if v, n := longCYC(c, w); n != 0 {
			*p = Packet{Kind: KindCYC, Size: uint8(n), Payload: v}
			return n
		}
	}
	return 0
}

// tnt64Bits returns the number of branches of a TNT-64 packet (02 a3,
// then 6 payload bytes) from the word w after its first byte, or 0 for
// none (a bad packet). The payload's highest set bit is the stop bit.
func tnt64Bits(w uint64) uint {
	return uint(bits.Len64(w >> 8 & (1<<48 - 1) >> 1))
}

// longCYC decodes a CYC with extension bytes (c&7 == 7) from its first
// byte c and the word w of the 8 bytes after it: the cycle count and the
// packet's size, or size 0 when all 8 bytes continue (libipt's limit: an
// error or the end of the buffer, for the general decoder). Each
// extension byte carries 7 bits; the last one has bit 0 clear.
func longCYC(c byte, w uint64) (v uint64, size int) {
	stop := ^w & 0x0101010101010101
	if stop == 0 {
		return 0, 0
	}
	n := bits.TrailingZeros64(stop)>>3 + 1
	v = uint64(c >> 3)
	for i := 0; i < n; i++ {
		v |= (w >> (8 * i) & 0xfe) << (4 + 7*i)
	}
	return v, 1 + n
}

// le64 reads the little-endian word at b[0:8].
func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
