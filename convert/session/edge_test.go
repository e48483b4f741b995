package session

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/perfpt/perfpt/convert/ptagg"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session/ptperf"
	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// withAgg runs f with the counting of Handler.Agg in the decoder (edge.go)
// on or off (off: the Agg gets every run through Agg.Runs).
func withAgg(on bool, f func()) {
	defer func(old bool) { aggOff = old }(aggOff)
	aggOff = !on
	f()
}

// aggText decodes data into a ptagg.Agg as pprof does and returns what the
// Agg holds, as sorted lines: every record (block, call stack as the sites
// from the thread's root, CPU, instructions, taken branches, time and
// cycles) and the errors; and the instructions the decoder counted itself.
func aggText(t *testing.T, s *Session, o ptagg.Options) ([]byte, uint64) {
	t.Helper()
	a := ptagg.New(s.Machine(), o)
	var errs bytes.Buffer
	h := Handler{Agg: a, Error: func(e *sample.ErrorLine) { printError(&errs, e) }}
	if err := s.Run(h); err != nil {
		fmt.Fprintf(&errs, "error: %v\n", err)
	}
	nodes := a.Nodes()
	// stacks holds each node's stack, made once (stacks 1100 deep:
	// TestAggWalkRare).
	stacks := map[int32]string{}
	var stack func(n int32) string
	stack = func(n int32) string {
		if s, ok := stacks[n]; ok {
			return s
		}
		s := fmt.Sprintf("%x", nodes[n].Site)
		if p := nodes[n].Parent; p >= 0 {
			s += "<" + stack(p)
		}
		stacks[n] = s
		return s
	}
	var lines []string
	for _, r := range a.Records() {
		n := nodes[r.Node]
		lines = append(lines, fmt.Sprintf("%d/%d %s cpu %d %x-%x %d %d %d %d", n.PID, n.TID, stack(r.Node), r.CPU,
			r.Start, r.End, r.Insns, r.Branches, r.Nanos, r.Cycles))
	}
	slices.Sort(lines)
	var walked uint64
	if s.pt != nil && s.pt.agg != nil {
		walked = s.pt.agg.walked
	}
	if s.pt != nil {
		aggMerged += s.pt.aggMerged
		if o.Edges {
			aggMergedEdges += s.pt.aggMerged
		}
	}
	return append(errs.Bytes(), strings.Join(lines, "\n")...), walked
}

// aggMerged counts the chunks aggText's decodes merged (ptagg.Agg.Merge),
// aggMergedEdges those of edge counts (ptagg.Options.Edges).
var aggMerged, aggMergedEdges int

// sameWithAgg checks that the Agg holds the same records, counts, call
// stacks, times and cycles when the decoder counts the blocks it walks
// itself as when it hands every run to Agg.Runs, at each number of
// workers.
func sameWithAgg(t *testing.T, data string, o ptagg.Options, workers ...int) uint64 {
	t.Helper()
	var total uint64
	// The code of testdata's recordings from elsewhere is in symfs.
	symfs := filepath.Join(filepath.Dir(data), "symfs")
	if _, err := os.Stat(symfs); err != nil {
		symfs = ""
	}
	for _, j := range workers {
		var want, got []byte
		var walked uint64
		so := Options{Workers: j, Symfs: symfs}
		withAgg(false, func() { want, _ = aggText(t, openItrace(t, data, "e", so), o) })
		withAgg(true, func() { got, walked = aggText(t, openItrace(t, data, "e", so), o) })
		if !bytes.Equal(got, want) {
			t.Fatalf("%s -j %d: the counts of the decoder differ from Agg.Runs'%s", filepath.Base(data), j, firstDiff(got, want))
		}
		if j > 1 {
			// Every other chunk's merge refused: those chunks are
			// decoded in sequence.
			n := 0
			defer func(f func(uint64) bool) { parAggRefuse = f }(parAggRefuse)
			parAggRefuse = func(uint64) bool { n++; return n%2 == 0 }
			withAgg(true, func() { got, _ = aggText(t, openItrace(t, data, "e", so), o) })
			parAggRefuse = func(uint64) bool { return false }
			if !bytes.Equal(got, want) {
				t.Fatalf("%s -j %d, merges refused: the counts differ from Agg.Runs'%s", filepath.Base(data), j, firstDiff(got, want))
			}
		}
		total += walked
	}
	return total
}

