package packet

import (
	"testing"
	"time"

	"github.com/perfpt/perfpt/internal/benchcpu"
)

// benchTrace is 4 MiB of generated trace (see genTrace).
var benchTrace = genTrace(4<<20, 1)

// BenchmarkDecoder measures the packet loop: every packet of a realistic
// mix decoded with Decoder.Next, as a decoder's hot loop does. It reports
// bytes/s of trace and must not allocate.
func BenchmarkDecoder(b *testing.B) {
	benchDecoder(b, benchTrace)
}

func benchDecoder(b *testing.B, buf []byte) {
	var d Decoder
	benchPackets(b, buf, func() int {
		d.Reset(buf)
		n, m := 0, 0
		for d.Next() {
			n += int(d.Packet().Kind)
			m++
		}
		if d.Err() != nil || n == 0 {
			b.Fatal(d.Err())
		}
		return m
	})
}

// benchPackets runs decodeAll, which decodes all of buf and returns the
// packets it saw, once per iteration, and reports cpu-MB/s of trace and
// cpu-ns/packet; the count must be Next's.
func benchPackets(b *testing.B, buf []byte, decodeAll func() int) {
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	packets := countPackets(buf)
	start := benchcpu.Now()
	for b.Loop() {
		if m := decodeAll(); m != packets {
			b.Fatalf("%d packets decoded, want %d", m, packets)
		}
	}
	benchcpu.ReportMB(b, start, len(buf))
	reportPerPacket(b, start, packets)
}

// BenchmarkByteLoop is the yardstick for the others: a trivial loop over
// every byte of the trace, about the least work per byte any decoder can
// do. On a shared machine compare the cpu-MB/s of the packet loop with
// this one's, measured in the same run.
func BenchmarkByteLoop(b *testing.B) {
	buf := benchTrace
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	start := benchcpu.Now()
	for b.Loop() {
		n := 0
		for _, c := range buf {
			n += int(c)
		}
		if n == 0 {
			b.Fatal("empty trace")
		}
	}
	benchcpu.ReportMB(b, start, len(buf))
}

// BenchmarkOffsetChain is the floor of a table-driven loop that decodes
// packet after packet: each packet's offset is the previous one's plus a
// size read from a table at the byte found there, two dependent loads per
// packet. It
// walks 1-byte TNT-8 packets and decodes nothing; cpu-ns/packet is the
// latency of that chain, which BenchmarkDecoder's cpu-ns/packet can
// approach but not beat (on the realistic mix it also pays for
// mispredicted branches on the rarer kinds).
func BenchmarkOffsetChain(b *testing.B) {
	buf := tntTrace()
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	start := benchcpu.Now()
	for b.Loop() {
		pos := 0
		for pos < len(buf) {
			pos += int(tmplSize[buf[pos]])
		}
		if pos != len(buf) {
			b.Fatal("lost the packets")
		}
	}
	benchcpu.ReportMB(b, start, len(buf))
	reportPerPacket(b, start, len(buf))
}

// BenchmarkDecoderTNT is BenchmarkDecoder over BenchmarkOffsetChain's
// all-TNT-8 trace: Decoder.Next with no mispredicted branch, next to the
// chain's floor.
func BenchmarkDecoderTNT(b *testing.B) {
	benchDecoder(b, tntTrace())
}

// callFloor is the least a packet-at-a-time iterator can do per call: a
// method, not inlined, that moves an offset kept in its struct.
type callFloor struct {
	buf []byte
	pos int
}

//go:noinline
func (c *callFloor) next() bool {
	if c.pos >= len(c.buf) {
		return false
	}
	c.pos++
	return true
}

// BenchmarkCallFloor measures callFloor.next once per byte: the floor of
// any Decoder.Next that is called once per packet, whatever breaks the
// offset chain (compare its cpu-ns/packet with BenchmarkDecoderTNT's).
func BenchmarkCallFloor(b *testing.B) {
	buf := tntTrace()
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	start := benchcpu.Now()
	for b.Loop() {
		c := callFloor{buf: buf}
		for c.next() {
		}
	}
	benchcpu.ReportMB(b, start, len(buf))
	reportPerPacket(b, start, len(buf))
}

// tntTrace returns 4 MiB of TNT-8 packets.
func tntTrace() []byte {
	buf := make([]byte, 4<<20)
	for i := range buf {
		buf[i] = byte(4 + 2*(i*7919%120))
	}
	return buf
}

// countPackets returns the number of packets Next decodes in buf.
func countPackets(buf []byte) int {
	n := 0
	for d := NewDecoder(buf); d.Next(); {
		n++
	}
	return n
}

// reportPerPacket adds cpu-ns/packet for n packets per op.
func reportPerPacket(b *testing.B, start time.Duration, n int) {
	if d := benchcpu.Now() - start; d > 0 && n > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/packet")
	}
}

