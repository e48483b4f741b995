package ptperf

import (
	"testing"
	"unsafe"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// codeWalker walks a fixed code buffer mapped at base, as the session's
// walker does for one DSO.
type codeWalker struct {
	base uint64
	code []byte
}

func (w *codeWalker) WalkInsn(in *Insn, cnt *uint64, ip *uint64, toIP, max uint64, _ bool) error {
	in.Length = 0
	if toIP != 0 && *ip == toIP {
		return nil
	}
	var n uint64
	for {
		if *ip < w.base || *ip-w.base >= uint64(len(w.code)) {
			return WalkNoInsn
		}
		if !Decode(w.code[*ip-w.base:], true, in) {
			return WalkNoInsn
		}
		n++
		*cnt = n
		if in.Branch != BrNone || (max != 0 && n >= max) {
			return nil
		}
		*ip += uint64(in.Length)
		if toIP != 0 && *ip == toIP {
			in.Length = 0
			return nil
		}
	}
}

// decodeAll runs a decoder over trace to the end and returns the states.
func decodeAll(trace []byte, code []byte, period uint64) (states, errs int) {
	bufs := [][]byte{trace[:len(trace)/2], trace[len(trace)/2:]}
	i := 0
	d := New(Params{
		GetTrace: func(b *Buffer) error {
			if i < len(bufs) {
				b.Data, b.Consecutive = bufs[i], i > 0
				i++
				return nil
			}
			b.Data = nil
			return nil
		},
		Walker:            &codeWalker{base: 0x400000, code: code},
		ReturnCompression: true,
		BranchEnable:      true,
		PeriodType:        PeriodInstructions,
		Period:            period,
		MaxLoops:          1000,
		// cyc with cyc_thresh 1, MTC every 8 CTC ticks, TSC:CTC 2:1
		Ctl:              1<<1 | 1<<19,
		MTCPeriod:        3,
		TSCCTCRatioN:     2,
		TSCCTCRatioD:     1,
		MaxNonTurboRatio: 20,
		IPC:              true,
	})
	for n := 0; n < 1<<20; n++ {
		st := d.Decode()
		if st.Err == ErrNoData {
			return
		}
		if st.Err != 0 {
			errs++
		} else {
			states++
		}
	}
	return
}

// packetAdder returns a function appending packets to *b.
func packetAdder(b *[]byte) func(packet.Packet) {
	return func(p packet.Packet) {
		var err error
		*b, err = packet.Append(*b, p)
		if err != nil {
			panic(err)
		}
	}
}

func seedTrace() []byte {
	b := []byte{}
	add := packetAdder(&b)
	add(packet.Packet{Kind: packet.KindPSB})
	add(packet.Packet{Kind: packet.KindModeExec, Flags: packet.FlagCSL})
	add(packet.Packet{Kind: packet.KindFUP, IPC: packet.IPCSext48, Payload: 0x400000})
	add(packet.Packet{Kind: packet.KindPSBEnd})
	add(packet.Packet{Kind: packet.KindTNT8, Bits: 3, Payload: 0b101})
	add(packet.Packet{Kind: packet.KindTIP, IPC: packet.IPCUpdate16, Payload: 0x0010})
	add(packet.Packet{Kind: packet.KindTIPPGD, IPC: packet.IPCSuppressed})
	return b
}

// seedEvents is a trace with timing, CYC, PTWRITE, power and TSX packets.
func seedEvents() []byte {
	b := []byte{}
	add := packetAdder(&b)
	add(packet.Packet{Kind: packet.KindPSB})
	add(packet.Packet{Kind: packet.KindTSC, Payload: 0x1000})
	add(packet.Packet{Kind: packet.KindTMA, CTC: 0x808, FC: 3})
	add(packet.Packet{Kind: packet.KindCBR, Payload: 20})
	add(packet.Packet{Kind: packet.KindModeExec, Flags: packet.FlagCSL})
	add(packet.Packet{Kind: packet.KindFUP, IPC: packet.IPCSext48, Payload: 0x400000})
	add(packet.Packet{Kind: packet.KindPSBEnd})
	add(packet.Packet{Kind: packet.KindCYC, Payload: 7})
	add(packet.Packet{Kind: packet.KindTNT8, Bits: 2, Payload: 0b10}) // jne taken, not taken: at the call
	add(packet.Packet{Kind: packet.KindCYC, Payload: 3})
	add(packet.Packet{Kind: packet.KindMTC, CTC: 0x12})
	add(packet.Packet{Kind: packet.KindPTW, Flags: packet.FlagIP, Payload: 0x41})
	add(packet.Packet{Kind: packet.KindFUP, IPC: packet.IPCUpdate16, Payload: 0x0004})
	add(packet.Packet{Kind: packet.KindPTW, Payload: 0x42})
	add(packet.Packet{Kind: packet.KindMWait, Payload: 0x21, Ext: 1})
	add(packet.Packet{Kind: packet.KindPwrE, State: 2, SubState: 1})
	add(packet.Packet{Kind: packet.KindFUP, IPC: packet.IPCUpdate16, Payload: 0x0004})
	add(packet.Packet{Kind: packet.KindExStop, Flags: packet.FlagIP})
	add(packet.Packet{Kind: packet.KindFUP, IPC: packet.IPCUpdate16, Payload: 0x0004})
	add(packet.Packet{Kind: packet.KindPwrX, State: 3, SubState: 1})
	add(packet.Packet{Kind: packet.KindModeTSX, Flags: packet.FlagInTX})
	add(packet.Packet{Kind: packet.KindFUP, IPC: packet.IPCUpdate16, Payload: 0x0004})
	add(packet.Packet{Kind: packet.KindModeTSX, Flags: packet.FlagTXAbort})
	add(packet.Packet{Kind: packet.KindFUP, IPC: packet.IPCUpdate16, Payload: 0x0004})
	add(packet.Packet{Kind: packet.KindTIP, IPC: packet.IPCUpdate16, Payload: 0x000f}) // jmp rax
	add(packet.Packet{Kind: packet.KindTIPPGD, IPC: packet.IPCSuppressed})
	return b
}

// A little code: jne back, call, ret, syscall.
var seedCode = []byte{0x31, 0xc0, 0x75, 0xfc, 0xe8, 0x01, 0x00, 0x00, 0x00, 0xc3, 0xc3, 0x0f, 0x05, 0xeb, 0xfe, 0xff, 0xe0}

func TestDecodeSeed(t *testing.T) {
	for _, tr := range [][]byte{seedTrace(), seedEvents()} {
		s, e := decodeAll(tr, seedCode, 1)
		if s == 0 {
			t.Errorf("no states (errors %d)", e)
		}
	}
}

// FuzzDecoder checks that no trace makes the decoder panic or loop.
func FuzzDecoder(f *testing.F) {
	f.Add(seedTrace(), seedCode)
	f.Add(seedEvents(), seedCode)
	f.Add([]byte{0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0xff, 0x00}, seedCode)
	f.Fuzz(func(t *testing.T, trace, code []byte) {
		if len(trace) > 1<<16 || len(code) > 1<<12 {
			return
		}
		decodeAll(trace, code, 1)
		decodeAll(trace, code, 0)
	})
}

// TestDecodeEvents checks that the events of seedEvents come out as perf's
// state types, with their payloads, and that CYC cycles are counted.
func TestDecodeEvents(t *testing.T) {
	tr := seedEvents()
	done := false
	d := New(Params{
		GetTrace: func(b *Buffer) error {
			b.Data = nil
			if !done {
				b.Data, done = tr, true
			}
			return nil
		},
		Walker:            &codeWalker{base: 0x400000, code: seedCode},
		ReturnCompression: true, BranchEnable: true, PeriodType: PeriodInstructions, Period: 1,
		Ctl: 1 << 1, MTCPeriod: 3, TSCCTCRatioN: 2, TSCCTCRatioD: 1, MaxNonTurboRatio: 20, IPC: true,
	})
	var types uint32
	var ptw []uint64
	var mwait, pwre, pwrx uint64
	var cyc uint64
	for n := 0; n < 1000; n++ {
		st := d.Decode()
		if st.Err == ErrNoData {
			break
		}
		if st.Err != 0 {
			t.Fatalf("error %d (%s) at %#x", st.Err, ErrMsg(st.Err), st.FromIP)
		}
		types |= st.Type
		if st.Type&TypePTW != 0 {
			ptw = append(ptw, st.PTWPayload)
		}
		if st.Type&TypeMWaitOp != 0 {
			mwait = st.MWaitPayload
		}
		if st.Type&TypePwrEntry != 0 {
			pwre = st.PwrEPayload
		}
		if st.Type&TypePwrExit != 0 {
			pwrx = st.PwrXPayload
		}
		cyc += d.TakeCycles()
	}
	want := uint32(TypePTW | TypeMWaitOp | TypePwrEntry | TypeExStop | TypePwrExit | TypeTransaction)
	if types&want != want {
		t.Errorf("state types %#x, want all of %#x", types, want)
	}
	if len(ptw) != 2 || ptw[0] != 0x41 || ptw[1] != 0x42 {
		t.Errorf("ptwrite payloads %#x", ptw)
	}
	if mwait != 0x1_0000_0021 || pwre>>8 != 0x21 || pwrx&0xff != 0x31 {
		t.Errorf("payloads: mwait %#x pwre %#x pwrx %#x", mwait, pwre, pwrx)
	}
	if cyc != 10 {
		t.Errorf("CYC cycles %d, want 10", cyc)
	}
}

// TestPerfCYC checks the CYC packets perf accepts and libipt does not.
func TestPerfCYC(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		ok   bool
		n    int
		want uint64
	}{
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x75, 0x59, 0x76}, true, 10, 0x6b1d7fffffffffff},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}, false, 0, 0},
		{[]byte{0x4b}, true, 1, 9},
	} {
		var p packet.Packet
		err := decodePacket(&p, c.in)
		if (err == nil) != c.ok || c.ok && (p.Kind != packet.KindCYC || int(p.Size) != c.n || p.Payload != c.want) {
			t.Errorf("% x: %v %+v, want ok %v size %d payload %#x", c.in, err, p, c.ok, c.n, c.want)
		}
	}
}

