package packet

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// batchOpts are the decoder settings and the out length of one
// comparison of Batch with Next.
type batchOpts struct {
	errata, noBlocks bool
	sync             bool // start at the first PSB, else at offset 0
	out              int  // len(out)
}

func (o batchOpts) String() string {
	return fmt.Sprintf("errata %v, no blocks %v, sync %v, out %d", o.errata, o.noBlocks, o.sync, o.out)
}

func (o batchOpts) decoder(buf []byte) *Decoder {
	d := NewDecoder(buf)
	d.SetErrata(o.errata, o.errata)
	d.SetBlockItems(!o.noBlocks)
	if o.sync {
		_ = d.SyncForward()
	}
	return d
}

// compareBatch decodes buf with Batch and with Next and fails at the first
// difference: in the packets (every field, offset), in where each call of
// Batch leaves the decoder, and in the error at the end.
func compareBatch(t *testing.T, name string, buf []byte, o batchOpts) {
	t.Helper()
	d, ref := o.decoder(buf), o.decoder(buf)
	out := make([]Item, o.out)
	total := 0
	for call := 0; ; call++ {
		n := d.Batch(out)
		for i, it := range out[:n] {
			if !ref.Next() {
				t.Fatalf("%s (%s): Batch call %d item %d at %d: %+v, Next stopped: %v",
					name, o, call, i, it.Offset(), it.Packet(), ref.Err())
			}
			if p := it.Packet(); p != *ref.Packet() || it.Offset() != ref.PacketOffset() {
				t.Fatalf("%s (%s): Batch call %d packet %d: %+v at %d, Next %+v at %d",
					name, o, call, total+i, p, it.Offset(), *ref.Packet(), ref.PacketOffset())
			}
			checkAccessors(t, it, ref.Packet())
		}
		total += n
		if d.Err() != nil && ref.Err() == nil && ref.Next() {
			t.Fatalf("%s (%s): Batch stopped at %d with %v, Next goes on with %+v", name, o, d.Offset(), d.Err(), *ref.Packet())
		}
		if d.Offset() != ref.Offset() || d.PacketOffset() != ref.PacketOffset() || *d.Packet() != *ref.Packet() ||
			d.SyncOffset() != ref.SyncOffset() || errString(d.Err()) != errString(ref.Err()) {
			t.Fatalf("%s (%s): after Batch call %d (%d packets): offset %d/%d, packet %+v at %d, sync %d, err %v;\nNext: %d/%d, %+v at %d, sync %d, err %v",
				name, o, call, total, d.Offset(), d.PacketOffset(), *d.Packet(), d.PacketOffset(), d.SyncOffset(), d.Err(),
				ref.Offset(), ref.PacketOffset(), *ref.Packet(), ref.PacketOffset(), ref.SyncOffset(), ref.Err())
		}
		if n == 0 {
			if ref.Next() {
				t.Fatalf("%s (%s): Batch stopped at %d, Next goes on with %+v", name, o, d.Offset(), *ref.Packet())
			}
			if errString(d.Err()) != errString(ref.Err()) {
				t.Fatalf("%s (%s): Batch error %v, Next %v", name, o, d.Err(), ref.Err())
			}
			return
		}
	}
}

// checkAccessors checks Item's field accessors against the packet Next
// returned.
func checkAccessors(t *testing.T, it Item, p *Packet) {
	t.Helper()
	ok := it.Kind() == p.Kind && it.Size() == int(p.Size)
	switch p.Kind {
	case KindTIP, KindTIPPGE, KindTIPPGD, KindFUP:
		ok = ok && it.IPC() == p.IPC && it.IP() == p.Payload
	case KindTNT8, KindTNT64:
		pl, n := it.TNT()
		ok = ok && pl == p.Payload && n == int(p.Bits)
	case KindCYC:
		ok = ok && it.Cycles() == p.Payload
	case KindMTC:
		ok = ok && it.CTC() == p.CTC
	case KindTSC:
		ok = ok && it.TSC() == p.Payload
	}
	if !ok {
		t.Fatalf("item at %d: accessors disagree with %+v", it.Offset(), *p)
	}
}

// batchOptsAll are the settings compareBatch runs each input with.
var batchOptsAll = func() (all []batchOpts) {
	for _, out := range []int{BatchSize, BatchSize + 3, 3 * BatchSize, 1, 100} {
		for m := range 8 {
			if out != BatchSize && m != 0 && m != 4 {
				continue
			}
			all = append(all, batchOpts{errata: m&1 != 0, noBlocks: m&2 != 0, sync: m&4 != 0, out: out})
		}
	}
	return all
}()

