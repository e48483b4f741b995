package synth

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/record/flow"
)

// packets lists a stream's packets as "kind[:detail]".
func packets(t testing.TB, data []byte) []string {
	return listPackets(t, data, func(p *packet.Packet) string {
		switch {
		case p.Kind == packet.KindTNT8:
			var b strings.Builder
			for i := 0; i < int(p.Bits); i++ {
				if p.TNT(i) {
					b.WriteByte('T')
				} else {
					b.WriteByte('N')
				}
			}
			return ":" + b.String()
		case p.Kind.IsIP():
			if p.IPC == packet.IPCSuppressed {
				return ":-"
			}
			return fmt.Sprintf(":%x", p.Payload)
		}
		return ""
	})
}

// listPackets lists a stream's packets as their kind and detail(p).
func listPackets(t testing.TB, data []byte, detail func(p *packet.Packet) string) []string {
	var out []string
	d := packet.NewDecoder(data)
	for d.Next() {
		p := d.Packet()
		out = append(out, p.Kind.String()+detail(p))
	}
	if err := d.Err(); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return out
}

func ev(k flow.Kind, from, to uint64, n uint64) flow.Event {
	return flow.Event{Kind: k, From: from, To: to, Insns: n, Len: 5}
}

func TestEncode(t *testing.T) {
	const f = 0x401000
	th := &flow.Thread{Tid: 1, Events: []flow.Event{
		ev(flow.Begin, 0, f, 0),
		{Kind: flow.Cond, From: f + 2, To: f + 10, Taken: true, Insns: 2, Len: 2},
		ev(flow.Call, f+10, f+0x100, 1),                         // pushes f+15
		ev(flow.IndCall, f+0x100, f+0x200, 1),                   // pushes f+0x105, TIP
		ev(flow.Ret, f+0x200, f+0x105, 1),                       // compressed: T
		ev(flow.Ret, f+0x105, f+0x20, 1),                        // mismatch (f+15 expected): TIP
		ev(flow.Syscall, f+0x20, f+0x25, 1),                     // PGD, then MODE.Exec, PGE
		ev(flow.Async, f+0x30, f+0x300, 3),                      // FUP, PGD, MODE.Exec, PGE
		{Kind: flow.Syscall, From: f + 0x310, Insns: 4, Len: 2}, // exit: PGD only
	}}
	got, err := Encode(th, Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"psb", "psbend", "mode.exec", "tip.pge:401000", "tnt.8:T", "tip:1200", "tnt.8:T", "tip:1020",
		"tip.pgd:-", "mode.exec", "tip.pge:1025", "fup:1030", "tip.pgd:-", "mode.exec", "tip.pge:1300", "tip.pgd:-"}
	if g := packets(t, got.Data); strings.Join(g, " ") != strings.Join(want, " ") {
		t.Errorf("retcomp:\n got %v\nwant %v", g, want)
	}
	got, _ = Encode(th, Config{NoRetComp: true})
	want = []string{"psb", "psbend", "mode.exec", "tip.pge:401000", "tnt.8:T", "tip:1200", "tip:1105", "tip:1020",
		"tip.pgd:-", "mode.exec", "tip.pge:1025", "fup:1030", "tip.pgd:-", "mode.exec", "tip.pge:1300", "tip.pgd:-"}
	if g := packets(t, got.Data); strings.Join(g, " ") != strings.Join(want, " ") {
		t.Errorf("noretcomp:\n got %v\nwant %v", g, want)
	}
	for _, c := range got.Cuts {
		if _, err := packet.Decode(got.Data, c.Off); err != nil && c.Off != len(got.Data) {
			t.Errorf("cut at %d is not a packet boundary: %v", c.Off, err)
		}
	}
}

