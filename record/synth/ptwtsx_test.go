package synth

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/record/flow"
)

// ptwTSXFlow has two PTWRITEs (64- and 32-bit), a committed transaction
// with a conditional branch inside, and an aborted one.
func ptwTSXFlow() *flow.Thread {
	const f = 0x401000
	return &flow.Thread{Tid: 1, Events: []flow.Event{
		ev(flow.Begin, 0, f, 0),
		{Kind: flow.Cond, From: f + 2, To: f + 4, Taken: false, Insns: 2, Len: 2},
		{Kind: flow.PTWrite, From: f + 4, To: f + 9, Len: 5, Insns: 1, Back: 0x1122334455, Taken: true},
		{Kind: flow.PTWrite, From: f + 9, To: f + 13, Len: 4, Insns: 1, Back: 0xfeedface},
		{Kind: flow.TxBegin, From: f + 0x10, To: f + 0x16, Len: 6, Insns: 2},
		{Kind: flow.Cond, From: f + 0x18, To: f + 0x20, Taken: true, Insns: 2, Len: 2},
		{Kind: flow.TxCommit, From: f + 0x20, To: f + 0x23, Len: 3, Insns: 1},
		{Kind: flow.TxBegin, From: f + 0x30, To: f + 0x36, Len: 6, Insns: 2},
		{Kind: flow.TxAbort, From: f + 0x40, To: f + 0x36, Insns: 3},
		{Kind: flow.Syscall, From: f + 0x50, Insns: 4, Len: 2},
	}}
}

// describe lists packets as packets does, with PTW payloads and flags and
// MODE.TSX bits.
func describe(t *testing.T, data []byte) string {
	return strings.Join(listPackets(t, data, func(p *packet.Packet) string {
		var s string
		switch {
		case p.Kind == packet.KindPTW:
			s = fmt.Sprintf(":%d:%x", 4<<p.Bits, p.Payload)
			if p.Flags&packet.FlagIP != 0 {
				s += ":ip"
			}
		case p.Kind == packet.KindModeTSX:
			if p.Flags&packet.FlagInTX != 0 {
				s += ":intx"
			}
			if p.Flags&packet.FlagTXAbort != 0 {
				s += ":abrt"
			}
		case p.Kind == packet.KindTNT8:
			s = fmt.Sprintf(":%d", p.Bits)
		case p.Kind.IsIP() && p.IPC != packet.IPCSuppressed:
			s = fmt.Sprintf(":%x", p.Payload&0xffff)
		}
		return s
	}), " ")
}

// TestPTWriteTSX checks the packets of PTWRITE (PTW, with fup_on_ptw its IP
// bit and a FUP of the instruction) and of RTM transactions (MODE.TSX and a
// FUP of XBEGIN/XEND; an abort's MODE.TSX and FUP, then TIP to the fallback
// address), TNT bits flushed before each.
func TestPTWriteTSX(t *testing.T) {
	tsx := " mode.tsx:intx fup:1010 tnt.8:1 mode.tsx fup:1020 mode.tsx:intx fup:1030 mode.tsx:abrt fup:1040 tip:1036 tip.pgd"
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"ptw-off", Config{}, "psb psbend mode.exec tip.pge:1000" + tsx},
		{"fup-on-ptw-alone", Config{FUPOnPTW: true}, "psb psbend mode.exec tip.pge:1000" + tsx},
		{"ptw", Config{PTW: true}, "psb psbend mode.exec tip.pge:1000 tnt.8:1 ptw:8:1122334455 ptw:4:feedface" + tsx},
		{"ptw-fup", Config{PTW: true, FUPOnPTW: true},
			"psb psbend mode.exec tip.pge:1000 tnt.8:1 ptw:8:1122334455:ip fup:1004 ptw:4:feedface:ip fup:1009" + tsx},
	} {
		s, err := Encode(ptwTSXFlow(), c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		want := c.want
		if c.name == "ptw-off" || c.name == "fup-on-ptw-alone" {
			want = strings.Replace(want, "tip.pge:1000", "tip.pge:1000 tnt.8:1", 1)
		}
		if got := describe(t, s.Data); got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
		}
	}
}

// TestTSXInPSB checks that PSB+ inside a transaction tells it (MODE.TSX
// InTX before the FUP), and not outside one.
func TestTSXInPSB(t *testing.T) {
	s, err := Encode(ptwTSXFlow(), Config{PTW: true, PSBPeriod: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := describe(t, s.Data)
	for _, want := range []string{
		"mode.tsx:intx fup:1010 psb mode.exec mode.tsx:intx fup:1016 psbend",
		"mode.tsx fup:1020 psb mode.exec fup:1023 psbend",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}