// TestAggSameCounts checks the decoder's own counting for Handler.Agg
// against Agg.Runs on the PT recordings of testdata and on the test
// programs recorded with every timing and return-compression setting, per
// thread and per CPU, whole and damaged; and that it counted something.
// In parallel (chunks of 300 bytes, -j 2 and 4), the chunks' own counting
// merged in order (pt_par.go, ptagg's Merge), and with merges refused,
// against the chunks' runs handed to Agg.Runs. The same for edge counts
// (ptagg.Options.Edges: records per block and block before, gcov's).
func TestAggSameCounts(t *testing.T) {
	defer func(n, m int) { chunkBytes, aggChunkBytes = n, m }(chunkBytes, aggChunkBytes)
	chunkBytes, aggChunkBytes = 300, 300
	aggMerged, aggMergedEdges = 0, 0
	var walked uint64
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*", "*.data"))
	for _, f := range files {
		if !hasAux(t, f) {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			n := sameWithAgg(t, f, ptagg.Options{}, 1, 2, 4)
			n += sameWithAgg(t, f, ptagg.Options{Edges: true}, 1, 2, 4)
			t.Logf("%d instructions counted by the decoder", n)
			walked += n
		})
	}
	cfgs := []struct {
		name string
		wo   record.WriteOptions
	}{
		{"untimed", record.WriteOptions{PT: synth.Config{PSBPeriod: 512}}},
		{"noretcomp", record.WriteOptions{PT: synth.Config{NoRetComp: true}}},
		{"mtc", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}}},
		{"cyc", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, CYC: true}}},
		{"cpus", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true}, PerCPU: true, CPUs: 3, Quantum: 40}},
	}
	for _, prog := range []string{"mix-dyn-O2", "mix-static-O0", "threads-dyn-O2"} {
		for _, c := range cfgs {
			t.Run(prog+"/"+c.name, func(t *testing.T) {
				data := recordPTOpt(t, prog, c.wo)
				n := sameWithAgg(t, data, ptagg.Options{}, 1, 2, 4)
				if n == 0 {
					t.Errorf("the decoder counted nothing itself")
				}
				walked += n
				walked += sameWithAgg(t, corruptAux(t, data, 0x55, 8, 0.4), ptagg.Options{}, 1, 2)
				walked += sameWithAgg(t, corruptAux(t, data, 0x00, 3, 0.7), ptagg.Options{}, 1, 2)
				// Edge counts (gcov's): records per block and block before.
				if sameWithAgg(t, data, ptagg.Options{Edges: true}, 1, 2, 4) == 0 {
					t.Errorf("the decoder counted no edges itself")
				}
				walked += sameWithAgg(t, corruptAux(t, data, 0x55, 8, 0.4), ptagg.Options{Edges: true}, 1)
				if prog == "threads-dyn-O2" {
					// A thread filter: the other threads' code is passed over.
					sameWithAgg(t, data, ptagg.Options{TIDs: map[int32]bool{}}, 1)
				}
			})
		}
	}
	t.Logf("%d instructions counted by the decoder, %d chunks merged, %d of them edge counts", walked, aggMerged, aggMergedEdges)
	if aggMerged == 0 {
		t.Errorf("no chunk's counts were merged")
	}
	if aggMergedEdges == 0 {
		t.Errorf("no chunk's edge counts were merged")
	}
}

