package packet

import "encoding/binary"

// Append appends the encoding of p to dst and returns the extended slice
// (libipt's pt_enc_next). p.Size is ignored, except that a CYC is written
// with p.Size bytes when that is longer than needed (at most 9), so that
// re-encoding a decoded packet gives its bytes back. Fields that the packet's
// encoding cannot hold (a reserved IP compression, a TNT with 0 or too many
// bits, a payload wider than its field, flags of another kind) are an error
// wrapping ErrBadConfig and dst is returned unchanged; so for every p that
// Append accepts, Decode of the bytes gives p back (with Size set).
//
// Reserved bits are written as zero. IP payloads are written as given, with
// p.IPC; see [CompressIP] and [Encoder] to choose the compression.
func Append(dst []byte, p Packet) ([]byte, error) {
	if out, ok := appendQuick(dst, &p); ok {
		return out, nil
	}
	if err := check(&p); err != nil {
		return dst, errAt(len(dst), err)
	}
	return appendPacket(dst, &p), nil
}

// ipOpcodes are the opcodes of the IP packets, indexed by Kind-KindTIP.
//
//lint:ignore SA4000 KindTIP-KindTIP is index 0, written like the others
var ipOpcodes = [...]byte{KindTIP - KindTIP: opcTIP, KindTIPPGE - KindTIP: opcPGE,
	KindTIPPGD - KindTIP: opcPGD, KindFUP - KindTIP: opcFUP}

// appendQuick encodes the frequent packets (TNT, IP packets, short CYC,
// MTC, TSC, PAD) when they are valid, with a check for just their kind.
// It returns false for anything else, which check and appendPacket then
// handle (and reject, if invalid): the two paths agree (FuzzRoundTrip).
func appendQuick(dst []byte, p *Packet) ([]byte, bool) {
	// The fields none of these kinds uses.
	if p.Ext|uint32(p.FC)|uint32(p.Flags)|uint32(p.Type)|uint32(p.Vector)|uint32(p.State)|uint32(p.SubState) != 0 {
		return dst, false
	}
	switch p.Kind {
	case KindTNT8:
		if p.IPC == 0 && p.CTC == 0 && p.Bits-1 < 6 && p.Payload>>p.Bits == 0 {
			return append(dst, byte((p.Payload|1<<p.Bits)<<1)), true
		}
	case KindTIP, KindTIPPGE, KindTIPPGD, KindFUP:
		n := int(ipcSizes[p.IPC&7])
		if p.IPC < 8 && n >= 0 && p.Bits == 0 && p.CTC == 0 && p.Payload>>(8*uint(n)) == 0 {
			return putLE(append(dst, ipOpcodes[p.Kind-KindTIP]|byte(p.IPC)<<5), p.Payload, n), true
		}
	case KindCYC:
		// Only the 1-byte form; p.Size may ask for more bytes.
		if p.IPC == 0 && p.Bits == 0 && p.CTC == 0 && p.Payload < 0x20 && p.Size <= 1 {
			return append(dst, byte(p.Payload)<<3|3), true
		}
	case KindMTC:
		if p.IPC == 0 && p.Bits == 0 && p.Payload == 0 && p.CTC <= 0xff {
			return append(dst, opcMTC, byte(p.CTC)), true
		}
	case KindTNT64:
		if p.IPC == 0 && p.CTC == 0 && p.Bits-1 < 47 && p.Payload>>p.Bits == 0 {
			return putLE(append(dst, opcExt, extTNT64), p.Payload|1<<p.Bits, 6), true
		}
	case KindTSC:
		if p.IPC == 0 && p.Bits == 0 && p.CTC == 0 && p.Payload < 1<<56 {
			return putLE(append(dst, opcTSC), p.Payload, 7), true
		}
	case KindPad:
		if p.IPC == 0 && p.Bits == 0 && p.CTC == 0 && p.Payload == 0 {
			return append(dst, opcPad), true
		}
	}
	return dst, false
}

// maskN returns a mask of the low n bits.
func maskN(n uint) uint64 { return ^uint64(0) >> (64 - n) }

// allowed lists, per kind, the flags and fields a packet may use.
var allowedFlags = [numKinds]Flags{
	KindModeExec: FlagCSL | FlagCSD | FlagIF,
	KindModeTSX:  FlagInTX | FlagTXAbort,
	KindPIP:      FlagNR,
	KindPTW:      FlagIP,
	KindExStop:   FlagIP,
	KindPwrE:     FlagHW,
	KindPwrX:     FlagInterrupt | FlagStore | FlagAutonomous,
	KindBBP:      FlagSZ,
	KindBEP:      FlagIP,
	KindCFE:      FlagIP,
	KindTrig:     FlagIP | FlagICNTV | FlagMult,
}

