package packet

import "math/rand/v2"

// genTrace returns about size bytes of a realistic user-space trace, as a
// CPU with CYC, MTC and TSC enabled writes it: mostly TNT (short, some
// long), TIP and FUP with compressed IPs, MTC and CYC timing packets, and a
// PSB+ (PSB, TSC, TMA, CBR, MODE.Exec, FUP, PSBEND) every 4 KiB or so.
func genTrace(size int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 42))
	var e Encoder
	e.Buf = make([]byte, 0, size+64)
	ip := uint64(0x401000)
	tsc := uint64(0x1000000)
	ctc := uint8(0)
	lastPSB := -1 << 20
	for len(e.Buf) < size {
		if len(e.Buf)-lastPSB >= 4096 {
			lastPSB = len(e.Buf)
			tsc += uint64(r.IntN(1 << 16))
			appendPSBPlus(&e, r, tsc, ip)
			continue
		}
		switch n := r.IntN(100); {
		case n < 55: // short TNT, mostly full (flushed early by TIP and PSB)
			bits := uint8(6)
			if r.IntN(4) == 0 {
				bits = uint8(1 + r.IntN(5))
			}
			must(e.Append(Packet{Kind: KindTNT8, Bits: bits, Payload: r.Uint64() & (1<<bits - 1)}))
		case n < 60: // long TNT
			bits := uint8(1 + r.IntN(47))
			must(e.Append(Packet{Kind: KindTNT64, Bits: bits, Payload: r.Uint64() & (1<<bits - 1)}))
		case n < 75: // indirect branch or return: a near IP, sometimes far
			switch r.IntN(10) {
			case 0:
				ip = 0x7f0000000000 + uint64(r.IntN(1<<30))
			case 1, 2:
				ip = ip&^0xffffffff | uint64(r.Uint32())
			default:
				ip = ip&^0xffff | uint64(r.IntN(1<<16))
			}
			must(e.AppendIP(KindTIP, ip))
		case n < 78: // asynchronous event: FUP + TIP
			must(e.AppendIP(KindFUP, ip+uint64(r.IntN(64))))
			ip = ip&^0xffff | uint64(r.IntN(1<<16))
			must(e.AppendIP(KindTIP, ip))
		case n < 90: // cycle counts
			must(e.Append(Packet{Kind: KindCYC, Payload: uint64(r.IntN(1 << uint(1+r.IntN(14))))}))
		case n < 97:
			ctc++
			must(e.Append(Packet{Kind: KindMTC, CTC: uint16(ctc)}))
		default:
			must(e.Append(Packet{Kind: KindPad}))
		}
	}
	return e.Buf
}

// genRecTrace returns about size bytes of a trace with the mix of a
// recording made here (a user-space program traced without CYC; its first
// 4 MiB): TNT-8 72%, TIP 26% (half with a 16-bit IP, half 32-bit), MTC 2%,
// and a PSB+ (PSB, TSC, TMA, CBR, MODE.Exec, FUP, PSBEND) every 4 KiB or
// so; about 1.8 bytes a packet.
func genRecTrace(size int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 43))
	var e Encoder
	e.Buf = make([]byte, 0, size+64)
	ip := uint64(0x401000)
	lastPSB := -1 << 20
	for len(e.Buf) < size {
		if len(e.Buf)-lastPSB >= 4096 {
			lastPSB = len(e.Buf)
			appendPSBPlus(&e, r, uint64(r.IntN(1<<40)), ip)
			continue
		}
		switch n := r.IntN(1000); {
		case n < 720:
			bits := uint8(1 + r.IntN(6))
			must(e.Append(Packet{Kind: KindTNT8, Bits: bits, Payload: r.Uint64() & (1<<bits - 1)}))
		case n < 850:
			must(e.Append(Packet{Kind: KindTIP, IPC: IPCUpdate16, Payload: uint64(r.IntN(1 << 16))}))
		case n < 980:
			must(e.Append(Packet{Kind: KindTIP, IPC: IPCUpdate32, Payload: uint64(r.Uint32())}))
		default:
			must(e.Append(Packet{Kind: KindMTC, CTC: uint16(r.IntN(256))}))
		}
	}
	return e.Buf
}

// appendPSBPlus appends a PSB+ as a CPU writes it: PSB, TSC, TMA, CBR,
// MODE.Exec, FUP (ip), PSBEND.
func appendPSBPlus(e *Encoder, r *rand.Rand, tsc, ip uint64) {
	must(e.Append(Packet{Kind: KindPSB}))
	must(e.Append(Packet{Kind: KindTSC, Payload: tsc & (1<<56 - 1)}))
	must(e.Append(Packet{Kind: KindTMA, CTC: uint16(r.IntN(1 << 16)), FC: uint16(r.IntN(512))}))
	must(e.Append(Packet{Kind: KindCBR, Payload: 0x20}))
	must(e.Append(Packet{Kind: KindModeExec, Flags: FlagCSL}))
	must(e.AppendIP(KindFUP, ip))
	must(e.Append(Packet{Kind: KindPSBEnd}))
}

// must panics on an error of the encoder (the generators build valid
// packets).
func must(err error) {
	if err != nil {
		panic(err)
	}
}
