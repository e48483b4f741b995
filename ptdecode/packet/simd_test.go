package packet

import "testing"

// TestSIMDKernel runs the kernel alone from the first packet after a PSB+
// of the generated trace: it must decode windows full of packets (else
// TestBatch could pass on the fallback alone) exactly as Next does, and
// stop where Next's next packet starts.
func TestSIMDKernel(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX-512 VBMI: the kernel does not run here")
	}
	buf := genTrace(64<<10, 1)
	ref := NewDecoder(buf)
	for ref.Next() && ref.Packet().Kind != KindPSBEnd {
	}
	out := make([]Item, BatchSize)
	for _, room := range []int{simdMinOut, 100, BatchSize} {
		d := *ref
		n := d.simd(out[:room])
		if n < room-simdMinOut {
			t.Fatalf("room %d: the kernel decoded %d packets from %d", room, n, d.Offset())
		}
		r := *ref
		for i, it := range out[:n] {
			if !r.Next() || it.Packet() != *r.Packet() || it.Offset() != r.PacketOffset() {
				t.Fatalf("room %d: item %d: %+v at %d, Next %+v at %d", room, i, it.Packet(), it.Offset(), *r.Packet(), r.PacketOffset())
			}
		}
		if d.Offset() != r.Offset() || d.PacketOffset() != r.PacketOffset() || *d.Packet() != *r.Packet() {
			t.Fatalf("room %d: the kernel left the decoder at %d, Next at %d", room, d.Offset(), r.Offset())
		}
	}
}
