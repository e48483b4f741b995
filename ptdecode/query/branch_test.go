package query

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// branchTrace decodes buf with Next alone, or (branch) with NextBranch
// first at every step as the flow decoders' fast loop does, resynchronising
// after errors, and lists each event or error with the offsets the
// decoder reports after it.
func branchTrace(buf []byte, cfg *Config, end uint64, branch bool) []string {
	var out []string
	d := NewDecoder(buf, cfg)
	d.SetEnd(end)
	err := d.SyncForward()
	var ev Event
	for steps := 0; steps < 64+40*len(buf); steps++ {
		if err != nil {
			out = append(out, fmt.Sprintf("err %v", err))
			if CodeOf(err) == CodeEOS {
				break
			}
			err = d.SyncForward()
			continue
		}
		if branch && d.NextBranch(&ev) {
			out = append(out, fmt.Sprintf("%+v off %d pos %d", ev, d.Offset(), d.Pos()))
			continue
		}
		if err = d.Next(&ev); err == nil {
			out = append(out, fmt.Sprintf("%+v off %d pos %d", ev, d.Offset(), d.Pos()))
		}
	}
	return out
}

// checkNextBranch fails when NextBranch gives anything Next alone does
// not, on buf decoded up to end (see SetEnd).
func checkNextBranch(t *testing.T, buf []byte, cfg *Config, end uint64) {
	t.Helper()
	want, got := branchTrace(buf, cfg, end, false), branchTrace(buf, cfg, end, true)
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			t.Fatalf("event %d: NextBranch gives\n\t%s\nNext\n\t%s", i, got[i], want[i])
		}
	}
	if len(want) != len(got) {
		t.Fatalf("NextBranch gives %d events, Next %d", len(got), len(want))
	}
}

// TestNextBranchSameEvents: NextBranch (whose packets are stepped over
// without decoding them) gives the events, offsets and errors of Next on
// the decoder tests' traces, the corpus streams when present, and random
// streams, whole, cut short and with bytes changed.
func TestNextBranchSameEvents(t *testing.T) {
	var bufs [][]byte
	for _, tt := range decoderTests {
		bufs = append(bufs, encode(t, tt.pkts...))
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "conformance", "libipt", "cases", "*", "*.pt"))
	for _, file := range files[:min(len(files), 100)] {
		if b, err := os.ReadFile(file); err == nil {
			bufs = append(bufs, b)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 8 {
		bufs = append(bufs, benchStream(16<<10+rng.IntN(4096)))
	}
	for _, buf := range bufs {
		for _, cfg := range []Config{{}, {IFlagsEvents: true}} {
			all := uint64(len(buf))
			checkNextBranch(t, buf, &cfg, all)
			if len(buf) > 16 {
				cut := buf[:len(buf)-1-rng.IntN(16)]
				checkNextBranch(t, cut, &cfg, all)
				m := append([]byte(nil), buf...)
				for range 1 + len(m)/512 {
					m[rng.IntN(len(m))] = byte(rng.Uint32())
				}
				checkNextBranch(t, m, &cfg, all)
				// A sub-range ends at its end on both paths.
				checkNextBranch(t, buf, &cfg, uint64(rng.IntN(len(buf))))
			}
		}
	}
}

// FuzzNextBranch: the same on any bytes.
func FuzzNextBranch(f *testing.F) {
	for _, tt := range decoderTests {
		b := encode(f, tt.pkts...)
		f.Add(b, uint16(len(b)))
	}
	f.Add(benchStream(4096), uint16(4096))
	f.Fuzz(func(t *testing.T, buf []byte, end uint16) {
		checkNextBranch(t, buf, &Config{}, uint64(end))
	})
}
