package machine

import (
	"debug/elf"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/perfdata"
)

// BenchmarkAppendFrameSteady resolves every 4th address of a -O2 C
// program's .text (testdata/unwind/cwork-dyn, with inlined helpers) to
// its frames, inlined ones included, as a --call-graph dwarf sample's
// unwound addresses are, after a first pass has asked addr2line about
// each: the steady state of perf script and pprof on a recording. It
// reports allocations per frame, which must be 0.
func BenchmarkAppendFrameSteady(b *testing.B) {
	bin, err := filepath.Abs("../../testdata/unwind/cwork-dyn")
	if err != nil {
		b.Fatal(err)
	}
	ef, err := elf.Open(bin)
	if err != nil {
		b.Fatal(err)
	}
	text := ef.Section(".text")
	ef.Close()
	const base = 0x555555554000
	m := New(nil, "")
	m.ProcessMmap(1, 1, base, 0x10000, 0, bin, nil, perfdata.MiscUser, true)
	t := m.FindNewThread(1, 1)
	var ips []uint64
	for a := text.Addr; a < text.Addr+text.Size; a += 4 {
		ips = append(ips, base+a)
	}
	out := make([]sample.Frame, 0, 64)
	frames, inlined := 0, 0
	for _, ip := range ips { // addr2line answers, cached per address
		out = m.AppendFrame(out[:0], ip, m.ResolveMode(t, false, ip))
		for _, f := range out {
			if f.Inlined {
				inlined++
			}
		}
	}
	if inlined == 0 {
		b.Fatal("no inlined frame in cwork-dyn's .text")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ip := ips[i%len(ips)]
		out = m.AppendFrame(out[:0], ip, m.ResolveMode(t, false, ip))
		frames += len(out)
	}
	b.ReportMetric(float64(frames)/float64(b.N), "frames/op")
}
