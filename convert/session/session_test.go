package session

import (
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/perfdata"
)

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
	want := []sample.BranchEntry{
		{From: 1, To: 2, Mispred: true, InTx: true, Cycles: 0x123, Type: 5, NewType: 3},
		{From: 3, To: 4, Predicted: true, Abort: true},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
