package packet

import (
	"math/rand/v2"
	"testing"
)

// TestStepBranch: for every first byte, StepBranch steps over exactly the
// TNT-8 packets and the TIPs with an IP, as Next would (offsets, then the
// packet Redecode gives and the IP its payload makes with UpdateIP), and
// leaves the decoder alone otherwise; never past end.
func TestStepBranch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for c := range 256 {
		buf := make([]byte, 16)
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		buf[3] = byte(c)
		var want Decoder
		want.Reset(buf)
		want.pos = 3
		ok := want.Next()
		p := *want.Packet()
		branch := ok && (p.Kind == KindTNT8 || p.Kind == KindTIP && p.IPC != IPCSuppressed)

		var d Decoder
		d.Reset(buf)
		d.pos = 3
		if _, _, got := d.StepBranch(3); got {
			t.Fatalf("%#02x: stepped at end", c)
		}
		saved := d
		gc, payload, got := d.StepBranch(len(buf))
		if got != branch {
			t.Fatalf("%#02x (%v): StepBranch %v", c, p.Kind, got)
		}
		if !got {
			if d.pos != saved.pos || d.cur != saved.cur || d.pkt != saved.pkt {
				t.Fatalf("%#02x: StepBranch moved the decoder", c)
			}
			continue
		}
		if gc != byte(c) || d.PacketOffset() != 3 || d.Offset() != want.Offset() {
			t.Fatalf("%#02x: byte %#02x at %d..%d, Next %d..%d", c, gc, d.PacketOffset(), d.Offset(), want.PacketOffset(), want.Offset())
		}
		d.Redecode()
		if *d.Packet() != p {
			t.Fatalf("%#02x: Redecode %+v, Next %+v", c, *d.Packet(), p)
		}
		if p.Kind == KindTIP {
			for _, last := range []uint64{0, 0xffffffff_ffff_ffff, rng.Uint64()} {
				a, b := LastIP{IP: last}, LastIP{IP: last}
				if err := a.Update(p.IPC, p.Payload); err != nil {
					t.Fatal(err)
				}
				b.UpdateIP(p.IPC, payload)
				if a != b {
					t.Fatalf("%#02x: UpdateIP %+v, Update %+v", c, b, a)
				}
			}
		}
	}
}
