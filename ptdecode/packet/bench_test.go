package packet

import (
	"testing"

	"github.com/perfpt/perfpt/internal/benchcpu"
)

// benchTrace is 4 MiB of generated trace (see genTrace).
var benchTrace = genTrace(4<<20, 1)

// BenchmarkDecoder measures the packet loop: every packet of a realistic
// mix decoded with Decoder.Next, as a decoder's hot loop does. It reports
// bytes/s of trace and must not allocate.
func BenchmarkDecoder(b *testing.B) {
	buf := benchTrace
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	var d Decoder
	start := benchcpu.Now()
	for b.Loop() {
		d.Reset(buf)
		n := 0
		for d.Next() {
			n += int(d.Packet().Kind)
		}
		if d.Err() != nil || n == 0 {
			b.Fatal(d.Err())
		}
	}
	benchcpu.ReportMB(b, start, len(buf))
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
