package pprof

import (
	"testing"

	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
)

// rawCycles sums the CYC packets of data's trace, straight from the AUX
// buffers.
func rawCycles(t *testing.T, data string) int64 {
	t.Helper()
	f, err := perfdata.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n int64
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		aux, ok := rs.Record.(*perfdata.RecordAuxtrace)
		if !ok {
			continue
		}
		for buf := aux.Data; len(buf) > 0; {
			p, err := packet.Decode(buf, 0)
			if err != nil || p.Size == 0 {
				t.Fatalf("AUX data: %v", err)
			}
			if p.Kind == packet.KindCYC {
				n += int64(p.Payload)
			}
			buf = buf[p.Size:]
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// blockCycles sums Block.Cycles per symbol of the block's last
// instruction, where pprof puts a block's cycles.
func blockCycles(t *testing.T, data string) map[string]int64 {
	t.Helper()
	s, err := session.Open(data, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := map[string]int64{}
	err = s.Run(session.Handler{Block: func(b *session.Block) {
		name := "[unknown]"
		if th := s.Machine().FindThread(b.TID); th != nil {
			if mp := th.Maps.Find(b.End); mp != nil && mp.DSO != nil {
				if sym := mp.DSO.Symbols().Find(mp.MapIP(b.End)); sym != nil {
					name = sym.Name
				}
			}
		}
		m[name] += int64(b.Cycles)
	}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPTCycles checks cycles/count: present only when the trace has CYC
// packets, its per-function sums those of the Blocks' cycles, its total
// the CYC packets' cycles.
func TestPTCycles(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	bin := buildShared(t, "recurse")
	for _, cyc := range []bool{true, false} {
		opt := record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, CYC: cyc}}}
		data, _ := emulatePTWith(t, opt, bin, "8", "2")
		p, err := Convert(data, Options{Granularity: Function, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.CheckValid(); err != nil {
			t.Fatal(err)
		}
		ci := -1
		for i, st := range p.SampleType {
			if st.Type == "cycles" && st.Unit == "count" {
				ci = i
			}
		}
		if !cyc {
			if ci >= 0 {
				t.Errorf("cycles/count without CYC packets")
			}
			continue
		}
		if ci < 0 {
			t.Fatalf("no cycles/count: sample types %v", p.SampleType)
		}
		got := map[string]int64{}
		var total int64
		for _, smp := range p.Sample {
			got[leafName(smp.Location[0])] += smp.Value[ci]
			total += smp.Value[ci]
		}
		if raw := rawCycles(t, data); total != raw || raw == 0 {
			t.Errorf("%d cycles in the profile, %d in the CYC packets", total, raw)
		}
		want := blockCycles(t, data)
		for name, w := range want {
			if got[name] != w {
				t.Errorf("%s: %d cycles, Blocks have %d", name, got[name], w)
			}
		}
		for name, g := range got {
			if _, ok := want[name]; !ok && g != 0 {
				t.Errorf("%s: %d cycles, no Block has any", name, g)
			}
		}
		t.Logf("%d cycles in %d functions; main %d, fib %d", total, len(want), got["main"], got["fib"])
	}
}
