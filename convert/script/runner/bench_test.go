package runner

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/internal/benchcpu"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/testprog"
)

// BenchmarkScriptPT decodes and prints an emulated recording of
// mix-dyn-O2 (about 120k instructions) with the given options.
func BenchmarkScriptPT(b *testing.B) {
	prog := testprog.Path(b, "mix-dyn-O2")
	data := filepath.Join(b.TempDir(), "mix.data")
	opt := record.Options{Output: data}
	opt.BuildIDDir = filepath.Join(b.TempDir(), "debug")
	if _, err := record.Emulate(context.Background(), []string{prog}, opt); err != nil {
		testprog.EmulateFailed(b, prog, err)
	}
	for _, c := range []struct {
		name   string
		itrace string
		fields string
		j      int
	}{
		{"branches", "b", "ip,addr", 1},
		{"branches-j2", "b", "ip,addr", 2},
		{"insns", "i0ns", "ip,sym", 1},
		{"insns-j2", "i0ns", "ip,sym", 2},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cfg := Config{Input: data, ItraceSet: true, Itrace: c.itrace, Fields: []string{c.fields}, Workers: c.j}
			for i := 0; i < b.N; i++ {
				if err := Run(cfg, io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScriptLarge runs --itrace=i0ns -F ip,sym (and branches) on the
// recording named by $PERFPT_BENCH_DATA (e.g. one written by
// `go run ./scripts/ptgen -data`), at -j 1 and 2. It skips without it.
func BenchmarkScriptLarge(b *testing.B) {
	data := os.Getenv("PERFPT_BENCH_DATA")
	if data == "" {
		b.Skip("PERFPT_BENCH_DATA not set")
	}
	for _, c := range []struct {
		name   string
		itrace string
		fields string
		j      int
	}{
		{"insns", "i0ns", "ip,sym", 1},
		{"insns-j2", "i0ns", "ip,sym", 2},
		{"branches", "b", "ip,addr", 1},
		{"branches-j2", "b", "ip,addr", 2},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cfg := Config{Input: data, ItraceSet: true, Itrace: c.itrace, Fields: []string{c.fields}, Workers: c.j}
			start := benchcpu.Now()
			for i := 0; i < b.N; i++ {
				if err := Run(cfg, io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			benchcpu.Report(b, start)
		})
	}
}
