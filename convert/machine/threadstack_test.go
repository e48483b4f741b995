package machine

import (
	"slices"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/perfdata"
)

const (
	ctxUser   = perfdata.CallchainUser
	ctxKernel = perfdata.CallchainKernel
	kstart    = uint64(1) << 63
)

// TestStackIPs checks thread_stack__sample's layout: the sample's context
// and IP, then return addresses innermost first, a marker at each change
// of address space, and sz counting the markers (a marker needs room for
// an address after it).
func TestStackIPs(t *testing.T) {
	k := func(a uint64) uint64 { return kstart | a }
	ts := &ThreadStack{stack: []tsEntry{{ret: 0x10}, {ret: 0x20}, {ret: k(0x30)}, {ret: k(0x40)}}}
	for _, c := range []struct {
		name string
		ts   *ThreadStack
		sz   int
		ip   uint64
		want []uint64
	}{
		{"no stack", nil, 17, 0x99, []uint64{ctxUser, 0x99}},
		{"too small", ts, 1, 0x99, []uint64{}},
		{"ip only", ts, 2, k(0x99), []uint64{ctxKernel, k(0x99)}},
		{"kernel", ts, 17, k(0x99), []uint64{ctxKernel, k(0x99), k(0x40), k(0x30), ctxUser, 0x20, 0x10}},
		{"user", ts, 17, 0x99, []uint64{ctxUser, 0x99, ctxKernel, k(0x40), k(0x30), ctxUser, 0x20, 0x10}},
		{"cut", ts, 5, k(0x99), []uint64{ctxKernel, k(0x99), k(0x40), k(0x30)}},
		{"marker counted", ts, 5, 0x99, []uint64{ctxUser, 0x99, ctxKernel, k(0x40), k(0x30)}},
		{"marker and one address", ts, 6, k(0x99), []uint64{ctxKernel, k(0x99), k(0x40), k(0x30), ctxUser, 0x20}},
		{"room for the marker only", ts, 3, 0x98, []uint64{ctxUser, 0x98}},
		{"empty stack", &ThreadStack{}, 17, 0x99, []uint64{ctxUser, 0x99}},
	} {
		got := c.ts.stackIPs(nil, c.sz, c.ip, kstart)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %#x, want %#x", c.name, got, c.want)
		}
	}
}

// TestBranchRing checks the last-branch ring of thread_stack__event and
// thread_stack__br_sample: most recent first, at most the ring's and the
// request's size, transaction flags kept, emptied when the trace number
// changes.
func TestBranchRing(t *testing.T) {
	th := &Thread{PID: 1, TID: 1}
	jmp := uint32(sample.FlagBranch)
	from := func(es []sample.BranchEntry) []uint64 {
		var f []uint64
		for _, e := range es {
			f = append(f, e.From)
		}
		return f
	}
	if got := th.ts.BranchSample(4); got != nil {
		t.Fatalf("no thread stack: got %v", got)
	}
	for i := uint64(1); i <= 3; i++ {
		th.StackEvent(0, jmp, i, i+0x100, 2, 1, false, 4)
	}
	if got := from(th.ts.BranchSample(4)); !slices.Equal(got, []uint64{3, 2, 1}) {
		t.Errorf("3 branches: %v", got)
	}
	if got := from(th.ts.BranchSample(2)); !slices.Equal(got, []uint64{3, 2}) {
		t.Errorf("3 branches, 2 asked: %v", got)
	}
	for i := uint64(4); i <= 6; i++ {
		th.StackEvent(0, jmp, i, i+0x100, 2, 1, false, 4)
	}
	if got := from(th.ts.BranchSample(4)); !slices.Equal(got, []uint64{6, 5, 4, 3}) {
		t.Errorf("wrapped: %v", got)
	}
	if got := from(th.ts.BranchSample(64)); !slices.Equal(got, []uint64{6, 5, 4, 3}) {
		t.Errorf("wrapped, 64 asked: %v", got)
	}
	th.StackEvent(0, uint32(sample.FlagBranch|sample.FlagInTx), 7, 0x107, 2, 1, false, 4)
	th.StackEvent(0, uint32(sample.FlagBranch|sample.FlagTxAbort), 8, 0x108, 2, 1, false, 4)
	got := th.ts.BranchSample(2)
	want := []sample.BranchEntry{{From: 8, To: 0x108, Abort: true}, {From: 7, To: 0x107, InTx: true}}
	if !slices.Equal(got, want) {
		t.Errorf("tx flags: got %+v, want %+v", got, want)
	}
	if len(th.ts.stack) != 0 {
		t.Errorf("no callstack asked, %d entries pushed", len(th.ts.stack))
	}
	th.StackEvent(0, jmp, 9, 0x109, 2, 2, false, 4) // new trace: flushed first
	if got := from(th.ts.BranchSample(4)); !slices.Equal(got, []uint64{9}) {
		t.Errorf("after a new trace number: %v", got)
	}
}

