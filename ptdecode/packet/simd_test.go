package packet

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

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
		n, _ := d.simd(out[:room])
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

// kernelStream returns a valid stream of about n bytes rich in what the
// kernel must tell apart: CYCs of 1 to 9 bytes, TNT-64s (with 1 to 47
// branches), runs of 1-byte and of 8-byte packets (64 or 8 packets a
// window), IP packets of every valid compression (the full IP is a stop),
// PAD, and now and then a packet the kernel leaves to Next (PSB+, MODE,
// CBR, PSBEND, OVF). With bad set, it also has TNT-64s without a branch
// or stop bit, which are errors.
func kernelStream(r *rand.Rand, n int, bad bool) []byte {
	var b []byte
	put := func(v ...byte) { b = append(b, v...) }
	for len(b) < n {
		switch r.IntN(12) {
		case 0, 1: // TNT-8 and PAD, up to a window's worth
			for k := 1 + r.IntN(70); k > 0; k-- {
				put([]byte{0x00, byte(4 + 2*r.IntN(126))}[min(1, r.IntN(8))])
			}
		case 2, 3: // CYC of 1 to 9 bytes
			k := r.IntN(9)
			if k == 0 {
				put(byte(r.IntN(32)<<3 | 3))
				break
			}
			put(byte(r.IntN(32)<<3 | 7))
			for ; k > 1; k-- {
				put(byte(r.Uint32()) | 1)
			}
			put(byte(r.Uint32()) &^ 1)
		case 4: // TNT-64
			bits := 1 + r.IntN(47)
			pl := r.Uint64()&(1<<bits-1) | 1<<bits
			put(0x02, 0xa3)
			for i := range 6 {
				put(byte(pl >> (8 * i)))
			}
		case 5, 6: // IP packets, full IPs included
			ipc := []byte{0, 1, 2, 3, 4, 6}[r.IntN(6)]
			put(ipc<<5 | []byte{0x0d, 0x11, 0x01, 0x1d}[r.IntN(4)])
			for range []int{0, 2, 4, 6, 6, 0, 8}[ipc] {
				put(byte(r.Uint32()))
			}
		case 7: // MTC, TSC
			put(0x59, byte(r.Uint32()))
			if r.IntN(2) == 0 {
				put(0x19)
				for range 7 {
					put(byte(r.Uint32()))
				}
			}
		case 8: // a run of 8-byte packets: TSC and TNT-64
			for k := r.IntN(10); k > 0; k-- {
				if r.IntN(2) == 0 {
					put(0x19, 1, 2, 3, 4, 5, 6, 7)
				} else {
					put(0x02, 0xa3, byte(r.Uint32()), byte(r.Uint32()), 0, 0, 0, 1)
				}
			}
		case 9: // packets the kernel leaves to Next
			switch r.IntN(5) {
			case 0:
				for range 8 {
					put(0x02, 0x82)
				}
				put(0x02, 0x03, 0x20, 0x00, 0x02, 0x23)
			case 1:
				put(0x99, 0x01)
			case 2:
				put(0x02, 0xf3)
			case 3:
				put(0x02, 0x03, 0x10, 0x00)
			default:
				put(0x02, 0x23)
			}
		case 10: // a TNT-64 with a payload of 0 or 1 (an error), or of 2 or 3
			p := byte(2 + r.IntN(2))
			if bad && r.IntN(16) == 0 {
				p -= 2
			}
			put(0x02, 0xa3, p, 0, 0, 0, 0, 0)
		default: // TIP with a 16-bit IP
			put(0x2d, byte(r.Uint32()), byte(r.Uint32()))
		}
	}
	return b
}

// TestSIMDStress compares Batch with Next on kernelStream's streams from
// every offset modulo 64 (the kernel's windows are 64 bytes from the
// decoder's offset rounded down) and with little room in out.
func TestSIMDStress(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for i := range 24 {
		buf := kernelStream(r, 6000, i%4 == 3)
		for pad := range 64 {
			in := append(bytes.Repeat([]byte{0}, pad), buf...)
			for _, out := range []int{simdMinOut, simdMinOut + 1, 71, 127, BatchSize} {
				if pad%8 != 0 && out != BatchSize {
					continue
				}
				compareBatch(t, fmt.Sprintf("stream %d, pad %d", i, pad), in, batchOpts{out: out})
			}
		}
	}
}

// FuzzBatchSIMD is FuzzBatch for the default path alone (the SIMD kernel
// where the CPU has it), with two settings instead of 32: many more inputs
// a second for the kernel.
func FuzzBatchSIMD(f *testing.F) {
	mix := batchFuzzSeeds(f, 6)
	f.Fuzz(func(t *testing.T, data []byte) {
		mixed := mix(data)
		for _, o := range []batchOpts{{out: BatchSize}, {out: simdMinOut + 1, sync: true, noBlocks: true}} {
			compareBatch(t, "data", data, o)
			compareBatch(t, "mixed", mixed, o)
		}
	})
}