// TestAggSameCountsSwitchEnded checks the decoder's own counting against
// Agg.Runs on per-CPU recordings of tiny, whose thread moves from CPU to
// CPU, damaged at many places: where the damage hides the trace stop of a
// run that waits for its successor, the switch record ends it between two
// queues' decodes, and it must reach the Agg before the blocks the
// thread's next CPU walks. (Handed over after them, it set the thread's
// time back, and the next block counted took the time twice: the
// TestAggSameCounts failures on threads-dyn-O2/cpus.)
func TestAggSameCountsSwitchEnded(t *testing.T) {
	for _, quantum := range []int{3, 5, 13} {
		wo := record.WriteOptions{PT: synth.Config{TSC: true, MTC: true}, PerCPU: true, CPUs: 3, Quantum: quantum}
		data := recordPTOpt(t, "tiny", wo)
		for at := 5; at < 100; at += 5 {
			sameWithAgg(t, corruptAux(t, data, 0x00, 8, float64(at)/100), ptagg.Options{}, 1)
		}
	}
}

// TestAggInnerWalk compares aggInnerWalk (assembly on amd64) with walkGo,
// its reference, on random graphs of records, TNT bits and trace bytes,
// with random frames (call stacks and edge counts), return stacks and
// caches of targets.
func TestAggInnerWalk(t *testing.T) {
	if !aggInnerAsm {
		t.Log("aggInnerWalk is walkGo here: compared with itself")
	}
	rng := rand.New(rand.NewSource(1))
	var blocks, moves, tips, tipModes uint64
	addrs := []uint64{0, 0x401000, 0x401005, 0x7fff_0000_1234, 0xffff_8000_0000_0010}
	const nodes = 6
	for iter := 0; iter < 20000; iter++ {
		n := 2 + rng.Intn(40)
		recs := make([]aggRec, n)
		const ep = 7
		var ncs []uint64
		for k := 0; k < 3; k++ {
			ncs = append(ncs, uint64(1+rng.Intn(nodes))<<32|uint64(rng.Intn(2)))
		}
		ncs = append(ncs, 0)
		for i := 1; i < n; i++ {
			r := &recs[i]
			r.epoch = ep
			if rng.Intn(20) == 0 {
				r.epoch = ep - 1
			}
			r.kind = uint8(rng.Intn(6))
			if rng.Intn(3) == 0 {
				r.kind = uint8(rng.Intn(3))
			}
			r.br, r.isCall = uint8(rng.Intn(2)), uint8(rng.Intn(2))
			r.ft, r.cnt, r.rel = uint32(1+rng.Intn(50)), uint32(1+rng.Intn(20)), int32(rng.Intn(200)-100)
			if rng.Intn(8) == 0 {
				r.rel = 0
			}
			for k := range r.next {
				if rng.Intn(10) != 0 {
					r.next[k] = int32(rng.Intn(n))
				}
			}
			r.call, r.callNC = int32(rng.Intn(n)), ncs[rng.Intn(len(ncs))]
			r.insns, r.taken = uint64(rng.Intn(5)), uint64(rng.Intn(5))
		}
		more := make([]byte, rng.Intn(24))
		for i := 0; i < len(more); i++ {
			switch rng.Intn(8) {
			case 0:
				more[i] = 0 // PAD
			case 1:
				more[i] = byte(rng.Intn(256)) // anything
			case 2:
				more[i] = 2 // an extended packet
			case 3, 4:
				// A TIP, with any IP compression.
				more[i] = byte(rng.Intn(8))<<5 | 0x0d
				if rng.Intn(2) == 0 {
					more[i] = 6<<5 | 0x0d
					a := addrs[rng.Intn(len(addrs))]
					for k := 0; k < 8 && i+1 < len(more); k++ {
						i++
						more[i] = byte(a >> (8 * k))
					}
				}
			default:
				more[i] = byte(4 + 2*rng.Intn(126)) // a TNT-8
			}
		}
		cnt := rng.Intn(7)
		if rng.Intn(2) == 0 {
			cnt = 0 // (a packet first)
		}
		in := aggInner{recs: recs, more: more, ip: uint64(rng.Int63()),
			insns: uint64(rng.Intn(1000)), next: int32(rng.Intn(n)), last: int32(rng.Intn(n)), lastIP: uint64(rng.Int63()),
			ep: ep, pending: uint32(rng.Intn(2)), sstate: uint32(rng.Intn(2)),
			tipIP: addrs[rng.Intn(len(addrs))] ^ uint64(rng.Intn(2)), tipOK: uint32(rng.Intn(4) & 1),
			retComp: uint32(rng.Intn(4) & 1), lastTNT: uint32(rng.Intn(256)), prevC: uint32(rng.Intn(256))}
		if rng.Intn(4) != 0 {
			in.tipOK, in.retComp = 1, 1
		}
		if rng.Intn(8) == 0 {
			// In TIP mode (a TIP read before a direct jump or call).
			in.tipMode, in.tipTo, in.tnt = 1, addrs[rng.Intn(len(addrs))], 1<<63
		}
		// walkInsn's loop check: rows of unconditional branches.
		in.noProg, in.maxLoops = uint32(rng.Intn(4)), int64(rng.Intn(4))
		in.stuckIP, in.stuckPrd, in.stuckCnt = uint64(rng.Int63()), int64(1+rng.Intn(3)), int64(1+rng.Intn(3))
		if r := &recs[in.next]; rng.Intn(4) == 0 {
			in.stuckIP = in.ip + uint64(r.ft) + uint64(int64(r.rel))
		}
		in.lo, in.span = 0x400000, 0x10000
		if rng.Intn(3) == 0 {
			in.lo, in.span = 0, 1<<63
		}
		// cnt bits, then the 1 that ends them.
		in.tnt = rng.Uint64()&^(1<<(64-uint(cnt))-1) | 1<<(63-uint(cnt))
		// The decoder's return stack, the frames and the targets.
		dstack := make([]uint64, rng.Intn(5), 8)
		for i := range dstack {
			dstack[i] = addrs[rng.Intn(len(addrs))]
		}
		dstack = dstack[: len(dstack) : len(dstack)+rng.Intn(3)]
		stack := make([]int32, rng.Intn(4), 8)
		for i := range stack {
			stack[i] = int32(rng.Intn(nodes))
		}
		stack = stack[: len(stack) : len(stack)+rng.Intn(2)]
		nodeMem := make([]uint64, nodes*nodeSize/8)
		for k := 0; k < nodes; k++ {
			nodeMem[(uintptr(k)*nodeSize+nodeRet)/8] = addrs[rng.Intn(len(addrs))]
		}
		ctx := make([]int32, rng.Intn(n+1))
		for i := range ctx {
			ctx[i] = int32(rng.Intn(nodes))
		}
		in.fr = ptagg.Frames{Stack: stack, Ctx: ctx, Nodes: unsafe.Pointer(&nodeMem[0]),
			NC: ncs[rng.Intn(len(ncs))], Root: int32(rng.Intn(nodes)), CPU: int32(rng.Intn(3)) - 1,
			Mode: uint32(rng.Intn(3)), Overflow: uint32(rng.Intn(4) / 3), Depth: int32(len(stack) + rng.Intn(3))}
		in.tgt = make([]aggTarget, 1<<aggTargetBits)
		for k := 0; k < 30; k++ {
			// Entries for the targets the loop may look up.
			ri, to, nc := int32(rng.Intn(n)), addrs[rng.Intn(len(addrs))], ncs[rng.Intn(len(ncs))]
			h := (to ^ uint64(ri)*0x9e3779b97f4a7c15 ^ nc) * 0xbf58476d1ce4e5b9 >> (64 - aggTargetBits)
			in.tgt[h] = aggTarget{src: ri, ri: int32(rng.Intn(n)), to: to, nc: nc}
		}
		want, got := in, in
		want.recs, got.recs = slices.Clone(recs), slices.Clone(recs)
		want.dstack, got.dstack = cloneCap(dstack), cloneCap(dstack)
		want.fr.Stack, got.fr.Stack = cloneCap(stack), cloneCap(stack)
		want.walkGo()
		aggInnerWalk(&got)
		if !slices.Equal(got.recs, want.recs) {
			t.Fatalf("iteration %d: the records' counts differ", iter)
		}
		if !slices.Equal(got.dstack, want.dstack) || cap(got.dstack) != cap(want.dstack) {
			t.Fatalf("iteration %d: the decoder's stacks differ: %x, %x", iter, got.dstack, want.dstack)
		}
		if !slices.Equal(got.fr.Stack, want.fr.Stack) || cap(got.fr.Stack) != cap(want.fr.Stack) {
			t.Fatalf("iteration %d: the call stacks differ: %v, %v", iter, got.fr.Stack, want.fr.Stack)
		}
		got.recs, want.recs, got.dstack, want.dstack, got.fr.Stack, want.fr.Stack = nil, nil, nil, nil, nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("iteration %d: aggInnerWalk\n%+v\nwalkGo\n%+v", iter, got, want)
		}
		blocks += want.insns - in.insns
		moves += uint64(len(stack) - len(want.fr.Stack)) // (not quite: pushes and pops)
		if want.fr.NC != in.fr.NC {
			moves++
		}
		tips += uint64(want.tips)
		if want.tipMode != 0 {
			tipModes++
		}
	}
	t.Logf("%d instructions walked, %d frame moves, %d walks that took a TIP, %d that ended in TIP mode", blocks, moves, tips, tipModes)
	if blocks == 0 || moves == 0 || tips == 0 || tipModes == 0 {
		t.Fatal("no block walked, no frame moved, no TIP taken or no walk ended in TIP mode")
	}
}

