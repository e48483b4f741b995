package packet

import (
	"math/rand/v2"
	"testing"
)

// randStream returns up to n bytes of packets and near-packets chosen to
// exercise Decoder.Next's fast paths at their edges: runs of TNT-8 and
// PAD, the extended opcode 0x02 with good and bad second bytes, 1-byte,
// 2-byte (some reading as SKD007's OVF) and long CYCs, IP packets of every
// compression, MTC, TSC, BBP..BEP blocks and random bytes.
func randStream(r *rand.Rand, n int) []byte {
	var b []byte
	put := func(v ...byte) { b = append(b, v...) }
	rnd := func(k int) {
		for range k {
			b = append(b, byte(r.Uint32()))
		}
	}
	for len(b) < n {
		switch r.IntN(20) {
		case 0, 1, 2, 3, 4, 5, 6: // a run of TNT-8, sometimes PAD
			for k := 1 + r.IntN(12); k > 0; k-- {
				if r.IntN(6) == 0 {
					put(0x00)
				} else {
					put(byte(4 + 2*r.IntN(126)))
				}
			}
		case 7: // 1-byte CYC
			put(byte(r.IntN(32)<<3 | 3))
		case 8: // 2-byte CYC, its second byte possibly the ext. opcode
			put(byte(r.IntN(32)<<3|7), []byte{0x02, 0x03, byte(r.IntN(128) << 1)}[r.IntN(3)])
			if r.IntN(2) == 0 {
				put(0xf3)
			}
		case 9: // long CYC
			put(byte(r.IntN(32)<<3 | 7))
			for k := r.IntN(10); k > 0; k-- {
				put(byte(r.Uint32()) | 1)
			}
			put(byte(r.Uint32()) &^ 1)
		case 10, 11: // IP packet of any compression, any kind
			c := byte(r.IntN(8)<<5) | []byte{0x0d, 0x11, 0x01, 0x1d}[r.IntN(4)]
			put(c)
			rnd([]int{0, 2, 4, 6, 6, 8, 8, 0}[c>>5])
		case 12: // MTC, TSC
			if r.IntN(2) == 0 {
				put(0x59)
				rnd(1)
			} else {
				put(0x19)
				rnd(7)
			}
		case 13: // TNT-64, sometimes with no stop bit
			put(0x02, 0xa3)
			rnd(6)
			if r.IntN(4) == 0 {
				b[len(b)-1], b[len(b)-2] = 0, 0
			}
		case 14: // another extended packet or a bad second byte
			put(0x02, []byte{0x23, 0xf3, 0x03, 0x73, 0x82, 0xc3, 0x43, 0x83, 0x12, 0x02, 0x00}[r.IntN(11)])
			rnd(r.IntN(8))
		case 15: // PSB
			for range 8 {
				put(0x02, 0x82)
			}
		case 16: // BBP, block items, BEP
			put(0x02, 0x63, byte(r.IntN(2)<<7|r.IntN(32)))
			for k := r.IntN(4); k > 0; k-- {
				put(byte(r.IntN(32)<<3 | 4))
				rnd(8)
			}
			put(0x02, 0x33|byte(r.IntN(2)<<7))
		default: // random bytes
			rnd(1 + r.IntN(3))
		}
	}
	return b
}

// TestNextStreams checks Decoder.Next, fast paths and all, against the
// general decoder alone (next) over random streams rich in TNT runs and
// edge bytes: from every offset, cut at every length near the end, with
// and without the errata and the block items.
func TestNextStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	iters := 120
	if testing.Short() {
		iters = 50
	}
	for it := range iters {
		buf := randStream(r, 24+r.IntN(40))
		for cut := max(0, len(buf)-12); cut <= len(buf); cut++ {
			b := buf[:cut]
			for start := range b {
				for mode := range 4 {
					compareNext(t, b, start, mode&1 != 0, mode&2 != 0, it)
				}
			}
		}
	}
}

// compareNext decodes b from start with Next and with next only, and
// fails at the first difference in what they return.
func compareNext(t *testing.T, b []byte, start int, errata, noBlocks bool, it int) {
	t.Helper()
	d, ref := NewDecoder(b), NewDecoder(b)
	for _, x := range []*Decoder{d, ref} {
		x.SetErrata(errata, errata)
		x.SetBlockItems(!noBlocks)
		if err := x.SyncSet(start); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; ; i++ {
		ok, rok := d.Next(), ref.next()
		same := ok == rok && d.Offset() == ref.Offset() && errString(d.Err()) == errString(ref.Err())
		if ok && same {
			same = *d.Packet() == *ref.Packet() && d.PacketOffset() == ref.PacketOffset()
		}
		if !same {
			t.Fatalf("stream %d % x from %d (errata %v, no blocks %v), packet %d:\nNext %v %+v at %d next %d err %v\nwant %v %+v at %d next %d err %v",
				it, b, start, errata, noBlocks, i,
				ok, *d.Packet(), d.PacketOffset(), d.Offset(), d.Err(),
				rok, *ref.Packet(), ref.PacketOffset(), ref.Offset(), ref.Err())
		}
		if !ok {
			return
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