func check(p *Packet) error {
	if p.Kind == KindInvalid || p.Kind >= numKinds || p.Flags&^allowedFlags[p.Kind] != 0 {
		return ErrBadConfig
	}
	// Every field not used by the kind must be zero, so that the round trip
	// is exact; payload widths are checked per kind.
	var (
		payload uint64 // allowed payload bits
		ipc     = p.IPC == 0
		bitsOK  = p.Bits == 0
		ext     = p.Ext == 0
		ctc     = p.CTC == 0
		fc      = p.FC == 0
		typ     = p.Type == 0
		vec     = p.Vector == 0
		state   = p.State == 0 && p.SubState == 0
	)
	switch p.Kind {
	case KindTNT8, KindTNT64:
		limit := uint8(6)
		if p.Kind == KindTNT64 {
			limit = 47
		}
		bitsOK = p.Bits >= 1 && p.Bits <= limit
		payload = maskN(uint(max(p.Bits, 1)))
	case KindTIP, KindTIPPGE, KindTIPPGD, KindFUP:
		ipc = p.IPC.Valid()
		if ipc {
			payload = maskN(uint(8 * p.IPC.PayloadSize()))
		}
	case KindPIP:
		payload = maskN(52) &^ 0x1f
	case KindVMCS:
		payload = maskN(52) &^ 0xfff
	case KindCBR:
		payload = 0xff
	case KindTSC:
		payload = maskN(56)
	case KindMTC:
		ctc = p.CTC <= 0xff
	case KindTMA:
		ctc, fc = true, p.FC <= 0x1ff
	case KindCYC:
		payload = maskN(61) // eight extension bytes at most (libipt's limit)
	case KindMNT:
		payload = ^uint64(0)
	case KindEVD:
		payload = ^uint64(0)
		typ = p.Type <= 0x1f
	case KindPTW:
		bitsOK = p.Bits <= 1
		payload = maskN(32 << p.Bits)
	case KindMWait:
		payload, ext = maskN(32), true
	case KindPwrE, KindPwrX:
		state = p.State <= 0xf && p.SubState <= 0xf
	case KindBBP:
		typ = p.Type <= 0x1f
	case KindBIP:
		typ = p.Type <= 0x1f
		bitsOK = p.Bits == 4 || p.Bits == 8
		payload = maskN(8 * uint(p.Bits))
	case KindCFE:
		typ, vec = p.Type <= 0x1f, true
	case KindTrig:
		payload = 0xff
		ext = p.Ext <= 0xffff && (p.Flags&FlagICNTV != 0 || p.Ext == 0)
	}
	if p.Payload&^payload != 0 || !ipc || !bitsOK || !ext || !ctc || !fc || !typ || !vec || !state {
		return ErrBadConfig
	}
	return nil
}

func putLE(dst []byte, v uint64, n int) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, v)
	return dst[:len(dst)-8+n]
}

func flagBit(p *Packet, f Flags, bit byte) byte {
	if p.Flags&f != 0 {
		return bit
	}
	return 0
}

