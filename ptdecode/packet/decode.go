package packet

import (
	"encoding/binary"
	"math/bits"
)

// Opcode bytes and extended opcodes (the byte after 0x02), as in the SDM's
// Intel PT packet tables.
const (
	opcPad   = 0x00
	opcExt   = 0x02
	opcTIP   = 0x0d
	opcPGE   = 0x11
	opcPGD   = 0x01
	opcFUP   = 0x1d
	opcMode  = 0x99
	opcTSC   = 0x19
	opcMTC   = 0x59
	opcTrig  = 0xd9
	extPSB   = 0x82
	extTNT64 = 0xa3
	extPIP   = 0x43
	extOVF   = 0xf3
	extPSBE  = 0x23
	extCBR   = 0x03
	extTMA   = 0x73
	extStop  = 0x83
	extVMCS  = 0xc8
	extExt2  = 0xc3
	extExSt  = 0x62 // | 0x80 with IP
	extMWait = 0xc2
	extPwrE  = 0x22
	extPwrX  = 0xa2
	extPTW   = 0x12 // | plc<<5 | ip<<7
	extCFE   = 0x13
	extEVD   = 0x53
	extBBP   = 0x63
	extBEP   = 0x33 // | 0x80 with IP
	ext2MNT  = 0x88

	// PSBSize is the size of a PSB packet: 02 82 repeated eight times.
	PSBSize = 16
	// MaxSize is the size of the longest packet, PSB.
	MaxSize = 16
)

// Byte classes of the first byte of a packet, for a jump-table dispatch.
const (
	clsBad uint8 = iota
	clsPad
	clsTNT8
	clsTIP
	clsPGE
	clsPGD
	clsFUP
	clsCYC
	clsExt
	clsMode
	clsTSC
	clsMTC
	clsTrig
)

var opClass = func() (t [256]uint8) {
	for i := range t {
		b := uint8(i)
		switch {
		case b == opcPad:
			t[i] = clsPad
		case b == opcExt:
			t[i] = clsExt
		case b == opcMode:
			t[i] = clsMode
		case b == opcTSC:
			t[i] = clsTSC
		case b == opcMTC:
			t[i] = clsMTC
		case b == opcTrig:
			t[i] = clsTrig
		case b&3 == 3:
			t[i] = clsCYC
		case b&1 == 0:
			t[i] = clsTNT8
		case b&0x1f == opcFUP:
			t[i] = clsFUP
		case b&0x1f == opcTIP:
			t[i] = clsTIP
		case b&0x1f == opcPGE:
			t[i] = clsPGE
		case b&0x1f == opcPGD:
			t[i] = clsPGD
		}
	}
	return t
}()

var ipKinds = [...]Kind{clsTIP: KindTIP, clsPGE: KindTIPPGE, clsPGD: KindTIPPGD, clsFUP: KindFUP}

