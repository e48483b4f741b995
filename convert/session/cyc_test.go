package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/record/synth"
)

// cycPayloads sums the payloads of the CYC packets in data's AUX buffers.
func cycPayloads(t *testing.T, data string) uint64 {
	t.Helper()
	f, err := perfdata.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sum uint64
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		r, ok := rs.Record.(*perfdata.RecordAuxtrace)
		if !ok {
			continue
		}
		for buf := r.Data; len(buf) > 0; {
			p, err := packet.Decode(buf, 0)
			if err != nil || p.Size == 0 {
				t.Fatalf("bad packet in AUX data: %v", err)
			}
			if p.Kind == packet.KindCYC {
				sum += p.Payload
			}
			buf = buf[p.Size:]
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestBlockCycles checks Block.Cycles and HasCycles: with CYC packets the
// Blocks' cycles add up to the CYC payloads of the trace (the recorder
// emits CYC only while tracing is enabled); without CYC (MTC timing only)
// every Block has 0 cycles.
func TestBlockCycles(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  synth.Config
	}{
		{"cyc", synth.Config{TSC: true, MTC: true, CYC: true}},
		{"mtc", synth.Config{TSC: true, MTC: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := recordPT(t, "mix-dyn-O2", c.cfg)
			s, err := Open(data, Options{BuildIDDir: "-"})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.HasCycles(); got != c.cfg.CYC {
				t.Errorf("HasCycles before Run = %v, want %v", got, c.cfg.CYC)
			}
			var sum, blocks, with uint64
			err = s.Run(Handler{Blocks: func(bs []Block) {
				for i := range bs {
					sum += bs[i].Cycles
					blocks++
					if bs[i].Cycles != 0 {
						with++
					}
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.HasCycles(); got != c.cfg.CYC {
				t.Errorf("HasCycles after Run = %v, want %v", got, c.cfg.CYC)
			}
			want := cycPayloads(t, data)
			if sum != want {
				t.Errorf("Blocks' cycles %d, CYC payloads %d", sum, want)
			}
			if c.cfg.CYC && (want == 0 || with == 0) {
				t.Errorf("no cycles: %d CYC cycles, %d blocks with cycles", want, with)
			}
			t.Logf("%d blocks, %d with cycles, %d cycles", blocks, with, sum)
		})
	}
}

// TestIPCParallel checks that with Options.IPC the IPC counts of
// instruction samples are the same with 2 workers as with 1 (the session
// then decodes a recording with cycles sequentially), chunks cut small.
func TestIPCParallel(t *testing.T) {
	// CYC with TSC but no MTC (whose timing makes chunks be decoded again).
	data := recordPT(t, "mix-static-O2", synth.Config{TSC: true, CYC: true})
	defer func(n int) { chunkBytes = n }(chunkBytes)
	chunkBytes = 300
	run := func(workers int, ipc bool) (string, int) {
		s := openItrace(t, data, "i0ns", Options{Workers: workers, IPC: ipc})
		var b strings.Builder
		n := 0
		err := s.Run(Handler{Sample: func(smp *sample.Sample) {
			if smp.CycCnt != 0 {
				n++
			}
			fmt.Fprintf(&b, "%x %d %d\n", smp.IP, smp.InsnCnt, smp.CycCnt)
		}})
		if err != nil {
			t.Fatal(err)
		}
		return b.String(), n
	}
	want, n := run(1, true)
	if n == 0 {
		t.Fatal("no sample with IPC")
	}
	if got, _ := run(2, true); got != want {
		t.Error("IPC counts with 2 workers differ from 1 worker's")
	}
	if got, _ := run(2, false); got == want {
		t.Log("without Options.IPC the counts happen to be equal too")
	} else {
		t.Log("without Options.IPC the counts differ (parallel chunks), as expected")
	}
}