// BenchmarkDecode measures the stateless Decode function over the same
// trace.
func BenchmarkDecode(b *testing.B) {
	buf := benchTrace
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	start := benchcpu.Now()
	for b.Loop() {
		for off := 0; off < len(buf); {
			p, err := Decode(buf, off)
			if err != nil {
				b.Fatal(err)
			}
			off += int(p.Size)
		}
	}
	benchcpu.ReportMB(b, start, len(buf))
}

// BenchmarkDecodeInto measures DecodeInto over the same trace, the packet
// kept in one variable as a decoder keeps it in a field.
func BenchmarkDecodeInto(b *testing.B) {
	buf := benchTrace
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	var p Packet
	start := benchcpu.Now()
	for b.Loop() {
		for off := 0; off < len(buf); off += int(p.Size) {
			if err := DecodeInto(&p, buf, off); err != nil {
				b.Fatal(err)
			}
		}
	}
	benchcpu.ReportMB(b, start, len(buf))
}

// BenchmarkPSBIndex measures finding every PSB of the trace.
func BenchmarkPSBIndex(b *testing.B) {
	buf := benchTrace
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	idx := make([]int, 0, 2048)
	start := benchcpu.Now()
	for b.Loop() {
		idx = PSBIndex(idx[:0], buf)
	}
	benchcpu.ReportMB(b, start, len(buf))
}

// BenchmarkAppend measures encoding the trace's packets.
func BenchmarkAppend(b *testing.B) {
	var pkts []Packet
	d := NewDecoder(benchTrace)
	for d.Next() {
		pkts = append(pkts, *d.Packet())
	}
	out := make([]byte, 0, len(benchTrace))
	b.SetBytes(int64(len(benchTrace)))
	b.ReportAllocs()
	start := benchcpu.Now()
	for b.Loop() {
		out = out[:0]
		for _, p := range pkts {
			var err error
			if out, err = Append(out, p); err != nil {
				b.Fatal(err)
			}
		}
	}
	benchcpu.ReportMB(b, start, len(benchTrace))
}

// BenchmarkBatch measures the packet loop with Decoder.Batch over
// BenchmarkDecoder's trace: every packet decoded into an Item, the loop
// reading each one's kind and payload word as a consumer would.
func BenchmarkBatch(b *testing.B) {
	benchBatch(b, benchTrace)
}

func benchBatch(b *testing.B, buf []byte) {
	var d Decoder
	items := make([]Item, BatchSize)
	benchPackets(b, buf, func() int {
		d.Reset(buf)
		var sum uint64
		m := 0
		for n := d.Batch(items); n > 0; n = d.Batch(items) {
			var s uint64 // a register, unlike sum (kept in memory across the calls)
			for _, it := range items[:n] {
				s += uint64(it.Kind()) + it.Raw()
			}
			sum += s
			m += n
		}
		if d.Err() != nil || sum == 0 {
			b.Fatal(d.Err(), m)
		}
		return m
	})
}

// BenchmarkBatchLanes is BenchmarkBatch with the lanes, Batch's path on
// CPUs without the SIMD kernel (the same as BenchmarkBatch there).
func BenchmarkBatchLanes(b *testing.B) {
	defer func() { laneLoop = 0 }()
	laneLoop = 3
	benchBatch(b, benchTrace)
}

// BenchmarkBatchRec is BenchmarkBatch over a trace with a recording's mix
// (genRecTrace: TNT-8 and TIP, no CYC or TNT-64).
func BenchmarkBatchRec(b *testing.B) {
	benchBatch(b, recTrace)
}

// BenchmarkDecoderRec is BenchmarkDecoder over BenchmarkBatchRec's trace.
func BenchmarkDecoderRec(b *testing.B) {
	benchDecoder(b, recTrace)
}

// recTrace is 4 MiB of genRecTrace.
var recTrace = genRecTrace(4<<20, 1)

// BenchmarkBatchOnly is BenchmarkBatch without the consumer's loop: what
// Batch itself costs (the items are written to memory, so it is not dead
// code).
func BenchmarkBatchOnly(b *testing.B) {
	benchBatchOnly(b, benchTrace)
}

// BenchmarkBatchOnlyTNT is BenchmarkBatchOnly over BenchmarkOffsetChain's
// all-TNT-8 trace, next to BenchmarkDecoderTNT (Batch runs lanesBranchy
// there: no long CYC or TNT-64).
func BenchmarkBatchOnlyTNT(b *testing.B) {
	benchBatchOnly(b, tntTrace())
}

func benchBatchOnly(b *testing.B, buf []byte) {
	var d Decoder
	items := make([]Item, BatchSize)
	benchPackets(b, buf, func() int {
		d.Reset(buf)
		m := 0
		for n := d.Batch(items); n > 0; n = d.Batch(items) {
			m += n
		}
		return m
	})
}