// cloneCap returns a copy of s with the same length and capacity.
func cloneCap[T any](s []T) []T {
	c := make([]T, len(s), cap(s))
	copy(c, s)
	return c
}

// TestTIPTab checks tipTab, the assembly's table of TIP packets, against
// ptperf.TIPTarget on every IP compression.
func TestTIPTab(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for iter := 0; iter < 4000; iter++ {
		b := make([]byte, 9)
		rng.Read(b)
		b[0] = b[0]&0xe0 | 0x0d
		last := rng.Uint64()
		to, pl, size, ok := ptperf.TIPTarget(b, last)
		e := &tipTab[b[0]>>5]
		if ok != (e.size != 0) || !ok {
			continue
		}
		gpl := binary.LittleEndian.Uint64(b[1:]) & e.mask
		gto := last&e.keep | gpl
		if gto&(1<<47) != 0 {
			gto |= e.sext
		}
		if gto != to || gpl != pl || e.size != uint64(size) {
			t.Fatalf("TIP % x after %#x: tipTab says %#x, %#x, %d; TIPTarget %#x, %#x, %d", b, last, gto, gpl, e.size, to, pl, size)
		}
	}
}

// TestAggMidRare checks the decoder's own counting against Agg.Runs where
// the walk's loop of calls, returns and TIPs (mid, edge_mid.go) takes the
// blocks and packets that its inner loop (aggInnerWalk) takes as a rule:
// an inner loop that walks nothing every other time leaves them to mid's
// own code: direct calls and jumps, compressed returns, TIPs read from the
// trace bytes and by the decoder (TIP mode), returns and indirect jumps to
// targets the cache does not know, damaged TIPs.
func TestAggMidRare(t *testing.T) {
	defer func(f func() bool) { innerSkip = f }(innerSkip)
	var calls, left int
	innerSkip = func() bool {
		if calls++; calls%2 == 0 {
			left++
			return true
		}
		return false
	}
	var walked uint64
	for _, c := range []struct {
		prog string
		wo   record.WriteOptions
	}{
		{"mix-dyn-O2", record.WriteOptions{PT: synth.Config{PSBPeriod: 512}}},
		{"mix-static-O0", record.WriteOptions{PT: synth.Config{NoRetComp: true}}},
		{"threads-dyn-O2", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true}, PerCPU: true, CPUs: 2, Quantum: 7}},
	} {
		data := recordPTOpt(t, c.prog, c.wo)
		walked += sameWithAgg(t, data, ptagg.Options{}, 1)
		walked += sameWithAgg(t, data, ptagg.Options{Edges: true}, 1)
		walked += sameWithAgg(t, testprog.CorruptPacket(t, data, packet.KindTIP, 0x2d, 0.5), ptagg.Options{}, 1)
	}
	t.Logf("%d instructions counted by the decoder; the inner loop left mid %d of %d times", walked, left, calls)
	if walked == 0 || left == 0 {
		t.Error("the decoder counted nothing itself, or mid walked nothing")
	}
}