// appendPacket encodes a checked packet.
func appendPacket(dst []byte, p *Packet) []byte {
	switch p.Kind {
	case KindPad:
		return append(dst, opcPad)
	case KindPSB:
		for range PSBSize / 2 {
			dst = append(dst, opcExt, extPSB)
		}
		return dst
	case KindPSBEnd:
		return append(dst, opcExt, extPSBE)
	case KindTNT8:
		return append(dst, byte((p.Payload|1<<p.Bits)<<1))
	case KindTNT64:
		return putLE(append(dst, opcExt, extTNT64), p.Payload|1<<p.Bits, 6)
	case KindTIP, KindTIPPGE, KindTIPPGD, KindFUP:
		return putLE(append(dst, ipOpcodes[p.Kind-KindTIP]|byte(p.IPC)<<5), p.Payload, p.IPC.PayloadSize())
	case KindModeExec:
		return append(dst, opcMode, byte(p.Flags&(FlagCSL|FlagCSD|FlagIF)))
	case KindModeTSX:
		return append(dst, opcMode, 0x20|byte(p.Flags>>3&3))
	case KindPIP:
		return putLE(append(dst, opcExt, extPIP), p.Payload>>5<<1|uint64(flagBit(p, FlagNR, 1)), 6)
	case KindVMCS:
		return putLE(append(dst, opcExt, extVMCS), p.Payload>>12, 5)
	case KindOVF:
		return append(dst, opcExt, extOVF)
	case KindStop:
		return append(dst, opcExt, extStop)
	case KindCBR:
		return append(dst, opcExt, extCBR, byte(p.Payload), 0)
	case KindTSC:
		return putLE(append(dst, opcTSC), p.Payload, 7)
	case KindMTC:
		return append(dst, opcMTC, byte(p.CTC))
	case KindTMA:
		return append(dst, opcExt, extTMA, byte(p.CTC), byte(p.CTC>>8), 0, byte(p.FC), byte(p.FC>>8))
	case KindCYC:
		// The shortest form, or p.Size bytes (at most 9) when longer: a CYC
		// may carry extension bytes of zero, and this keeps their length.
		v := p.Payload
		n := 1
		for x := v >> 5; x != 0; x >>= 7 {
			n++
		}
		if int(p.Size) > n && p.Size <= 9 {
			n = int(p.Size)
		}
		b := byte(v&0x1f) << 3
		v >>= 5
		if n == 1 {
			return append(dst, b|3)
		}
		dst = append(dst, b|7)
		for i := 2; i <= n; i++ {
			b = byte(v&0x7f) << 1
			v >>= 7
			if i < n {
				b |= 1
			}
			dst = append(dst, b)
		}
		return dst
	case KindMNT:
		return putLE(append(dst, opcExt, extExt2, ext2MNT), p.Payload, 8)
	case KindPTW:
		n := 4 << p.Bits
		return putLE(append(dst, opcExt, extPTW|p.Bits<<5|flagBit(p, FlagIP, 0x80)), p.Payload, n)
	case KindExStop:
		return append(dst, opcExt, extExSt|flagBit(p, FlagIP, 0x80))
	case KindMWait:
		return putLE(append(dst, opcExt, extMWait), p.Payload|uint64(p.Ext)<<32, 8)
	case KindPwrE:
		return append(dst, opcExt, extPwrE, flagBit(p, FlagHW, 0x8), p.State<<4|p.SubState)
	case KindPwrX:
		wr := flagBit(p, FlagInterrupt, 1) | flagBit(p, FlagStore, 4) | flagBit(p, FlagAutonomous, 8)
		return append(dst, opcExt, extPwrX, p.State<<4|p.SubState, wr, 0, 0, 0)
	case KindBBP:
		return append(dst, opcExt, extBBP, p.Type|flagBit(p, FlagSZ, 0x80))
	case KindBIP:
		return putLE(append(dst, p.Type<<3|4), p.Payload, int(p.Bits))
	case KindBEP:
		return append(dst, opcExt, extBEP|flagBit(p, FlagIP, 0x80))
	case KindCFE:
		return append(dst, opcExt, extCFE, p.Type|flagBit(p, FlagIP, 0x80), p.Vector)
	case KindEVD:
		return putLE(append(dst, opcExt, extEVD, p.Type), p.Payload, 8)
	case KindTrig:
		f := flagBit(p, FlagIP, 0x80) | flagBit(p, FlagICNTV, 0x40) | flagBit(p, FlagMult, 0x20)
		dst = append(dst, opcTrig, f, byte(p.Payload))
		if p.Flags&FlagICNTV != 0 {
			dst = append(dst, byte(p.Ext), byte(p.Ext>>8))
		}
		return dst
	}
	return dst
}

// Encoder writes a packet stream, keeping the last-IP register so that IP
// packets can be compressed the way the hardware does.
type Encoder struct {
	Buf    []byte // the encoded stream; Append* extend it
	LastIP LastIP // the last-IP register, as a decoder would track it
}

// Append encodes p (see the function [Append]) and tracks IP packets and
// PSB (which resets the last IP) as a decoder will see them.
func (e *Encoder) Append(p Packet) error {
	buf, err := Append(e.Buf, p)
	if err != nil {
		return err
	}
	e.Buf = buf
	switch {
	case p.Kind == KindPSB:
		e.LastIP.Reset()
	case p.Kind.IsIP():
		_ = e.LastIP.Update(p.IPC, p.Payload)
	}
	return nil
}

// AppendIP encodes an IP packet of kind k for ip with the shortest
// compression given the last IP. Use Append with IPCSuppressed for an IP
// packet without IP.
func (e *Encoder) AppendIP(k Kind, ip uint64) error {
	ipc, pl := CompressIP(e.LastIP, ip)
	return e.Append(Packet{Kind: k, IPC: ipc, Payload: pl})
}
