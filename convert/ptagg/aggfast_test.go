package ptagg

import (
	"encoding/binary"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
)

// fastCase is a random fastState and runs for fastRuns: a few block
// ranges, with records under most nodes in a real index, so that guesses
// hold or records are found and runs go on; calls through a real edge
// index; returns to frames on the stack or not; jumps in and out of the
// cached map; marks (and bad ones), times and trace stops.
type fastCase struct {
	s    fastState
	runs []Run
}

func newFastCase(seed uint64) *fastCase {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	c := &fastCase{}
	s := &c.s
	nNodes := 1 + rng.IntN(3)
	for i := range nNodes {
		n := callNode{parent: int32(i) - 1, site: 0x1000 + uint64(rng.IntN(8))*0x10}
		if rng.IntN(2) == 0 {
			n.ret = n.site + 5
		}
		s.nodes = append(s.nodes, n)
	}
	// A small index, so that probes collide.
	edges := edgeTable{slots: make([]edge, 4), shift: 62}
	for range rng.IntN(24) {
		from, site := int32(rng.IntN(nNodes)), 0x1000+uint64(rng.IntN(8))*0x10+4
		if edges.find(from, site) < 0 {
			edges.insert(from, site, int32(rng.IntN(nNodes)))
		}
	}
	s.edges, s.eshift = edges.slots, uint64(edges.shift)
	// Two ranges share a start (records differ by their end only).
	ranges := [][2]uint64{{0x1000, 0x1004}, {0x1000, 0x1014}, {0x1020, 0x1024}, {0x1030, 0x1034}}[:1+rng.IntN(4)]
	s.cpu = int32(rng.IntN(3)) - 1
	// Records of most (range, node) pairs, in a small index (probes
	// collide), with random successors.
	recs := recTable{recs: make([]blockRec, 1), slots: make([]int32, 4), shift: 62}
	for _, rg := range ranges {
		for n := range nNodes {
			if rng.IntN(6) != 0 {
				recs.insert(rg[0], rg[1], nodeCPU(int32(n), s.cpu))
			}
		}
	}
	for i := 1; i < len(recs.recs); i++ {
		r := &recs.recs[i]
		r.insns = uint64(rng.IntN(100))
		r.succ = [2]int32{int32(rng.IntN(len(recs.recs))), int32(rng.IntN(len(recs.recs)))}
	}
	s.recs, s.rslots, s.rshift = recs.recs, recs.slots, uint64(recs.shift)
	depth := rng.IntN(5)
	s.stack = make([]int32, depth, depth+rng.IntN(3))
	for i := range s.stack {
		s.stack[i] = int32(rng.IntN(nNodes))
	}
	s.root = int32(rng.IntN(nNodes))
	s.cur = s.root
	if depth > 0 {
		s.cur = s.stack[depth-1]
	}
	s.nc = nodeCPU(s.cur, s.cpu)
	s.lo, s.span = 0x1000, uint64(rng.IntN(0x40))
	s.cand = int32(rng.IntN(len(s.recs)))
	s.prev, s.slot = int32(rng.IntN(len(s.recs))), uint64(rng.IntN(2))
	if rng.IntN(8) == 0 {
		s.overflow = 1
	}
	// The time: not stale at the start (runs' test before fastRuns).
	times := []uint64{0, 100, 150, 300}
	s.last = times[rng.IntN(len(times))]
	if s.tm = s.last; rng.IntN(4) == 0 {
		s.tm = 0
	}
	for range rng.IntN(4) {
		s.marks = append(s.marks, RunMark{Time: times[rng.IntN(len(times))], Cycles: uint64(rng.IntN(3))})
	}
	kinds := []uint16{
		sample.FlagBranch | sample.FlagConditional, sample.FlagBranch | sample.FlagConditional | RunTaken,
		sample.FlagBranch | sample.FlagCall | RunTaken, sample.FlagBranch | sample.FlagReturn | RunTaken,
		sample.FlagBranch | RunTaken, sample.FlagBranch, 0,
		sample.FlagBranch | sample.FlagSyscallRet | RunTaken, sample.FlagBranch | sample.FlagAsync | sample.FlagInterrupt,
		sample.FlagBranch | sample.FlagTraceEnd, sample.FlagBranch | sample.FlagCall | sample.FlagTraceBegin,
	}
	// Most runs are made to match the guess the state will have then
	// (simulated with fastRunsGo), until one is not taken.
	sim := c.clone()
	for range 1 + rng.IntN(64) {
		rg := ranges[rng.IntN(len(ranges))]
		if sim != nil && rng.IntN(8) != 0 && int(sim.s.cand) < len(sim.s.recs) {
			r := &sim.s.recs[sim.s.cand]
			rg = [2]uint64{r.start, r.end}
		}
		r := Run{Start: rg[0], End: rg[1], NInsn: uint32(1 + rng.IntN(9)), Flags: kinds[rng.IntN(len(kinds))]}
		switch rng.IntN(4) {
		case 0:
			r.To = 0
		case 1:
			r.To = 0x1000 + uint64(rng.IntN(8))*0x10 + 5 // a return address
		default:
			r.To = 0x1000 + uint64(rng.IntN(0x60))
		}
		if rng.IntN(6) == 0 {
			r.Mark = uint16(rng.IntN(len(s.marks) + 2)) // sometimes not one
		}
		c.runs = append(c.runs, r)
		if sim != nil && fastRunsGo(&sim.s, c.runs[len(c.runs)-1:]) == 0 {
			sim = nil
		}
	}
	return c
}