// TestIdleStacks checks thread_stack__per_cpu: the idle task (pid and
// tid 0) keeps one stack per CPU, and only stacks set up for calls count
// (so with l alone it never has a branch stack, as in perf).
func TestIdleStacks(t *testing.T) {
	call := uint32(sample.FlagBranch | sample.FlagCall)
	idle := &Thread{}
	idle.StackEvent(0, call, 0x100, 0x200, 5, 1, true, 4)
	idle.StackEvent(2, call, 0x300, 0x400, 5, 1, true, 4)
	idle.StackEvent(2, call, 0x410, 0x500, 5, 1, true, 4)
	for _, c := range []struct {
		cpu   int32
		depth int
		br    []uint64
	}{{-1, 1, []uint64{0x100}}, {0, 1, []uint64{0x100}}, {1, 0, nil}, {2, 2, []uint64{0x410, 0x300}}, {5, 0, nil}} {
		d, has := idle.StackDepth(c.cpu)
		var br []uint64
		for _, e := range idle.Stack(c.cpu).BranchSample(4) {
			br = append(br, e.From)
		}
		if d != c.depth || !has || !slices.Equal(br, c.br) {
			t.Errorf("cpu %d: depth %d (%v), branches %#x; want %d, %#x", c.cpu, d, has, br, c.depth, c.br)
		}
	}
	lOnly := &Thread{}
	lOnly.StackEvent(0, call, 0x100, 0x200, 5, 1, false, 4)
	lOnly.StackEvent(0, call, 0x200, 0x300, 5, 1, false, 4)
	if ts := lOnly.Stack(0); ts != nil {
		t.Errorf("idle task without call stacks: got a stack with %d branches", ts.brNr)
	}
	if d, has := lOnly.StackDepth(0); d != 0 || !has {
		t.Errorf("idle task without call stacks: depth %d, %v", d, has)
	}
	if _, has := (&Thread{PID: 1, TID: 1}).StackDepth(0); has {
		t.Error("a thread without events has a thread stack")
	}
}

// TestStackCallchain resolves a chain through the machine: markers are
// consumed and every address of the chain becomes a frame.
func TestStackCallchain(t *testing.T) {
	m := New(nil, "")
	th := m.FindNewThread(1, 1)
	call := uint32(sample.FlagBranch | sample.FlagCall)
	th.stackEvent(call, 0x1000, 0x2000, 5, 1, true)
	th.stackEvent(call, 0x2010, 0x3000, 5, 1, true)
	fr := m.StackCallchain(th, th.ts, 17, 0x3004, kstart)
	var ips []uint64
	for _, f := range fr {
		ips = append(ips, f.IP)
	}
	if !slices.Equal(ips, []uint64{0x3004, 0x2015, 0x1005}) {
		t.Errorf("frames %#x", ips)
	}
	if fr := m.StackCallchain(m.FindNewThread(2, 2), nil, 17, 0x10, kstart); len(fr) != 1 || fr[0].IP != 0x10 {
		t.Errorf("thread without a stack: %+v", fr)
	}
}

// BenchmarkBranchRing measures one branch into a 64-entry ring.
func BenchmarkBranchRing(b *testing.B) {
	th := &Thread{PID: 1, TID: 1}
	th.StackEvent(0, uint32(sample.FlagBranch), 1, 2, 2, 1, false, 64)
	b.ReportAllocs()
	for i := uint64(0); b.Loop(); i++ {
		th.StackEvent(0, uint32(sample.FlagBranch), i, i+2, 2, 1, false, 64)
	}
}
