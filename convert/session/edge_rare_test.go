package session

import (
	"bytes"
	"debug/elf"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/perfpt/perfpt/convert/ptagg"
	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/flow"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// rareFlow builds the flow of one thread over testdata/programs/walkrare's
// text (bin), in rounds: _start calls rec, which recurses depth times (a
// conditional branch taken and a call each) and returns as deep, then
// calls chain, 1100 calls deep at distinct sites, which returns as deep;
// then the never-ending loop at spin jumps to itself loops times before
// a conditional branch that is not there (a TNT bit the walk from spin
// never reaches, as where the code is not the code traced: perf's
// "Never-ending loop"), and an asynchronous event leaves for _start again
// (the next round) or the thread ends. With odd, an asynchronous event
// leaves the loop for odd before that: its jumps and conditional branch
// to the next instruction (taken), a return with no call before it (a
// TIP) to its syscall, named an indirect jump (a TIP for an instruction
// that takes none in user space), and its return, a TIP back to the loop; and rounds after the first switch CR3 (MovCR3: a PIP
// packet, with PIP on) to another process's before calling rec and back
// after chain returns.
func rareFlow(t *testing.T, bin string, depth, loops, rounds int, odd bool) *flow.Trace {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]uint64{}
	for _, s := range syms {
		at[s.Name] = s.Value
	}
	start, spin, rec, chain, oddAt := at["_start"], at["spin"], at["rec"], at["chain"], at["odd"]
	text := f.Section(".text")
	if text == nil {
		t.Fatalf("%s: no text", bin)
	}
	code, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	// The instructions the flow names (walkrare.S), checked.
	const links = 1100
	want := []byte{0xbf, 3, 0, 0, 0, 0xe8, 7, 0, 0, 0, 0xe8, 0x0f, 0, 0, 0, 0xeb, 0xfe,
		0x85, 0xff, 0x75, 1, 0xc3, 0xff, 0xcf, 0xe8, 0xf4, 0xff, 0xff, 0xff, 0xc3}
	for i := 0; i < links; i++ {
		want = append(want, 0xe8, 1, 0, 0, 0, 0xc3)
	}
	want = append(want, 0xc3, 0xeb, 0, 0x75, 0, 0xeb, 0, 0xc3, 0x0f, 0x05, 0xc3)
	if text.Addr != start || spin != start+15 || rec != start+17 || chain != start+30 || oddAt != chain+6*links+1 ||
		!bytes.Equal(code, want) {
		t.Fatalf("%s: the text is not walkrare.S's: % x", bin, code)
	}
	const pid = 4343
	clock := uint64(record.DefaultClockStart + 1000)
	th := &flow.Thread{Pid: pid, Tid: pid}
	ev := func(e flow.Event) {
		clock += e.Insns
		e.Time = clock
		th.Events = append(th.Events, e)
	}
	for r := 0; r < rounds; r++ {
		if r == 0 {
			ev(flow.Event{Kind: flow.Begin, To: start})
		} else {
			th.Events = append(th.Events, flow.Event{Kind: flow.Async, From: rec + 5, To: start, Time: clock, Back: clock + flow.KernelTicks})
			clock += flow.KernelTicks
			if odd {
				ev(flow.Event{Kind: flow.MovCR3, Back: pid + 1})
			}
		}
		ev(flow.Event{Kind: flow.Call, From: start + 5, To: rec, Insns: 2, Len: 5})
		for i := 0; i < depth; i++ {
			ev(flow.Event{Kind: flow.Cond, From: rec + 2, To: rec + 5, Insns: 2, Len: 2, Taken: true})
			ev(flow.Event{Kind: flow.Call, From: rec + 7, To: rec, Insns: 2, Len: 5})
		}
		ev(flow.Event{Kind: flow.Cond, From: rec + 2, To: rec + 4, Insns: 2, Len: 2})
		ret := rec + 12
		if depth == 0 {
			ret = start + 10
		}
		ev(flow.Event{Kind: flow.Ret, From: rec + 4, To: ret, Insns: 1, Len: 1})
		for i := 0; i < depth; i++ {
			to := rec + 12
			if i == depth-1 {
				to = start + 10
			}
			ev(flow.Event{Kind: flow.Ret, From: rec + 12, To: to, Insns: 1, Len: 1})
		}
		ev(flow.Event{Kind: flow.Call, From: start + 10, To: chain, Insns: 1, Len: 5})
		for i := uint64(0); i < links; i++ {
			ev(flow.Event{Kind: flow.Call, From: chain + 6*i, To: chain + 6*i + 6, Insns: 1, Len: 5})
		}
		ev(flow.Event{Kind: flow.Ret, From: chain + 6*links, To: chain + 6*(links-1) + 5, Insns: 1, Len: 1})
		for i := uint64(links - 1); i > 0; i-- {
			ev(flow.Event{Kind: flow.Ret, From: chain + 6*i + 5, To: chain + 6*(i-1) + 5, Insns: 1, Len: 1})
		}
		ev(flow.Event{Kind: flow.Ret, From: chain + 5, To: spin, Insns: 1, Len: 1})
		if odd && r != 0 {
			ev(flow.Event{Kind: flow.MovCR3, Back: pid})
		}
		for i := 0; i < loops; i++ {
			ev(flow.Event{Kind: flow.Jump, From: spin, To: spin, Insns: 1, Len: 2})
		}
		if odd {
			th.Events = append(th.Events, flow.Event{Kind: flow.Async, From: spin, To: oddAt, Time: clock, Back: clock + flow.KernelTicks})
			clock += flow.KernelTicks
			ev(flow.Event{Kind: flow.Jump, From: oddAt, To: oddAt + 2, Insns: 1, Len: 2})
			ev(flow.Event{Kind: flow.Cond, From: oddAt + 2, To: oddAt + 4, Insns: 1, Len: 2, Taken: true})
			ev(flow.Event{Kind: flow.Jump, From: oddAt + 4, To: oddAt + 6, Insns: 1, Len: 2})
			ev(flow.Event{Kind: flow.Ret, From: oddAt + 6, To: oddAt + 7, Insns: 1, Len: 1})
			ev(flow.Event{Kind: flow.IndJump, From: oddAt + 7, To: oddAt + 9, Insns: 40, Len: 2})
			ev(flow.Event{Kind: flow.Ret, From: oddAt + 9, To: spin, Insns: 1, Len: 1})
		}
		ev(flow.Event{Kind: flow.Cond, From: rec + 2, To: rec + 5, Insns: 1, Len: 2, Taken: true})
	}
	ev(flow.Event{Kind: flow.End, From: rec + 5})
	clock += 10
	tr := &flow.Trace{Threads: []*flow.Thread{th}, ClockStart: uint64(record.DefaultClockStart), Clock: clock}
	tr.Side = append(tr.Side, flow.Side{Kind: flow.Comm, Time: record.DefaultClockStart + 10, Pid: pid, Tid: pid, Name: "walkrare", Exec: true},
		flow.Side{Kind: flow.Mmap, Time: record.DefaultClockStart + 20, Pid: pid, Tid: pid,
			Addr: start &^ 0xfff, Len: (start + uint64(len(code)) - start&^0xfff + 0xfff) &^ 0xfff, Pgoff: text.Offset &^ 0xfff,
			Prot: 5, Flags: 2, Name: bin})
	return tr
}

