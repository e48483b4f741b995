// Package perfpkt decodes Intel PT packets by perf's rules
// (tools/perf/util/intel-pt-decoder/intel-pt-pkt-decoder.c) and prints
// them as perf report -D does (intel_pt_dump). perf's packet decoder is not
// libipt's: it folds the zero bytes after a packet into it (up to 8 bytes
// in all), decodes block items only after a BBP, keeps the TNT bits in the
// top of a 64-bit payload and prints its own names; package packet is the
// libipt-compatible decoder the trace decoders use.
package perfpkt

import "encoding/binary"

// Type is a packet type (enum intel_pt_pkt_type).
type Type uint8

// Packet types, in perf's order.
const (
	Bad Type = iota
	PAD
	TNT
	TIPPGD
	TIPPGE
	TSC
	TMA
	ModeExec
	ModeTSX
	MTC
	TIP
	FUP
	CYC
	VMCS
	PSB
	PSBEnd
	CBR
	TraceStop
	PIP
	OVF
	MNT
	PTWrite
	PTWriteIP
	ExStop
	ExStopIP
	MWait
	PwrE
	PwrX
	BBP
	BIP
	BEP
	BEPIP
	CFE
	CFEIP
	EVD
	numTypes
)

var names = [numTypes]string{
	Bad: "Bad Packet!", PAD: "PAD", TNT: "TNT", TIPPGD: "TIP.PGD", TIPPGE: "TIP.PGE", TSC: "TSC",
	TMA: "TMA", ModeExec: "MODE.Exec", ModeTSX: "MODE.TSX", MTC: "MTC", TIP: "TIP", FUP: "FUP",
	CYC: "CYC", VMCS: "VMCS", PSB: "PSB", PSBEnd: "PSBEND", CBR: "CBR", TraceStop: "TraceSTOP",
	PIP: "PIP", OVF: "OVF", MNT: "MNT", PTWrite: "PTWRITE", PTWriteIP: "PTWRITE", ExStop: "EXSTOP",
	ExStopIP: "EXSTOP", MWait: "MWAIT", PwrE: "PWRE", PwrX: "PWRX", BBP: "BBP", BIP: "BIP",
	BEP: "BEP", BEPIP: "BEP", CFE: "CFE", CFEIP: "CFE", EVD: "EVD",
}

// String returns perf's name of the type (intel_pt_pkt_name).
func (t Type) String() string {
	if t < numTypes {
		return names[t]
	}
	return "Bad Packet!"
}

// Packet is one decoded packet (struct intel_pt_pkt).
type Packet struct {
	Type    Type
	Count   int
	Payload uint64
}

// Ctx is the packet context: block items are decoded only after a BBP
// (enum intel_pt_pkt_ctx).
type Ctx uint8

// Packet contexts.
const (
	NoCtx   Ctx = iota
	Blk4Ctx     // after a BBP with 4-byte items
	Blk8Ctx     // after a BBP with 8-byte items
)

// Decoding failures (INTEL_PT_NEED_MORE_BYTES, INTEL_PT_BAD_PACKET).
const (
	NeedMoreBytes = -1
	BadPacket     = -2
)

// Get decodes the packet at the start of buf in context ctx
// (intel_pt_get_packet): it returns the packet's length, with the zero
// bytes that follow it folded in up to 8 bytes, and updates ctx; or
// NeedMoreBytes or BadPacket.
func Get(buf []byte, p *Packet, ctx *Ctx) int {
	n := get(buf, p, *ctx)
	if n > 0 {
		for n < 8 && len(buf) > n && buf[n] == 0 {
			n++
		}
		p.updateCtx(ctx)
	}
	return n
}