// TestPerfPacketRules checks the other packets perf's packet decoder
// (intel-pt-pkt-decoder.c) reads differently from libipt's.
func TestPerfPacketRules(t *testing.T) {
	bad := packet.Packet{}
	for _, c := range []struct {
		name string
		in   []byte
		want packet.Packet // zero: a bad packet
	}{
		{"tma reserved byte", []byte{0x02, 0x73, 0x6b, 0xcf, 0xff, 0x12, 0x03}, packet.Packet{Kind: packet.KindTMA, Size: 7, CTC: 0xcf6b, FC: 0x112}},
		{"tma fc bits 9-15", []byte{0x02, 0x73, 0x01, 0x02, 0x00, 0xff, 0xff}, packet.Packet{Kind: packet.KindTMA, Size: 7, CTC: 0x201, FC: 0x1ff}},
		{"tma", []byte{0x02, 0x73, 0x01, 0x02, 0x00, 0x34, 0x01}, packet.Packet{Kind: packet.KindTMA, Size: 7, CTC: 0x201, FC: 0x134}},
		{"tnt-64 without stop bit", []byte{0x02, 0xa3, 0, 0, 0, 0, 0, 0}, packet.Packet{Kind: packet.KindTNT64, Size: 8}},
		{"tnt-64 with a stop bit only", []byte{0x02, 0xa3, 1, 0, 0, 0, 0, 0}, packet.Packet{Kind: packet.KindTNT64, Size: 8}},
		{"tnt-64", []byte{0x02, 0xa3, 5, 0, 0, 0, 0, 0}, packet.Packet{Kind: packet.KindTNT64, Size: 8, Bits: 2, Payload: 1}},
		{"mode.exec cs.l and cs.d", []byte{0x99, 0x03}, bad},
		{"mode.exec 64-bit", []byte{0x99, 0x01}, packet.Packet{Kind: packet.KindModeExec, Size: 2, Flags: packet.FlagCSL}},
		{"mode.tsx intx and abort", []byte{0x99, 0x23}, bad},
		{"mode.tsx abort", []byte{0x99, 0x22}, packet.Packet{Kind: packet.KindModeTSX, Size: 2, Flags: packet.FlagTXAbort}},
		{"trig", []byte{0xd9, 0x01, 0x02}, bad},
	} {
		var p packet.Packet
		err := decodePacket(&p, c.in)
		if (err == nil) != (c.want.Kind != packet.KindInvalid) || p != c.want {
			t.Errorf("%s (% x): %v %+v, want %+v", c.name, c.in, err, p, c.want)
		}
	}
}

// TestInsnLayout checks that the 16 instruction bytes copied at every
// walk (Decoder.scratch.Buf to Decoder.state.Insn) lie within one cache
// line each (a Decoder is allocated 64-byte aligned): a copy straddling
// two lines cost ~5% of a bare decode.
func TestInsnLayout(t *testing.T) {
	var d Decoder
	for _, off := range []uintptr{
		unsafe.Offsetof(d.scratch) + unsafe.Offsetof(d.scratch.Buf),
		unsafe.Offsetof(d.state) + unsafe.Offsetof(d.state.Insn),
	} {
		if off%64+16 > 64 {
			t.Errorf("instruction bytes at offset %d straddle a cache line", off)
		}
	}
}