// TestAggWalkRare checks the decoder's own counting against Agg.Runs on
// hand-built flows that reach what no recorded program does: a recursion
// deeper than ptagg's stack (1024 frames: calls beyond it push nothing,
// and a record's callNC is 0 after one, callNC), and walkInsn's loop
// check failing ("Never-ending loop") in the inner loop, in mid (an inner
// loop that walks nothing every other time, as in TestAggMidRare) and in
// walkAgg's general loop, on records linked by earlier rounds; with and
// without return compression and timing packets, in sequence and in
// chunks, and damaged.
func TestAggWalkRare(t *testing.T) {
	if testing.Short() {
		t.Skip("builds walkrare")
	}
	bin := testprog.Path(t, "walkrare")
	defer func(n, m int) { chunkBytes, aggChunkBytes = n, m }(chunkBytes, aggChunkBytes)
	chunkBytes, aggChunkBytes = 300, 300
	dir := t.TempDir()
	tr := rareFlow(t, bin, 40, 5, 3, false)
	var walked uint64
	for i, cfg := range []synth.Config{
		{PSBPeriod: 512},
		{NoRetComp: true},
		{TSC: true, MTC: true, MTCPeriod: 0},
	} {
		data := filepath.Join(dir, "rare"+string(rune('a'+i))+".data")
		if _, err := record.WriteTrace(data, tr, record.WriteOptions{PT: cfg, BuildIDDir: "-"}); err != nil {
			t.Fatal(err)
		}
		for _, skip := range []bool{false, true} {
			if skip {
				// (-j 2's workers call it at once.)
				var calls atomic.Int64
				innerSkip = func() bool { return calls.Add(1)%2 == 0 }
			}
			walked += sameWithAgg(t, data, ptagg.Options{}, 1, 2)
			walked += sameWithAgg(t, data, ptagg.Options{Edges: true}, 1)
			walked += sameWithAgg(t, corruptAux(t, data, 0x55, 8, 0.5), ptagg.Options{}, 1)
			innerSkip = nil
		}
		var out []byte
		withAgg(true, func() { out, _ = aggText(t, openItrace(t, data, "e", Options{Workers: 1}), ptagg.Options{}) })
		if !bytes.Contains(out, []byte("Never-ending loop")) {
			t.Errorf("%+v: no loop check failed:\n%.2000s", cfg, out)
		}
	}
	if walked == 0 {
		t.Error("the decoder counted nothing itself")
	}
}

