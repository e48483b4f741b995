package machine

import (
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
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
	call := uint32(sample.FlagBranch | sample.FlagCall)
	ret := uint32(sample.FlagBranch | sample.FlagReturn)
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
