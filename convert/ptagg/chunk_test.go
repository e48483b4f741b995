package ptagg

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
)

// chunkFlow makes the runs of a random flow of one or two threads over two
// mappings: calls from a few sites (recursion folds), returns to the
// caller, to a caller further up, to nowhere known, or unmatched; jumps
// within a map and to the other one, some to a return address up the
// stack (longjmps); trace stops; runaway recursion past maxDepth.
func chunkFlow(rng *rand.Rand, n int) []RunBatch {
	var bs []RunBatch
	stacks := map[int32][]uint64{}
	timed := rng.IntN(2) == 0
	clock := uint64(1000)
	for len(bs) < n {
		tid := int32(1 + rng.IntN(2))
		b := RunBatch{PID: 1, TID: tid, CPU: int32(rng.IntN(2))}
		if timed {
			clock += uint64(rng.IntN(3)) * 10
			b.Time = clock
		}
		st := stacks[tid]
		for range 1 + rng.IntN(40) {
			base := uint64(0x1000)
			if rng.IntN(3) == 0 {
				base = 0x2000
			}
			start := base + uint64(rng.IntN(16))*0x40
			end := start + uint64(rng.IntN(3))*4
			r := Run{Start: start, End: end, NInsn: uint32(1 + rng.IntN(5))}
			switch k := rng.IntN(20); {
			case k < 5:
				r.Flags = uint16(sample.FlagBranch | sample.FlagCall)
				r.To = 0x1000 + uint64(rng.IntN(16))*0x40
				st = append(st, end+5)
				if rng.IntN(50) == 0 {
					// Runaway recursion.
					for range 1000 + rng.IntN(100) {
						b.Runs = append(b.Runs, Run{Start: start, End: end, To: start, NInsn: 1, Flags: uint16(sample.FlagBranch | sample.FlagCall)})
						st = append(st, end+5)
					}
				}
			case k < 10:
				r.Flags = uint16(sample.FlagBranch | sample.FlagReturn)
				switch j := rng.IntN(10); {
				case len(st) == 0 || j == 0:
					r.To = 0x1000 + uint64(rng.IntN(64))*0x10
				case j == 1 && len(st) > 2:
					r.To = st[len(st)-3]
					st = st[:len(st)-3]
				default:
					r.To = st[len(st)-1]
					st = st[:len(st)-1]
				}
			case k < 13:
				r.Flags = uint16(sample.FlagBranch)
				r.To = base + uint64(rng.IntN(16))*0x40
				if rng.IntN(3) == 0 {
					r.To = 0x3000 - base + uint64(rng.IntN(16))*0x40
				}
				if len(st) > 1 && rng.IntN(4) == 0 {
					i := rng.IntN(len(st))
					r.To = st[i]
					st = st[:i]
				}
			case k < 18:
				r.Flags = uint16(sample.FlagBranch | sample.FlagConditional)
				r.To = end + 2
				if rng.IntN(2) == 0 {
					r.To = start
				}
			case k < 19:
				r.Flags = uint16(sample.FlagTraceEnd)
			}
			if timed && rng.IntN(4) == 0 {
				// A new time (or the same), some cycles.
				clock += uint64(rng.IntN(2)) * 7
				b.Marks = append(b.Marks, RunMark{Time: clock, Cycles: uint64(rng.IntN(3))})
				r.Mark = uint16(len(b.Marks))
			}
			if r.Flags&uint16(sample.FlagBranch) != 0 && r.To != 0 {
				r.Flags |= RunTaken
			}
			b.Runs = append(b.Runs, r)
		}
		stacks[tid] = st
		bs = append(bs, b)
	}
	return bs
}

func chunkMachine() *machine.Machine {
	m := machine.New(nil, "/nonexistent")
	m.KernelStart = 1 << 63
	th := m.FindNewThread(1, 1)
	th.Maps.Insert(&machine.Map{Start: 0x1000, End: 0x2000})
	th.Maps.Insert(&machine.Map{Start: 0x2000, End: 0x3000})
	m.FindNewThread(1, 2)
	return m
}