// TestAggWalkOdd checks the decoder's own counting against Agg.Runs, as
// TestAggWalkRare does, on rareFlow's rounds with odd's code shapes, which
// reach what the other flows do not: in walkAgg's general loop, a
// conditional branch taken to the next instruction and a TIP for a
// syscall; in mid, TIPs after PADs (the MTCs of a timed trace made PADs),
// TIPs whose targets take no state skipped (the PIP of a MOV CR3 made to
// say VMX non-root: the next target is a guest's) and MTCs that move the
// time after a TIP it takes in TIP mode (a return with no frame to pop).
// Each case with and without mid's inner loop skipped every other time.
func TestAggWalkOdd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds walkrare")
	}
	bin := testprog.Path(t, "walkrare")
	defer func(n, m int) { chunkBytes, aggChunkBytes = n, m }(chunkBytes, aggChunkBytes)
	chunkBytes, aggChunkBytes = 300, 300
	defer func(f func() bool) { innerSkip = f }(innerSkip)
	dir := t.TempDir()
	tr := rareFlow(t, bin, 40, 5, 3, true)
	mtcPad := func(p *packet.Packet, inPSB bool) bool { return p.Kind == packet.KindMTC }
	pad := func(pkt []byte) { clear(pkt) }
	// mtcNotAfterTIP pads the MTCs but those right after a TIP: the TIPs
	// that mid reads itself, after PADs, are followed by MTCs that move
	// the time, which its decoder's Next reads with the TIP's target.
	var prev packet.Kind
	mtcNotAfterTIP := func(p *packet.Packet, inPSB bool) bool {
		pad := p.Kind == packet.KindMTC && prev != packet.KindTIP
		prev = p.Kind
		return pad
	}
	// pipNR: the PIPs of rareFlow's switches to another CR3 (its pid 4343).
	pipNR := func(p *packet.Packet, inPSB bool) bool {
		return p.Kind == packet.KindPIP && !inPSB && p.Payload == synth.CR3Of(4343+1)
	}
	setNR := func(pkt []byte) { pkt[2] |= 1 }
	var walked uint64
	for i, c := range []struct {
		cfg   synth.Config
		edit  func(p *packet.Packet, inPSB bool) bool
		apply func(pkt []byte)
	}{
		{cfg: synth.Config{PSBPeriod: 512}},
		{cfg: synth.Config{TSC: true, MTC: true}, edit: mtcPad, apply: pad},
		{cfg: synth.Config{NoRetComp: true, TSC: true, MTC: true}, edit: mtcPad, apply: pad},
		{cfg: synth.Config{NoRetComp: true, TSC: true, MTC: true}, edit: mtcNotAfterTIP, apply: pad},
		{cfg: synth.Config{PIP: true}, edit: pipNR, apply: setNR},
	} {
		data := filepath.Join(dir, "odd"+string(rune('a'+i))+".data")
		if _, err := record.WriteTrace(data, tr, record.WriteOptions{PT: c.cfg, BuildIDDir: "-"}); err != nil {
			t.Fatal(err)
		}
		if c.edit != nil {
			data = testprog.EditPackets(t, data, c.edit, c.apply)
		}
		for _, skip := range []bool{false, true} {
			innerSkip = nil
			if skip {
				// (-j 2's workers call it at once.)
				var calls atomic.Int64
				innerSkip = func() bool { return calls.Add(1)%2 == 0 }
			}
			walked += sameWithAgg(t, data, ptagg.Options{}, 1, 2)
			walked += sameWithAgg(t, data, ptagg.Options{Edges: true}, 1)
		}
		innerSkip = nil
	}
	if walked == 0 {
		t.Error("the decoder counted nothing itself")
	}
}
