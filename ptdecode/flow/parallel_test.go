package flow

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/flow/flowtest"
	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/ptdecode/query"
)

func record(trace []byte, p *flowtest.Program, cfg *Config, opt WalkOptions, jobs int) *recording {
	r := new(recording)
	if jobs == 0 {
		WalkBlocks(NewBlockDecoder(trace, p.Img, cfg), opt, r)
	} else {
		WalkParallel(trace, p.Img, cfg, opt, jobs, r)
	}
	return r
}

func diffRecordings(a, b *recording) string { return diffRecordingsTime(a, b, true) }

// diffRecordingsTime compares recordings; without withTime it ignores event
// times: after corrupted timing packets they depend on state from before
// the chunk (see the package documentation).
func diffRecordingsTime(a, b *recording, withTime bool) string {
	if !withTime {
		a, b = dropTime(a), dropTime(b)
	}
	if len(a.ops) != len(b.ops) {
		return fmt.Sprintf("%d records, want %d", len(b.ops), len(a.ops))
	}
	for _, f := range []struct {
		name string
		x, y any
	}{{"ops", a.ops, b.ops}, {"blocks", a.blocks, b.blocks}, {"events", a.events, b.events}, {"errors", a.errs, b.errs}} {
		if !reflect.DeepEqual(f.x, f.y) {
			return f.name + " differ"
		}
	}
	return ""
}

// TestParallelEqualsSequential decodes generated traces (clean, and with
// corrupted bytes so that errors and resynchronisation happen) with 1, 2,
// 4 and 8 workers and compares everything the handler gets with a
// sequential decode.
func TestParallelEqualsSequential(t *testing.T) {
	p := flowtest.LoadProgram(t)
	defer func(n int) { ChunkBytes = n }(ChunkBytes)
	ChunkBytes = 8 << 10
	size := 160 << 10
	if testing.Short() || raceEnabled {
		size = 40 << 10
	}
	clean, _ := flowtest.Generate(p, size, 4096, 3)
	bad := append([]byte(nil), clean...)
	rng := rand.New(rand.NewPCG(5, 5))
	for range 40 {
		bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
	}
	for _, tc := range []struct {
		name  string
		trace []byte
		opt   WalkOptions
	}{
		{"clean", clean, WalkOptions{}},
		{"corrupt", bad, WalkOptions{}},
		{"corrupt-resync", bad, WalkOptions{ResyncOnError: true}},
	} {
		cfg := &Config{}
		want := record(tc.trace, p, cfg, tc.opt, 0)
		for _, jobs := range []int{1, 2, 4, 8} {
			got := record(tc.trace, p, cfg, tc.opt, jobs)
			if d := diffRecordingsTime(want, got, tc.name == "clean"); d != "" {
				t.Errorf("%s, %d workers: %s", tc.name, jobs, d)
				dumpFailure(t, tc.trace)
			}
		}
		t.Logf("%s: %d blocks, %d events, %d errors", tc.name, len(want.blocks), len(want.events), len(want.errs))
	}
}

func dropTime(r *recording) *recording {
	c := *r
	c.events = append([]query.Event(nil), r.events...)
	for i := range c.events {
		c.events[i].TSC, c.events[i].LostMTC, c.events[i].LostCYC, c.events[i].HasTSC = 0, 0, 0, false
	}
	return &c
}

// dumpFailure saves a failing trace and this test binary (whose code it
// runs over) in $PERFPT_FLOW_DUMP, for debugging.
func dumpFailure(t *testing.T, trace []byte) {
	dir := os.Getenv("PERFPT_FLOW_DUMP")
	if dir == "" {
		return
	}
	exe, _ := os.Executable()
	data, _ := os.ReadFile(exe)
	_ = os.WriteFile(dir+"/fail.pt", trace, 0o644)
	_ = os.WriteFile(dir+"/fail.exe", data, 0o755)
	t.Logf("trace and binary saved in %s", dir)
}

// TestParallelTSXAcrossPSB: a transaction begun after the first PSB+ goes on
// across every later PSB, whose headers have no MODE.TSX (libipt's block
// decoder keeps the state there). The chunks after the first start inside
// it as the sequential walk is: every block is speculative from there on,
// at every number of workers.
func TestParallelTSXAcrossPSB(t *testing.T) {
	p := flowtest.LoadProgram(t)
	defer func(n int) { ChunkBytes = n }(ChunkBytes)
	ChunkBytes = 8 << 10
	clean, _ := flowtest.Generate(p, 40<<10, 4096, 3)
	// After the first header: MODE.TSX (in a transaction) and its FUP at
	// the header's IP.
	pd := packet.NewDecoder(clean)
	if err := pd.SyncSet(0); err != nil {
		t.Fatal(err)
	}
	var ip uint64
	var lip packet.LastIP
	for pd.Next() {
		pk := pd.Packet()
		if pk.Kind == packet.KindFUP {
			if err := lip.Update(pk.IPC, pk.Payload); err != nil {
				t.Fatal(err)
			}
			ip = lip.IP
		}
		if pk.Kind == packet.KindPSBEnd {
			break
		}
	}
	at := pd.Offset()
	enc := packet.Encoder{}
	if err := enc.Append(packet.Packet{Kind: packet.KindModeTSX, Flags: packet.FlagInTX}); err != nil {
		t.Fatal(err)
	}
	if err := enc.AppendIP(packet.KindFUP, ip); err != nil {
		t.Fatal(err)
	}
	trace := append(append(append([]byte(nil), clean[:at]...), enc.Buf...), clean[at:]...)
	cfg := &Config{}
	want := record(trace, p, cfg, WalkOptions{}, 0)
	spec := 0
	for _, b := range want.blocks {
		if b.Speculative {
			spec++
		}
	}
	if len(want.blocks) < 1000 || spec != len(want.blocks) {
		t.Fatalf("sequential: %d of %d blocks speculative, want all", spec, len(want.blocks))
	}
	for _, jobs := range []int{2, 4, 8} {
		got := record(trace, p, cfg, WalkOptions{}, jobs)
		if d := diffRecordingsTime(want, got, true); d != "" {
			t.Errorf("%d workers: %s", jobs, d)
		}
	}
}