// le reads n (0..8) little-endian bytes of b, which has at least n bytes.
func le(b []byte, n int) uint64 {
	if len(b) >= 8 {
		return binary.LittleEndian.Uint64(b) & (^uint64(0) >> (64 - 8*uint(n)))
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// Decode decodes the packet at buf[off:]. It does not allocate unless it
// fails; errors are *Error values carrying off and wrapping ErrEOS (the
// packet is cut short by the end of buf), ErrBadOpcode or ErrBadPacket.
//
// Decode knows nothing of earlier packets: it never returns KindBIP (block
// items are told apart from TNT only inside a BBP..BEP block, which
// [Decoder] tracks) and IP payloads are returned as carried (see [LastIP]).
func Decode(buf []byte, off int) (p Packet, err error) {
	if off >= 0 && off+9 <= len(buf) {
		// The fast path of Decoder.Next; see tmpl. The result is written
		// in place (a patched local copied out would stall store
		// forwarding).
		c := buf[off]
		if t := &tmpl[c]; t.Size != 0 {
			w := le64(buf[off+1 : off+9])
			p = *t
			p.Payload = t.Payload | w&tmplMask[c]
			p.CTC = uint16(w) & t.CTC
			return p, nil
		}
	}
	return decodeAt(buf, off)
}

// DecodeInto decodes the packet at buf[off:] into *p, as Decode does; on
// an error *p is the zero Packet. Writing the packet in place spares the
// caller the copy of Decode's result, which is slow right after the packet
// was written (the copy cannot be forwarded from the stores that built
// it): use it in loops that keep the packet in a field.
func DecodeInto(p *Packet, buf []byte, off int) error {
	if off >= 0 && off <= len(buf)-9 {
		b := buf[off:]
		c := b[0]
		w := le64(b[1:9])
		if tmplSize[c] != 0 {
			t := &tmpl[c]
			*p = *t
			p.Payload = t.Payload | w&tmplMask[c]
			p.CTC = uint16(w) & t.CTC
			return nil
		}
		if quick(p, c, w, true) != 0 {
			return nil
		}
	}
	*p = Packet{}
	if off < 0 || off >= len(buf) {
		return errAt(off, ErrEOS)
	}
	if err := decode(p, buf[off:]); err != nil {
		*p = Packet{}
		return errAt(off, err)
	}
	return nil
}

// decodeAt is Decode for the packets other than tmpl's.
func decodeAt(buf []byte, off int) (Packet, error) {
	var p Packet
	if off >= 0 && off+9 <= len(buf) && quick(&p, buf[off], le64(buf[off+1:off+9]), true) != 0 {
		return p, nil
	}
	if off < 0 || off >= len(buf) {
		return Packet{}, errAt(off, ErrEOS)
	}
	p = Packet{}
	if err := decode(&p, buf[off:]); err != nil {
		return Packet{}, errAt(off, err)
	}
	return p, nil
}

// decode decodes the packet at the start of b (non-empty) into *p, which is
// zero on entry.
func decode(p *Packet, b []byte) error {
	opc := b[0]
	switch c := opClass[opc]; c {
	case clsTNT8:
		// The payload is opc>>1; its highest set bit is the stop bit.
		// opc is neither 0x00 (PAD) nor 0x02 (ext), so there is >= 1 bit.
		pl := uint64(opc >> 1)
		n := 63 - lzcnt(pl)
		p.Kind, p.Size, p.Bits, p.Payload = KindTNT8, 1, uint8(n), pl&^(1<<n)
		return nil
	case clsTIP, clsPGE, clsPGD, clsFUP:
		ipc := IPC(opc >> 5)
		n := int(ipcSizes[ipc])
		if n < 0 {
			return ErrBadPacket
		}
		if len(b) < 1+n {
			return ErrEOS
		}
		p.Kind, p.Size, p.IPC = ipKinds[c], uint8(1+n), ipc
		if n > 0 {
			p.Payload = le(b[1:], n)
		}
		return nil
	case clsPad:
		p.Kind, p.Size = KindPad, 1
		return nil
	case clsCYC:
		return decodeCYC(p, b)
	case clsMTC:
		if len(b) < 2 {
			return ErrEOS
		}
		p.Kind, p.Size, p.CTC = KindMTC, 2, uint16(b[1])
		return nil
	case clsTSC:
		if len(b) < 8 {
			return ErrEOS
		}
		p.Kind, p.Size, p.Payload = KindTSC, 8, le(b[1:], 7)
		return nil
	case clsMode:
		if len(b) < 2 {
			return ErrEOS
		}
		m := b[1]
		switch m >> 5 {
		case 0:
			p.Kind = KindModeExec
			p.Flags = Flags(m & 7) // CSL, CSD, IF are bits 0..2 in both
		case 1:
			p.Kind = KindModeTSX
			p.Flags = Flags(m&3) << 3 // InTX, TXAbort
		default:
			return ErrBadPacket
		}
		p.Size = 2
		return nil
	case clsTrig:
		if len(b) < 3 {
			return ErrEOS
		}
		f := b[1]
		p.Kind, p.Size, p.Payload = KindTrig, 3, uint64(b[2])
		if f&0x80 != 0 {
			p.Flags |= FlagIP
		}
		if f&0x20 != 0 {
			p.Flags |= FlagMult
		}
		if f&0x40 != 0 {
			if len(b) < 5 {
				return ErrEOS
			}
			p.Flags |= FlagICNTV
			p.Ext = uint32(b[3]) | uint32(b[4])<<8
			p.Size = 5
		}
		return nil
	case clsExt:
		return decodeExt(p, b)
	}
	return ErrBadOpcode
}

func lzcnt(x uint64) int { return bits.LeadingZeros64(x) }

func decodeCYC(p *Packet, b []byte) error {
	v := uint64(b[0] >> 3)
	i := 1
	if b[0]&4 != 0 {
		shl := uint(5)
		for {
			if i >= len(b) {
				return ErrEOS
			}
			x := b[i]
			i++
			v |= uint64(x>>1) << shl
			shl += 7
			if shl > 64 {
				return ErrBadPacket
			}
			if x&1 == 0 {
				break
			}
		}
	}
	p.Kind, p.Size, p.Payload = KindCYC, uint8(i), v
	return nil
}

// extSizes is the total size of the fixed-size extended packets, indexed by
// the extended opcode; 0 for others.
var extSizes = func() (t [256]uint8) {
	t[extPSB] = PSBSize
	t[extTNT64] = 8
	t[extPIP] = 8
	t[extOVF] = 2
	t[extPSBE] = 2
	t[extCBR] = 4
	t[extTMA] = 7
	t[extStop] = 2
	t[extVMCS] = 7
	t[extExt2] = 11
	t[extExSt] = 2
	t[extExSt|0x80] = 2
	t[extMWait] = 10
	t[extPwrE] = 4
	t[extPwrX] = 7
	t[extCFE] = 4
	t[extEVD] = 11
	t[extBBP] = 3
	t[extBEP] = 2
	t[extBEP|0x80] = 2
	t[extPTW] = 6
	t[extPTW|0x80] = 6
	t[extPTW|0x20] = 10
	t[extPTW|0xa0] = 10
	return t
}()

func decodeExt(p *Packet, b []byte) error {
	if len(b) < 2 {
		return ErrEOS
	}
	ext := b[1]
	n := int(extSizes[ext])
	if n == 0 {
		if ext&0x1f == extPTW {
			return ErrBadPacket // payload size code 2 or 3
		}
		return ErrBadOpcode
	}
	if ext == extExt2 {
		if len(b) < 3 {
			return ErrEOS
		}
		if b[2] != ext2MNT {
			return ErrBadOpcode
		}
	}
	if len(b) < n {
		return ErrEOS
	}
	p.Size = uint8(n)
	switch ext {
	case extPSB:
		for i := 2; i < PSBSize; i += 2 {
			if b[i] != opcExt || b[i+1] != extPSB {
				return ErrBadPacket
			}
		}
		p.Kind = KindPSB
	case extTNT64:
		pl := le(b[2:], 6)
		if pl <= 1 { // no stop bit, or no branch before it
			return ErrBadPacket
		}
		bits := 63 - lzcnt(pl)
		p.Kind, p.Bits, p.Payload = KindTNT64, uint8(bits), pl&^(1<<bits)
	case extPIP:
		pl := le(b[2:], 6)
		p.Kind, p.Payload = KindPIP, pl>>1<<5
		if pl&1 != 0 {
			p.Flags = FlagNR
		}
	case extOVF:
		p.Kind = KindOVF
	case extPSBE:
		p.Kind = KindPSBEnd
	case extCBR:
		p.Kind, p.Payload = KindCBR, uint64(b[2])
	case extTMA:
		fc := uint16(b[5]) | uint16(b[6])<<8
		if fc&^0x1ff != 0 || b[4] != 0 {
			return ErrBadPacket
		}
		p.Kind, p.CTC, p.FC = KindTMA, uint16(b[2])|uint16(b[3])<<8, fc
	case extStop:
		p.Kind = KindStop
	case extVMCS:
		p.Kind, p.Payload = KindVMCS, le(b[2:], 5)<<12
	case extExt2:
		p.Kind, p.Payload = KindMNT, le(b[3:], 8)
	case extExSt, extExSt | 0x80:
		p.Kind = KindExStop
		if ext&0x80 != 0 {
			p.Flags = FlagIP
		}
	case extMWait:
		p.Kind, p.Payload, p.Ext = KindMWait, le(b[2:], 4), uint32(le(b[6:], 4))
	case extPwrE:
		pl := uint16(b[2]) | uint16(b[3])<<8
		p.Kind, p.State, p.SubState = KindPwrE, uint8(pl>>12&0xf), uint8(pl>>8&0xf)
		if pl&0x8 != 0 {
			p.Flags = FlagHW
		}
	case extPwrX:
		p.Kind, p.State, p.SubState = KindPwrX, b[2]>>4, b[2]&0xf
		wr := b[3]
		if wr&1 != 0 {
			p.Flags |= FlagInterrupt
		}
		if wr&4 != 0 {
			p.Flags |= FlagStore
		}
		if wr&8 != 0 {
			p.Flags |= FlagAutonomous
		}
	case extCFE:
		p.Kind, p.Type, p.Vector = KindCFE, b[2]&0x1f, b[3]
		if b[2]&0x80 != 0 {
			p.Flags = FlagIP
		}
	case extEVD:
		p.Kind, p.Type, p.Payload = KindEVD, b[2]&0x1f, le(b[3:], 8)
	case extBBP:
		p.Kind, p.Type = KindBBP, b[2]&0x1f
		if b[2]&0x80 != 0 {
			p.Flags = FlagSZ
		}
	case extBEP, extBEP | 0x80:
		p.Kind = KindBEP
		if ext&0x80 != 0 {
			p.Flags = FlagIP
		}
	default: // PTW
		p.Kind, p.Bits = KindPTW, ext>>5&3
		p.Payload = le(b[2:], n-2)
		if ext&0x80 != 0 {
			p.Flags = FlagIP
		}
	}
	return nil
}

// DecodeBIP decodes a block item packet at buf[off:], as found inside a
// BBP..BEP block; sz4 is the block's BBP SZ flag (4-byte items).
func DecodeBIP(buf []byte, off int, sz4 bool) (Packet, error) {
	if off < 0 || off >= len(buf) {
		return Packet{}, errAt(off, ErrEOS)
	}
	var p Packet
	if err := decodeBIP(&p, buf[off:], sz4); err != nil {
		return Packet{}, errAt(off, err)
	}
	return p, nil
}

func decodeBIP(p *Packet, b []byte, sz4 bool) error {
	if b[0]&7 != 4 {
		return ErrBadOpcode
	}
	n := 8
	if sz4 {
		n = 4
	}
	if len(b) < 1+n {
		return ErrEOS
	}
	p.Kind, p.Size, p.Type, p.Bits, p.Payload = KindBIP, uint8(1+n), b[0]>>3, uint8(n), le(b[1:], n)
	return nil
}
