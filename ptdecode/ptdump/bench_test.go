package ptdump

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/internal/benchcpu"

	"github.com/perfpt/perfpt/ptdecode/timing"
)

// benchTrace is testdata/pt/mix.pt repeated to 4 MiB.
func benchTrace(b *testing.B) []byte {
	mix, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pt", "mix.pt"))
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Repeat(mix, (4<<20)/len(mix))
}

func benchDump(b *testing.B, opt Options) {
	buf := benchTrace(b)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	start := benchcpu.Now()
	for b.Loop() {
		if err := Dump(io.Discard, buf, &opt); err != nil {
			b.Fatal(err)
		}
	}
	if d := benchcpu.Now() - start; d > 0 {
		b.ReportMetric(float64(len(buf))*float64(b.N)/d.Seconds()/1e6, "cpu-MB/s")
	}
}

// BenchmarkDumpQuiet is ptdump --quiet: decode and track, print nothing.
func BenchmarkDumpQuiet(b *testing.B) { benchDump(b, Options{ShowOffset: true, Quiet: true}) }

// BenchmarkDump is ptdump's default text output.
func BenchmarkDump(b *testing.B) { benchDump(b, Options{ShowOffset: true}) }

// BenchmarkDumpTime is ptdump --time --lastip --raw.
func BenchmarkDumpTime(b *testing.B) {
	benchDump(b, Options{ShowOffset: true, Time: true, LastIP: true, Raw: true,
		Timing: timingConfig()})
}

func timingConfig() timing.Config {
	return timing.Config{MTCFreq: 3, NomFreq: 8, CPUID15EAX: 2, CPUID15EBX: 11}
}
