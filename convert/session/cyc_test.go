package session

import (
	"testing"

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