// le reads n little-endian bytes of b (memcpy_le64 of n bytes).
func le(b []byte, n int) uint64 {
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// get mirrors intel_pt_do_get_packet.
func get(buf []byte, p *Packet, ctx Ctx) int {
	*p = Packet{}
	if len(buf) == 0 {
		return NeedMoreBytes
	}
	b := buf[0]
	if b&7 == 4 && ctx != NoCtx {
		// BIP, in a block of 4- or 8-byte items.
		n := 4
		if ctx == Blk8Ctx {
			n = 8
		}
		if len(buf) < n+1 {
			return NeedMoreBytes
		}
		*p = Packet{Type: BIP, Count: int(b >> 3), Payload: le(buf[1:], n)}
		return n + 1
	}
	if b&1 == 0 {
		switch b {
		case 0:
			p.Type = PAD
			return 1
		case 2:
			return getExt(buf, p)
		}
		return shortTNT(b, p)
	}
	if b&2 != 0 {
		return getCYC(buf, p)
	}
	switch b & 0x1f {
	case 0x0d:
		return getIP(TIP, buf, p)
	case 0x11:
		return getIP(TIPPGE, buf, p)
	case 0x01:
		return getIP(TIPPGD, buf, p)
	case 0x1d:
		return getIP(FUP, buf, p)
	case 0x19:
		switch b {
		case 0x99:
			return getMode(buf, p)
		case 0x19:
			if len(buf) < 8 {
				return NeedMoreBytes
			}
			*p = Packet{Type: TSC, Payload: le(buf[1:], 7)}
			return 8
		case 0x59:
			if len(buf) < 2 {
				return NeedMoreBytes
			}
			*p = Packet{Type: MTC, Payload: uint64(buf[1])}
			return 2
		}
	}
	return BadPacket
}

// shortTNT mirrors intel_pt_get_short_tnt: the bits below the stop bit,
// the first at bit 63 of the payload.
func shortTNT(b byte, p *Packet) int {
	v := uint(b)
	count := 6
	for ; count > 0; count-- {
		if v&0x80 != 0 {
			break
		}
		v <<= 1
	}
	*p = Packet{Type: TNT, Count: count, Payload: uint64(v) << 57}
	return 1
}

// getCYC mirrors intel_pt_get_cyc.
func getCYC(buf []byte, p *Packet) int {
	b := uint(buf[0])
	payload := uint64(b >> 3)
	b >>= 2
	rest := len(buf) - 1
	offs := 1
	for shift := 5; b&1 != 0; shift += 7 {
		if offs > 9 {
			return BadPacket
		}
		if rest < offs {
			return NeedMoreBytes
		}
		b = uint(buf[offs])
		offs++
		payload |= uint64(b>>1) << shift
	}
	*p = Packet{Type: CYC, Payload: payload}
	return offs
}

// ipBytes is the IP payload size of each IPBytes value (-1: bad).
var ipBytes = [8]int{0, 2, 4, 6, 6, -1, 8, -1}

// getIP mirrors intel_pt_get_ip.
func getIP(t Type, buf []byte, p *Packet) int {
	p.Count = int(buf[0] >> 5)
	n := ipBytes[p.Count]
	if n < 0 {
		return BadPacket
	}
	if len(buf) < n+1 {
		return NeedMoreBytes
	}
	p.Type, p.Payload = t, le(buf[1:], n)
	return n + 1
}

// getMode mirrors intel_pt_get_mode.
func getMode(buf []byte, p *Packet) int {
	if len(buf) < 2 {
		return NeedMoreBytes
	}
	b := buf[1]
	switch b >> 5 {
	case 0:
		bits := [4]uint64{16, 64, 32, 0}[b&3]
		if bits == 0 {
			return BadPacket
		}
		*p = Packet{Type: ModeExec, Count: int(b), Payload: bits}
	case 1:
		if b&3 == 3 {
			return BadPacket
		}
		*p = Packet{Type: ModeTSX, Payload: uint64(b & 3)}
	default:
		return BadPacket
	}
	return 2
}

// getExt mirrors intel_pt_get_ext: the packets whose first byte is 0x02.
func getExt(buf []byte, p *Packet) int {
	if len(buf) < 2 {
		return NeedMoreBytes
	}
	b := buf[1]
	fixed := func(t Type, n int, payload func() uint64) int {
		if len(buf) < n {
			return NeedMoreBytes
		}
		p.Type = t
		if payload != nil {
			p.Payload = payload()
		}
		return n
	}
	if b&0x1f == 0x12 {
		p.Count = int(b>>5) & 3
		p.Type = PTWrite
		if b&0x80 != 0 {
			p.Type = PTWriteIP
		}
		switch p.Count {
		case 0:
			if len(buf) < 6 {
				return NeedMoreBytes
			}
			p.Payload = uint64(binary.LittleEndian.Uint32(buf[2:]))
			return 6
		case 1:
			if len(buf) < 10 {
				return NeedMoreBytes
			}
			p.Payload = binary.LittleEndian.Uint64(buf[2:])
			return 10
		}
		return BadPacket
	}
	switch b {
	case 0xa3: // long TNT
		if len(buf) < 8 {
			return NeedMoreBytes
		}
		v := binary.LittleEndian.Uint64(buf)
		count := 47
		for ; count > 0; count-- {
			if v&(1<<63) != 0 {
				break
			}
			v <<= 1
		}
		*p = Packet{Type: TNT, Count: count, Payload: v << 1}
		return 8
	case 0x43:
		return fixed(PIP, 8, func() uint64 { return le(buf[2:], 6) })
	case 0x83:
		return fixed(TraceStop, 2, nil)
	case 0x03:
		return fixed(CBR, 4, func() uint64 { return uint64(binary.LittleEndian.Uint16(buf[2:])) })
	case 0xc8:
		// perf's VMCS payload is 5 bytes ((52 - 5) >> 3).
		p.Count = 5
		return fixed(VMCS, 7, func() uint64 { return le(buf[2:], 5) })
	case 0xf3:
		return fixed(OVF, 2, nil)
	case 0x82:
		if len(buf) < 16 {
			return NeedMoreBytes
		}
		for i := 2; i < 16; i += 2 {
			if buf[i] != 2 || buf[i+1] != 0x82 {
				return BadPacket
			}
		}
		p.Type = PSB
		return 16
	case 0x23:
		return fixed(PSBEnd, 2, nil)
	case 0x73:
		if len(buf) < 7 {
			return NeedMoreBytes
		}
		*p = Packet{Type: TMA, Payload: uint64(buf[2]) | uint64(buf[3])<<8, Count: int(buf[5]) | int(buf[6]&1)<<8}
		return 7
	case 0xc3: // 3-byte header
		if len(buf) < 3 {
			return NeedMoreBytes
		}
		if buf[2] != 0x88 {
			return BadPacket
		}
		return fixed(MNT, 11, func() uint64 { return le(buf[3:], 8) })
	case 0x62:
		return fixed(ExStop, 2, nil)
	case 0xe2:
		return fixed(ExStopIP, 2, nil)
	case 0xc2:
		return fixed(MWait, 10, func() uint64 { return binary.LittleEndian.Uint64(buf[2:]) })
	case 0x22:
		return fixed(PwrE, 4, func() uint64 { return le(buf[2:], 2) })
	case 0xa2:
		return fixed(PwrX, 7, func() uint64 { return le(buf[2:], 5) })
	case 0x63:
		if len(buf) < 3 {
			return NeedMoreBytes
		}
		*p = Packet{Type: BBP, Count: int(buf[2] >> 7), Payload: uint64(buf[2] & 0x1f)}
		return 3
	case 0x33:
		return fixed(BEP, 2, nil)
	case 0xb3:
		return fixed(BEPIP, 2, nil)
	case 0x13:
		if len(buf) < 4 {
			return NeedMoreBytes
		}
		t := CFE
		if buf[2]&0x80 != 0 {
			t = CFEIP
		}
		*p = Packet{Type: t, Count: int(buf[2] & 0x1f), Payload: uint64(buf[3])}
		return 4
	case 0x53:
		if len(buf) < 11 {
			return NeedMoreBytes
		}
		*p = Packet{Type: EVD, Count: int(buf[2] & 0x3f), Payload: le(buf[3:], 8)}
		return 11
	}
	return BadPacket
}

// updateCtx mirrors intel_pt_upd_pkt_ctx: a BBP opens a block of 4- or
// 8-byte items, the packets that end a block (TNT, TIP, PSB, ...) close
// it, timing and power packets leave it open.
func (p *Packet) updateCtx(ctx *Ctx) {
	switch p.Type {
	case Bad, PAD, TSC, TMA, MTC, FUP, CYC, CBR, MNT, ExStop, ExStopIP, PwrE, PwrX, BIP:
	case BBP:
		if p.Count != 0 {
			*ctx = Blk4Ctx
		} else {
			*ctx = Blk8Ctx
		}
	default:
		*ctx = NoCtx
	}
}
