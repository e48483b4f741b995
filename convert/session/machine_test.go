package session

import (
	"testing"

	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/perfdata"
)

func TestMapsInsertCutsOverlaps(t *testing.T) {
	var ms Maps
	a, b := &DSO{Name: "a"}, &DSO{Name: "b"}
	ms.Insert(&Map{Start: 0x1000, End: 0x5000, PgOff: 0, DSO: a})
	ms.Insert(&Map{Start: 0x2000, End: 0x3000, PgOff: 0x100, DSO: b})
	cases := []struct {
		addr uint64
		dso  string
		ip   uint64
	}{
		{0x1800, "a", 0x800}, {0x2800, "b", 0x900}, {0x3800, "a", 0x2800}, {0x5000, "", 0},
	}
	for _, c := range cases {
		m := ms.find(c.addr)
		if c.dso == "" {
			if m != nil {
				t.Errorf("%#x: found %s", c.addr, m.DSO.Name)
			}
			continue
		}
		if m == nil || m.DSO.Name != c.dso || m.MapIP(c.addr) != c.ip {
			t.Errorf("%#x: got %+v", c.addr, m)
		}
	}
}

func TestThreadStack(t *testing.T) {
	th := &Thread{}
	call := uint32(script.FlagBranch | script.FlagCall)
	ret := uint32(script.FlagBranch | script.FlagReturn)
	th.stackEvent(call, 0x100, 0x200, 5, 1, true)
	th.stackEvent(call, 0x210, 0x300, 5, 1, true)
	if n := len(th.ts.stack); n != 2 {
		t.Fatalf("depth %d", n)
	}
	th.stackEvent(ret, 0x310, 0x215, 1, 1, true) // returns to the second call site
	if n := len(th.ts.stack); n != 1 {
		t.Fatalf("after return: depth %d", n)
	}
	th.stackEvent(ret, 0x250, 0x999, 1, 1, true) // unknown return address: stack kept
	if n := len(th.ts.stack); n != 1 {
		t.Fatalf("after unmatched return: depth %d", n)
	}
	th.stackEvent(call, 0x100, 0x200, 5, 2, true) // new trace number flushes
	if n := len(th.ts.stack); n != 1 {
		t.Fatalf("after flush and call: depth %d", n)
	}
}

func TestTimeConv(t *testing.T) {
	tc := timeConv{shift: 31, mult: 1 << 30, zero: 1000}
	for _, tsc := range []uint64{0, 1, 12345678, 1 << 40} {
		ns := tc.toPerf(tsc)
		if back := tc.toTSC(ns); back != tsc && back+1 != tsc {
			t.Errorf("tsc %d -> %d ns -> %d", tsc, ns, back)
		}
	}
}

func TestBranchStackFlags(t *testing.T) {
	// mispred, cycles 0x123, type 5, new_type 3, in_tx
	f := uint64(1) | 1<<2 | 0x123<<4 | 5<<20 | 3<<26
	got := branchStack([]perfdata.BranchEntry{{From: 1, To: 2, Flags: f}, {From: 3, To: 4, Flags: 2 | 8}}, nil)
	want := []script.BranchEntry{
		{From: 1, To: 2, Mispred: true, InTx: true, Cycles: 0x123, Type: 5, NewType: 3},
		{From: 3, To: 4, Predicted: true, Abort: true},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