// clone copies everything fastRuns writes.
func (c *fastCase) clone() *fastCase {
	d := &fastCase{s: c.s, runs: c.runs}
	d.s.recs = slices.Clone(c.s.recs)
	d.s.nodes = slices.Clone(c.s.nodes)
	d.s.stack = append(make([]int32, 0, cap(c.s.stack)), c.s.stack...)
	return d
}

// checkFastRuns fails unless fastRuns (the assembly, where there is one)
// does what fastRunsGo does on case c: the runs taken, and the state,
// records, nodes and stack after.
func checkFastRuns(t *testing.T, c *fastCase) int {
	t.Helper()
	want, got := c.clone(), c.clone()
	nw := fastRunsGo(&want.s, want.runs)
	ng := fastRuns(&got.s, got.runs)
	if ng != nw {
		t.Fatalf("fastRuns took %d runs, fastRunsGo %d", ng, nw)
	}
	// The stacks' arrays (beyond their lengths too, where a push wrote).
	ws, gs := want.s.stack[:cap(want.s.stack)], got.s.stack[:cap(got.s.stack)]
	if !slices.Equal(ws, gs) || len(want.s.stack) != len(got.s.stack) {
		t.Fatalf("stack %v (len %d), want %v (len %d)", gs, len(got.s.stack), ws, len(want.s.stack))
	}
	want.s.stack, got.s.stack = nil, nil
	if !reflect.DeepEqual(want.s, got.s) {
		t.Fatalf("state after %d runs:\n got  %+v\n want %+v", ng, got.s, want.s)
	}
	return nw
}

// TestFastRuns compares fastRuns with fastRunsGo on random cases.
func TestFastRuns(t *testing.T) {
	if !fastRunsAsm {
		t.Skip("fastRuns is amd64 assembly: on this architecture it is fastRunsGo, which it would be compared with")
	}
	taken, moved, found, timed := 0, 0, 0, 0
	for seed := range uint64(20000) {
		c := newFastCase(seed)
		n := checkFastRuns(t, c)
		taken += n
		// What the runs taken did, replayed one by one.
		sim := c.clone()
		for i, r := range c.runs[:n] {
			if r.Flags&(sample.FlagCall|sample.FlagReturn) != 0 {
				moved++
			}
			if r.Mark != 0 || r.Flags&sample.FlagTraceEnd != 0 {
				timed++
			}
			if g := sim.s.cand; int(g) >= len(sim.s.recs) || sim.s.recs[g].start != r.Start || sim.s.recs[g].end != r.End || sim.s.recs[g].nc != sim.s.nc {
				found++
			}
			fastRunsGo(&sim.s, c.runs[i:i+1])
		}
	}
	if taken < 15000 || moved < 2000 || found < 2000 || timed < 2000 {
		t.Errorf("too easy: %d runs taken, %d calls and returns, %d records found, %d marks or trace stops", taken, moved, found, timed)
	}
	t.Logf("%d runs taken: %d calls and returns, %d records found in the index, %d marks or trace stops", taken, moved, found, timed)
}

// FuzzFastRuns is TestFastRuns's comparison on cases made from the
// fuzzer's seeds.
func FuzzFastRuns(f *testing.F) {
	for i := range uint64(8) {
		f.Add(binary.LittleEndian.AppendUint64(nil, i*0x9e3779b97f4a7c15))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !fastRunsAsm {
			t.Skip("fastRuns is amd64 assembly: on this architecture it is fastRunsGo, which it would be compared with")
		}
		var seed [8]byte
		copy(seed[:], b)
		checkFastRuns(t, newFastCase(binary.LittleEndian.Uint64(seed[:])))
	})
}
