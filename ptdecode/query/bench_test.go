package query

import (
	"math/rand/v2"
	"testing"

	"github.com/perfpt/perfpt/internal/benchcpu"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// benchStream builds a trace like a user-space program's: PSB+ every 4 KiB,
// mostly TNT and TIP packets, some asynchronous branches, MODE.Exec and
// timing packets.
func benchStream(size int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var e packet.Encoder
	add := func(p P) { e.Append(p) }
	lastPSB := -1 << 30
	for len(e.Buf) < size {
		if len(e.Buf)-lastPSB >= 4096 {
			lastPSB = len(e.Buf)
			add(psb())
			add(tsc(uint64(len(e.Buf)) * 100))
			add(cbr(0x20))
			add(mode64())
			e.AppendIP(packet.KindFUP, 0x400000+uint64(rng.IntN(1<<16)))
			add(psbend())
		}
		switch r := rng.IntN(100); {
		case r < 55:
			n := 1 + rng.IntN(6)
			add(P{Kind: packet.KindTNT8, Bits: uint8(n), Payload: rng.Uint64() & (1<<n - 1)})
		case r < 60:
			n := 7 + rng.IntN(40)
			add(P{Kind: packet.KindTNT64, Bits: uint8(n), Payload: rng.Uint64() & (1<<n - 1)})
		case r < 88:
			e.AppendIP(packet.KindTIP, 0x400000+uint64(rng.IntN(1<<20)))
		case r < 91:
			e.AppendIP(packet.KindFUP, 0x400000+uint64(rng.IntN(1<<20)))
			e.AppendIP(packet.KindTIP, 0x7f0000000000+uint64(rng.IntN(1<<20)))
		case r < 93:
			add(P{Kind: packet.KindTIPPGD})
			add(mode64())
			e.AppendIP(packet.KindTIPPGE, 0x400000+uint64(rng.IntN(1<<20)))
		case r < 97:
			add(mtc(uint16(rng.IntN(256))))
		default:
			add(cyc(uint64(1 + rng.IntN(200))))
		}
	}
	return e.Buf
}

func BenchmarkNext(b *testing.B) {
	buf := benchStream(8 << 20)
	cfg := Config{}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	events := 0
	var d Decoder
	var ev Event
	cpu0 := benchcpu.Now()
	for b.Loop() {
		d.Init(buf, &cfg)
		if err := d.SyncForward(); err != nil {
			b.Fatal(err)
		}
		for d.Next(&ev) == nil {
			events++
		}
	}
	cpu := benchcpu.Now() - cpu0
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(events), "cpu-ns/event")
	b.ReportMetric(float64(len(buf))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
}

// BenchmarkNextBranch: the loop of the flow decoders' fast path,
// NextBranch first and Next where it gives nothing.
func BenchmarkNextBranch(b *testing.B) {
	buf := benchStream(8 << 20)
	cfg := Config{}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	events := 0
	var d Decoder
	var ev Event
	cpu0 := benchcpu.Now()
	for b.Loop() {
		d.Init(buf, &cfg)
		if err := d.SyncForward(); err != nil {
			b.Fatal(err)
		}
		for d.NextBranch(&ev) || d.Next(&ev) == nil {
			events++
		}
	}
	cpu := benchcpu.Now() - cpu0
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(events), "cpu-ns/event")
}

func BenchmarkQuery(b *testing.B) {
	buf := benchStream(8 << 20)
	cfg := Config{}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	var q Query
	var ev Event
	cpu0 := benchcpu.Now()
	for b.Loop() {
		q.Init(buf, &cfg)
		if _, _, err := q.SyncForward(); err != nil {
			b.Fatal(err)
		}
		for {
			_, st, err := q.CondBranch()
			if CodeOf(err) == CodeBadQuery {
				_, st, err = q.IndirectBranch()
				if CodeOf(err) == CodeBadQuery {
					st, err = q.Event(&ev)
				}
			}
			if err != nil || st&StatusEOS != 0 {
				break
			}
		}
	}
	cpu := benchcpu.Now() - cpu0
	b.ReportMetric(float64(len(buf))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
}

// BenchmarkPackets is the floor: the packet decoder alone on the same
// stream.
func BenchmarkPackets(b *testing.B) {
	buf := benchStream(8 << 20)
	b.SetBytes(int64(len(buf)))
	n := 0
	cpu0 := benchcpu.Now()
	var pd packet.Decoder
	for b.Loop() {
		pd.Reset(buf)
		for pd.Next() {
			n++
		}
	}
	cpu := benchcpu.Now() - cpu0
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/packet")
	b.ReportMetric(float64(len(buf))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
}

// BenchmarkClocksAt: the timing pre-pass for parallel chunks, every PSB.
func BenchmarkClocksAt(b *testing.B) {
	buf := benchStream(8 << 20)
	psbs := packet.PSBIndex(nil, buf)
	offs := make([]uint64, len(psbs))
	for i, p := range psbs {
		offs[i] = uint64(p)
	}
	cfg := Config{}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	cpu0 := benchcpu.Now()
	for b.Loop() {
		ClocksAt(buf, &cfg, offs)
	}
	cpu := benchcpu.Now() - cpu0
	b.ReportMetric(float64(len(buf))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
}
