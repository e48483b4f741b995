package ptperf

import (
	"testing"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// nrWalker is codeWalker that records the toNR of each walk.
type nrWalker struct {
	codeWalker
	toNR []bool
}

func (w *nrWalker) WalkInsn(in *Insn, cnt *uint64, ip *uint64, toIP, max uint64, toNR bool) error {
	w.toNR = append(w.toNR, toNR)
	return w.codeWalker.WalkInsn(in, cnt, ip, toIP, max, toNR)
}

// TestPIPNonRoot checks the NR bit of PIP packets as perf carries it into
// the states (intel_pt_set_pip in PSB+, intel_pt_update_pip outside, applied
// at the next TIP by intel_pt_update_nr): a PSB+ whose PIP says non-root makes
// the states NR from the start, and a PIP with NR=0 outside PSB+ changes
// ToNR at the next TIP, FromNR at the state after it. The walker is asked
// for guest code (toNR) exactly while the states say so.
func TestPIPNonRoot(t *testing.T) {
	b := []byte{}
	add := packetAdder(&b)
	add(packet.Packet{Kind: packet.KindPSB})
	add(packet.Packet{Kind: packet.KindPIP, Payload: 0x1000, Flags: packet.FlagNR})
	add(packet.Packet{Kind: packet.KindModeExec, Flags: packet.FlagCSL})
	add(packet.Packet{Kind: packet.KindFUP, IPC: packet.IPCSext48, Payload: 0x400000})
	add(packet.Packet{Kind: packet.KindPSBEnd})
	// jne at 0x400002 not taken, call 0x40000a, ret (compressed) to 0x400009
	add(packet.Packet{Kind: packet.KindTNT8, Bits: 2, Payload: 0b01})
	add(packet.Packet{Kind: packet.KindPIP, Payload: 0x2000})
	// ret at 0x400009 with no call seen: a TIP back to 0x400000
	add(packet.Packet{Kind: packet.KindTIP, IPC: packet.IPCUpdate16, Payload: 0x0000})
	add(packet.Packet{Kind: packet.KindTNT8, Bits: 1, Payload: 0b1})
	done := false
	w := &nrWalker{codeWalker: codeWalker{base: 0x400000, code: seedCode}}
	d := New(Params{
		GetTrace: func(buf *Buffer) error {
			buf.Data = nil
			if !done {
				buf.Data, done = b, true
			}
			return nil
		},
		Walker: w, ReturnCompression: true, BranchEnable: true, PeriodType: PeriodInstructions, Period: 1,
	})
	type nr struct {
		from, to uint64
		fromNR   bool
		toNR     bool
	}
	var got []nr
	for n := 0; n < 100; n++ {
		st := d.Decode()
		if st.Err == ErrNoData {
			break
		}
		if st.Err != 0 {
			t.Fatalf("error %s at %#x", ErrMsg(st.Err), st.FromIP)
		}
		if st.Type&TypeBranch != 0 && st.ToIP != 0 {
			got = append(got, nr{st.FromIP, st.ToIP, st.FromNR, st.ToNR})
		}
	}
	want := []nr{
		{0x400004, 0x40000a, true, true},  // call, in the guest since PSB+
		{0x40000a, 0x400009, true, true},  // ret: the PIP is not applied yet
		{0x400009, 0x400000, true, false}, // the TIP after the PIP applies it
		{0x400002, 0x400000, false, false},
	}
	if len(got) != len(want) {
		t.Fatalf("branches %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("branch %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// The walks before the TIP are of guest code, those after it not.
	sawGuest, sawHost := false, false
	for _, g := range w.toNR {
		if g && sawHost {
			t.Fatalf("walked guest code after the host's: %v", w.toNR)
		}
		sawGuest, sawHost = sawGuest || g, sawHost || !g
	}
	if !sawGuest || !sawHost {
		t.Errorf("walks' toNR %v: want guest, then host", w.toNR)
	}
}
