package flow

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/perfpt/perfpt/internal/benchcpu"

	"github.com/perfpt/perfpt/ptdecode/flow/flowtest"
	"github.com/perfpt/perfpt/ptdecode/image"
)

var (
	benchOnce  sync.Once
	benchTrace []byte
	benchInsns uint64
)

// benchStream returns the benchmark trace: PERFPT_BENCH_MB megabytes
// (default 4) of generated trace over this test binary's code.
func benchStream(b *testing.B) (*flowtest.Program, []byte) {
	p := flowtest.LoadProgram(b)
	benchOnce.Do(func() {
		mb := 4
		if v, err := strconv.Atoi(os.Getenv("PERFPT_BENCH_MB")); err == nil && v > 0 {
			mb = v
		}
		benchTrace, benchInsns = flowtest.Generate(p, mb<<20, 4096, 7)
		if dir := os.Getenv("PERFPT_BENCH_DUMP"); dir != "" {
			// For comparisons with libipt's ptxed on the same input.
			// The trace and the code segments (file:vaddr in segs.txt).
			_ = os.WriteFile(dir+"/bench.pt", benchTrace, 0o644)
			var segs []byte
			for i, m := range p.Img.Mappings() {
				name := dir + "/seg" + strconv.Itoa(i) + ".bin"
				_ = os.WriteFile(name, m.Bytes(m.Start), 0o644)
				segs = append(segs, name+":0x"+strconv.FormatUint(m.Start, 16)+"\n"...)
			}
			_ = os.WriteFile(dir+"/segs.txt", segs, 0o644)
		}
	})
	return p, benchTrace
}

func benchWalk(b *testing.B, jobs int) {
	p, trace := benchStream(b)
	cfg := &Config{}
	b.SetBytes(int64(len(trace)))
	b.ReportAllocs()
	b.ResetTimer()
	var c counter
	cpu0 := benchcpu.Now()
	for range b.N {
		c = counter{}
		if jobs == 0 {
			WalkBlocks(NewBlockDecoder(trace, p.Img, cfg), WalkOptions{}, &c)
		} else if jobs < 0 {
			walkChunksCount(trace, p.Img, cfg, -jobs, &c)
		} else {
			WalkParallel(trace, p.Img, cfg, WalkOptions{}, jobs, &c)
		}
	}
	b.StopTimer()
	benchcpu.Report(b, cpu0)
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(c.insns)/sec/1e6, "Minsn/s")
	b.ReportMetric(float64(c.blocks), "blocks/op")
	b.ReportMetric(float64(c.insns), "insns/op")
}

// BenchmarkBlockDecoderC decodes 4 MB of trace over a small C program
// (testdata/programs/mix.c at -O2, built with gcc): hot code, warm caches.
func BenchmarkBlockDecoderC(b *testing.B) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		b.Skip("no gcc")
	}
	exe := filepath.Join(b.TempDir(), "mix")
	src := filepath.Join("..", "..", "testdata", "programs", "mix.c")
	if out, err := exec.Command(gcc, "-O2", "-o", exe, src).CombinedOutput(); err != nil {
		b.Fatalf("gcc cannot build testdata/programs/mix.c: %v: %s", err, out)
	}
	p, err := flowtest.LoadELF(exe)
	if err != nil {
		b.Fatal(err)
	}
	trace, _ := flowtest.Generate(p, 4<<20, 4096, 9)
	if dir := os.Getenv("PERFPT_BENCH_DUMP"); dir != "" {
		_ = os.WriteFile(dir+"/benchc.pt", trace, 0o644)
		var segs []byte
		for i, m := range p.Img.Mappings() {
			name := dir + "/benchc-seg" + strconv.Itoa(i) + ".bin"
			_ = os.WriteFile(name, m.Bytes(m.Start), 0o644)
			segs = append(segs, name+":0x"+strconv.FormatUint(m.Start, 16)+"\n"...)
		}
		_ = os.WriteFile(dir+"/benchc-segs.txt", segs, 0o644)
	}
	b.SetBytes(int64(len(trace)))
	b.ReportAllocs()
	b.ResetTimer()
	var c counter
	cpu0 := benchcpu.Now()
	for range b.N {
		c = counter{}
		WalkBlocks(NewBlockDecoder(trace, p.Img, &Config{}), WalkOptions{}, &c)
	}
	benchcpu.Report(b, cpu0)
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(c.insns)/sec/1e6, "Minsn/s")
}

// BenchmarkBlockDecoder decodes the generated trace on one goroutine.
func BenchmarkBlockDecoder(b *testing.B) { benchWalk(b, 0) }

// BenchmarkParallel2 decodes it with two workers (WalkParallel: the
// blocks are recorded and replayed on the caller's goroutine).
func BenchmarkParallel2(b *testing.B) { benchWalk(b, 2) }

// BenchmarkChunks1 and BenchmarkChunks2 decode it with WalkChunks (one
// handler per chunk, as ptxed -j does) on one and two workers.
func BenchmarkChunks1(b *testing.B) { benchWalk(b, -1) }
func BenchmarkChunks2(b *testing.B) { benchWalk(b, -2) }

// walkChunksCount counts the blocks of a WalkChunks walk into c.
func walkChunksCount(trace []byte, img *image.Image, cfg *Config, jobs int, c *counter) {
	var pool sync.Pool
	WalkChunks(trace, img, cfg, WalkOptions{}, jobs, func(int) Handler {
		if h, ok := pool.Get().(*counter); ok {
			*h = counter{}
			return h
		}
		return new(counter)
	}, func(_ int, h Handler) {
		hc := h.(*counter)
		c.blocks += hc.blocks
		c.insns += hc.insns
		pool.Put(hc)
	}, nil)
}

// BenchmarkInsnDecoder decodes it instruction by instruction.
func BenchmarkInsnDecoder(b *testing.B) {
	p, trace := benchStream(b)
	cfg := &Config{}
	b.SetBytes(int64(len(trace)))
	b.ReportAllocs()
	var c counter
	for range b.N {
		c = counter{}
		WalkInsns(NewInsnDecoder(trace, p.Img, cfg), WalkOptions{}, &c)
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(c.insns)/sec/1e6, "Minsn/s")
}