// TestRetStack checks that returns deeper than the 64-entry compression
// stack are TIPs, and that PSB+ empties the stack.
func TestRetStack(t *testing.T) {
	const f = 0x401000
	evs := []flow.Event{ev(flow.Begin, 0, f, 0)}
	for i := 0; i < 70; i++ {
		evs = append(evs, ev(flow.Call, f, f, 1)) // f -> f, pushes f+5
	}
	for i := 0; i < 70; i++ {
		evs = append(evs, ev(flow.Ret, f+8, f+5, 1))
	}
	s, err := Encode(&flow.Thread{Events: evs}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	tips, taken := 0, 0
	for _, p := range packets(t, s.Data) {
		if strings.HasPrefix(p, "tip:") {
			tips++
		}
		if strings.HasPrefix(p, "tnt.8:") {
			taken += strings.Count(p, "T")
		}
	}
	if taken != 64 || tips != 6 {
		t.Errorf("%d compressed returns and %d TIPs, want 64 and 6", taken, tips)
	}
}

func TestPSBPeriod(t *testing.T) {
	evs := []flow.Event{ev(flow.Begin, 0, 0x401000, 0)}
	for i := 0; i < 5000; i++ {
		evs = append(evs, ev(flow.IndJump, 0x401000, 0x7f0000000000+uint64(i)*0x10001, 3))
	}
	s, err := Encode(&flow.Thread{Events: evs}, Config{PSBPeriod: 1024, TSC: true, MTC: true, CYC: true})
	if err != nil {
		t.Fatal(err)
	}
	ps := packets(t, s.Data)
	psb := 0
	last := 0
	for i, p := range ps {
		if p == "psb" {
			psb++
			if i+6 < len(ps) && !strings.HasPrefix(ps[i+5], "fup") && psb > 1 {
				t.Errorf("PSB+ without FUP: %v", ps[i:i+7])
			}
			last = i
		}
	}
	if want := len(s.Data) / 1024; psb < want || psb > want+2 {
		t.Errorf("%d PSBs in %d bytes with period 1024", psb, len(s.Data))
	}
	_ = last
}

func BenchmarkEncode(b *testing.B) {
	evs := []flow.Event{ev(flow.Begin, 0, 0x401000, 0)}
	for i := 0; i < 100000; i++ {
		switch i % 4 {
		case 0, 1:
			evs = append(evs, flow.Event{Kind: flow.Cond, From: 0x401000, To: 0x401010, Taken: i%3 == 0, Insns: 5, Len: 2})
		case 2:
			evs = append(evs, ev(flow.Call, 0x401010, 0x402000, 3))
		case 3:
			evs = append(evs, ev(flow.Ret, 0x402010, 0x401015, 4))
		}
	}
	th := &flow.Thread{Events: evs}
	b.ReportAllocs()
	var n int
	for i := 0; i < b.N; i++ {
		s, err := Encode(th, Config{TSC: true, MTC: true, CYC: true})
		if err != nil {
			b.Fatal(err)
		}
		n = len(s.Data)
	}
	b.ReportMetric(float64(len(evs)*b.N)/b.Elapsed().Seconds(), "events/s")
	_ = n
}

// FuzzEncode encodes arbitrary flows: the stream must decode packet by
// packet, and every cut must be a packet boundary.
func FuzzEncode(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, uint16(0), uint8(0))
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 6, 6, 6, 3, 3, 3, 7, 8}, uint16(300), uint8(7))
	f.Fuzz(func(t *testing.T, kinds []byte, psb uint16, opts uint8) {
		if len(kinds) > 4096 {
			return
		}
		evs := []flow.Event{{Kind: flow.Begin, To: 0x401000, Time: 1}}
		ip, tm := uint64(0x401000), uint64(1)
		for i, k := range kinds {
			e := flow.Event{Kind: flow.Kind(k % 9), From: ip + uint64(i%7), Insns: uint64(k%5) + 1, Len: 2 + k%4}
			if e.Kind == flow.Begin {
				e.Kind = flow.Cond
			}
			e.Taken = k&0x80 != 0
			e.To = ip ^ uint64(k)<<uint(k%40)
			if e.Kind == flow.Syscall && k&0x40 != 0 {
				e.To = 0
			}
			tm += e.Insns
			e.Time, e.Back = tm, tm+uint64(k%3)
			evs = append(evs, e)
			if e.To == 0 && (e.Kind == flow.Syscall || e.Kind == flow.Async) {
				break
			}
			ip = e.To
		}
		cfg := Config{PSBPeriod: int(psb), NoRetComp: opts&1 != 0, TSC: opts&2 != 0, MTC: opts&4 != 0, CYC: opts&8 != 0, MTCPeriod: uint(opts >> 4)}
		s, err := Encode(&flow.Thread{Events: evs}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		packets(t, s.Data)
		for _, c := range s.Cuts {
			if c.Off < len(s.Data) {
				if _, err := packet.Decode(s.Data, c.Off); err != nil {
					t.Fatalf("cut at %d: %v", c.Off, err)
				}
			}
		}
	})
}