// batchInputs are the streams TestBatch decodes: generated traces (the
// benchmark's mix), random streams rich in edge cases, random bytes, and
// the trace fixtures.
func batchInputs(t *testing.T) map[string][]byte {
	in := map[string][]byte{
		"gen64k":   genTrace(64<<10, 1),
		"gen5k":    genTrace(5000, 2),
		"allKinds": allKinds(),
		"blocks":   blocks(),
	}
	r := rand.New(rand.NewPCG(11, 13))
	for i := range 6 {
		in[fmt.Sprintf("rand%d", i)] = randStream(r, 2000+r.IntN(20000))
	}
	// TNT-8, TIP and MTC only, as a recording without CYC: Batch picks
	// lanesBranchy.
	var e Encoder
	ip := uint64(0x401000)
	for len(e.Buf) < 32<<10 {
		var err error
		switch n := r.IntN(100); {
		case n < 70:
			err = e.Append(Packet{Kind: KindTNT8, Bits: 6, Payload: r.Uint64() & 63})
		case n < 97:
			ip = ip&^0xffff | uint64(r.IntN(1<<16))
			err = e.AppendIP(KindTIP, ip)
		default:
			err = e.Append(Packet{Kind: KindMTC, CTC: uint16(r.IntN(256))})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	in["tnt-tip"] = e.Buf
	for i := range 3 {
		b := make([]byte, 3000)
		for k := range b {
			b[k] = byte(r.Uint32())
		}
		in[fmt.Sprintf("bytes%d", i)] = b
	}
	// The generated trace with a few bytes flipped: errors in mid-lane.
	g := genTrace(32<<10, 3)
	for range 8 {
		g[r.IntN(len(g))] = byte(r.Uint32())
	}
	in["genflip"] = g
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "*.pt"))
	if len(files) == 0 {
		t.Log("no trace fixtures in", fixtureDir)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		in[filepath.Base(name)] = data
	}
	return in
}

// TestBatch checks that Batch returns exactly what Next does, packet for
// packet, and leaves the decoder where Next does, for every input and
// setting.
func TestBatch(t *testing.T) {
	defer func() { laneLoop = 0 }()
	for name, buf := range batchInputs(t) {
		for loop := range 4 { // the SIMD kernel (where the CPU has it), lanesFlat, lanesBranchy, the lane loop Batch picks
			laneLoop = loop
			for _, o := range batchOptsAll {
				compareBatch(t, fmt.Sprint(name, " loop ", loop), buf, o)
			}
		}
	}
}

// TestBatchMixed alternates Batch and Next on one decoder.
func TestBatchMixed(t *testing.T) {
	buf := genTrace(64<<10, 5)
	d, ref := NewDecoder(buf), NewDecoder(buf)
	out := make([]Item, BatchSize)
	for i := 0; ; i++ {
		if i%3 == 2 {
			ok := d.Next()
			if ok != ref.Next() || *d.Packet() != *ref.Packet() || d.PacketOffset() != ref.PacketOffset() {
				t.Fatalf("Next after Batch: %+v at %d, want %+v at %d", *d.Packet(), d.PacketOffset(), *ref.Packet(), ref.PacketOffset())
			}
			if !ok {
				break
			}
			continue
		}
		n := d.Batch(out)
		for _, it := range out[:n] {
			ref.Next()
			if it.Packet() != *ref.Packet() || it.Offset() != ref.PacketOffset() {
				t.Fatalf("Batch: %+v at %d, want %+v at %d", it.Packet(), it.Offset(), *ref.Packet(), ref.PacketOffset())
			}
		}
		if n == 0 {
			if ref.Next() {
				t.Fatal("Batch stopped early")
			}
			break
		}
	}
}

// batchFuzzSeeds adds the seeds of the Batch fuzz targets (the packet
// corpus and streams for the SIMD kernel, from seed) and returns what the
// targets run besides the input itself: the input inside a generated
// trace, at an offset its first byte gives.
func batchFuzzSeeds(f *testing.F, seed uint64) func(data []byte) []byte {
	addSeeds(f)
	r := rand.New(rand.NewPCG(seed, seed+1))
	for i := range 4 {
		f.Add(kernelStream(r, 1500, i%2 == 1))
	}
	bg := genTrace(6<<10, 9)
	return func(data []byte) []byte {
		at := 0
		if len(data) > 0 {
			at = int(data[0]) * 16
		}
		return append(append(append([]byte(nil), bg[:at]...), data...), bg[at:]...)
	}
}

// FuzzBatch compares Batch with Next on arbitrary bytes, alone and inside a
// generated trace (so that the lanes run into them), with every setting.
func FuzzBatch(f *testing.F) {
	mix := batchFuzzSeeds(f, 3)
	f.Fuzz(func(t *testing.T, data []byte) {
		mixed := mix(data)
		defer func() { laneLoop = 0 }()
		for m := range 32 {
			laneLoop = m >> 3 // the SIMD kernel and the three lane choices
			o := batchOpts{errata: m&1 != 0, noBlocks: m&2 != 0, sync: m&4 != 0, out: BatchSize}
			compareBatch(t, "data", data, o)
			compareBatch(t, "mixed", mixed, o)
		}
	})
}