func aggDump(a *Agg) ([]Record, []Node) {
	rs := a.Records()
	slices.SortFunc(rs, func(x, y Record) int {
		return cmp.Or(cmp.Compare(x.Node, y.Node), cmp.Compare(x.CPU, y.CPU), cmp.Compare(x.Start, y.Start), cmp.Compare(x.End, y.End))
	})
	return rs, a.Nodes()
}

// TestChunkMerge: runs aggregated in chunks (NewChunk) merged in order
// (or, where Merge refuses, taken in sequence) give the records and nodes
// of the runs taken in sequence; with Options.Edges too (never refused),
// and the same edge counts.
func TestChunkMerge(t *testing.T) {
	t.Run("stacks", func(t *testing.T) { testChunkMerge(t, Options{}, 3000) })
	t.Run("edges", func(t *testing.T) { testChunkMerge(t, Options{Edges: true}, 1000) })
}

func testChunkMerge(t *testing.T, o Options, seeds uint64) {
	merged, refused := 0, 0
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 7))
		m := chunkMachine()
		bs := chunkFlow(rng, 2+rng.IntN(30))
		if o.Edges {
			// A block's instructions are its own (EdgeCounts
			// divides by them).
			for i := range bs {
				for j := range bs[i].Runs {
					r := &bs[i].Runs[j]
					r.NInsn = uint32(1 + (r.End-r.Start)/4)
				}
			}
		}
		seq := New(m, o)
		for i := range bs {
			seq.Runs(&bs[i])
		}
		par := New(m, o)
		for i := 0; i < len(bs); {
			n := 1 + rng.IntN(6)
			if rng.IntN(3) == 0 {
				for ; n > 0 && i < len(bs); n, i = n-1, i+1 {
					par.Runs(&bs[i])
				}
				continue
			}
			tid := bs[i].TID
			ch := par.NewChunk(m.FindThread(tid))
			j := i
			for ; n > 0 && j < len(bs); n, j = n-1, j+1 {
				ch.Runs(&bs[j])
			}
			if par.Merge(ch) {
				merged++
			} else {
				refused++
				for k := i; k < j; k++ {
					par.Runs(&bs[k])
				}
			}
			i = j
		}
		r1, n1 := aggDump(seq)
		r2, n2 := aggDump(par)
		if !reflect.DeepEqual(n1, n2) {
			t.Fatalf("seed %d: nodes differ:\n%v\n%v", seed, n1, n2)
		}
		if !reflect.DeepEqual(r1, r2) {
			for i := range min(len(r1), len(r2)) {
				if r1[i] != r2[i] {
					t.Fatalf("seed %d: record %d of %d/%d differs:\n%+v\n%+v", seed, i, len(r1), len(r2), r1[i], r2[i])
				}
			}
			t.Fatalf("seed %d: %d records, want %d", seed, len(r2), len(r1))
		}
		if e1, e2 := edgeDump(seq), edgeDump(par); !reflect.DeepEqual(e1, e2) {
			t.Fatalf("seed %d: edge counts differ:\n%v\n%v", seed, e1, e2)
		}
	}
	t.Logf("%d chunks merged, %d refused", merged, refused)
	if merged == 0 || refused == 0 && !o.Edges {
		t.Errorf("%d chunks merged, %d refused: want some of each", merged, refused)
	}
	if o.Edges && refused != 0 {
		t.Errorf("%d chunks of edge counts refused, want none", refused)
	}
}

func edgeDump(a *Agg) []Edge {
	es := a.EdgeCounts()
	slices.SortFunc(es, func(x, y Edge) int {
		return cmp.Or(cmp.Compare(x.TID, y.TID), cmp.Compare(x.Start, y.Start), cmp.Compare(x.End, y.End),
			cmp.Compare(x.From, y.From), cmp.Compare(x.FromEnd, y.FromEnd))
	})
	return es
}
