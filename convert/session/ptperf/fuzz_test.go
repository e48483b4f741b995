package ptperf

import (
	"testing"

	"github.com/perfpt/perfpt/ptdecode/insn"
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
		var d insn.Insn
		if insn.Decode(&d, w.code[*ip-w.base:], insn.Mode64) != nil {
			return WalkNoInsn
		}
		Classify(&d, in)
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

func seedTrace() []byte {
	var e packet.Encoder
	_ = e
	b := []byte{}
	add := func(p packet.Packet) {
		var err error
		b, err = packet.Append(b, p)
		if err != nil {
			panic(err)
		}
	}
	add(packet.Packet{Kind: packet.KindPSB})
	add(packet.Packet{Kind: packet.KindModeExec, Flags: packet.FlagCSL})
	add(packet.Packet{Kind: packet.KindFUP, IPC: packet.IPCSext48, Payload: 0x400000})
	add(packet.Packet{Kind: packet.KindPSBEnd})
	add(packet.Packet{Kind: packet.KindTNT8, Bits: 3, Payload: 0b101})
	add(packet.Packet{Kind: packet.KindTIP, IPC: packet.IPCUpdate16, Payload: 0x0010})
	add(packet.Packet{Kind: packet.KindTIPPGD, IPC: packet.IPCSuppressed})
	return b
}

// A little code: jne back, call, ret, syscall.
var seedCode = []byte{0x31, 0xc0, 0x75, 0xfc, 0xe8, 0x01, 0x00, 0x00, 0x00, 0xc3, 0xc3, 0x0f, 0x05, 0xeb, 0xfe, 0xff, 0xe0}

func TestDecodeSeed(t *testing.T) {
	s, e := decodeAll(seedTrace(), seedCode, 1)
	if s == 0 {
		t.Errorf("no states (errors %d)", e)
	}
}

// FuzzDecoder checks that no trace makes the decoder panic or loop.
func FuzzDecoder(f *testing.F) {
	f.Add(seedTrace(), seedCode)
	f.Add([]byte{0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0xff, 0x00}, seedCode)
	f.Fuzz(func(t *testing.T, trace, code []byte) {
		if len(trace) > 1<<16 || len(code) > 1<<12 {
			return
		}
		decodeAll(trace, code, 1)
		decodeAll(trace, code, 0)
	})
}
