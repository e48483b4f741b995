package symbol

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"sort"
	"testing"
)

// TestTreeMatchesSortedOrder checks the red-black tree against a plain
// sorted list under random inserts and erases, and its invariants.
func TestTreeMatchesSortedOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	tr := newRBTree()
	var want []uint64
	for i := 0; i < 3000; i++ {
		if len(want) > 0 && rng.Intn(3) == 0 {
			// erase a random node
			k := rng.Intn(len(want))
			x := tr.first()
			for j := 0; j < k; j++ {
				x = tr.next(x)
			}
			tr.erase(x)
			want = append(want[:k], want[k+1:]...)
		} else {
			v := uint64(rng.Intn(500))
			tr.insert(Symbol{Start: v, End: v + 1})
			want = append(want, v)
			sort.SliceStable(want, func(a, b int) bool { return want[a] < want[b] })
		}
		if i%97 == 0 {
			var got []uint64
			for x := tr.first(); x != nilNode; x = tr.next(x) {
				got = append(got, tr.n[x].start)
			}
			if len(got) != len(want) {
				t.Fatalf("step %d: %d nodes, want %d", i, len(got), len(want))
			}
			for k := range got {
				if got[k] != want[k] {
					t.Fatalf("step %d: order differs at %d", i, k)
				}
			}
			checkRB(t, tr, tr.root)
		}
	}
}

// checkRB verifies the red-black properties and returns the black height.
func checkRB(t *testing.T, tr *rbTree, x int32) int {
	if x == nilNode {
		return 1
	}
	n := tr.n[x]
	if n.red && (tr.isRed(n.left) || tr.isRed(n.right)) {
		t.Fatal("red node with red child")
	}
	for _, c := range []int32{n.left, n.right} {
		if c != nilNode && tr.n[c].parent != x {
			t.Fatal("bad parent link")
		}
	}
	l, r := checkRB(t, tr, n.left), checkRB(t, tr, n.right)
	if l != r {
		t.Fatal("unequal black heights")
	}
	if n.red {
		return l
	}
	return l + 1
}

func TestFixups(t *testing.T) {
	tab := &Table{}
	tab.insert([]Symbol{
		{Start: 0x100, End: 0x100, Name: "zero", Bind: 1},
		{Start: 0x200, End: 0x210, Name: "_alias", Bind: 1},
		{Start: 0x200, End: 0x210, Name: "alias", Bind: 1},
		{Start: 0x200, End: 0x210, Name: "weakone", Bind: 2},
		{Start: 0x300, End: 0x300, Name: "last", Bind: 0},
	})
	tab.fixupEnd()
	tab.fixupDuplicate(nil)
	tab.finish(nil)
	cases := []struct {
		addr uint64
		want string
	}{
		{0x100, "zero"}, {0x1ff, "zero"}, {0x200, "alias"}, {0x20f, "alias"},
		{0x210, ""}, {0x300, "last"}, {0x1fff, "last"}, {0x2000, ""}, {0x50, ""},
	}
	for _, c := range cases {
		s := tab.Find(c.addr)
		got := ""
		if s != nil {
			got = s.Name
		}
		if got != c.want {
			t.Errorf("Find(%#x) = %q, want %q", c.addr, got, c.want)
		}
	}
}

func FuzzLoad(f *testing.F) {
	if b, err := os.ReadFile("/bin/true"); err == nil && len(b) < 1<<20 {
		f.Add(b)
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tab, err := Load(bytes.NewReader(b))
		if err == nil {
			for _, s := range tab.Symbols() {
				tab.Find(s.Start)
			}
		}
	})
}

// TestTieNeutralErase checks tieNeutral's claim on random trees with many
// equal keys: when it holds for a node and its successor of equal key,
// erasing either leaves the same tree as keys and colours see it, so a
// choice between them by name can wait for a lookup.
func TestTieNeutralErase(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	neutral, other := 0, 0
	for round := 0; round < 2000; round++ {
		tr := newRBTree()
		n := 1 + rng.Intn(60)
		for i := 0; i < n; i++ {
			v := uint64(rng.Intn(12))
			tr.insert(Symbol{Start: v, End: v + 1})
		}
		for i := rng.Intn(n/2 + 1); i > 0; i-- {
			x := tr.first()
			for k := rng.Intn(n); k > 0 && tr.next(x) != nilNode; k-- {
				x = tr.next(x)
			}
			tr.erase(x)
			n--
		}
		for x := tr.first(); x != nilNode; x = tr.next(x) {
			y := tr.next(x)
			if y == nilNode || tr.n[y].start != tr.n[x].start {
				continue
			}
			if !tr.tieNeutral(x, y) {
				other++
				continue
			}
			neutral++
			a, b := cloneTree(tr), cloneTree(tr)
			a.erase(x)
			b.erase(y)
			if sa, sb := shape(a, a.root), shape(b, b.root); sa != sb {
				t.Fatalf("round %d: erasing %d or %d gives\n%s\n%s", round, x, y, sa, sb)
			}
		}
	}
	t.Logf("%d neutral pairs checked, %d not neutral", neutral, other)
}

func cloneTree(tr *rbTree) *rbTree {
	c := *tr
	c.n = slices.Clone(tr.n)
	c.syms = slices.Clone(tr.syms)
	c.free = slices.Clone(tr.free)
	return &c
}

// shape writes the tree as keys and colours see it.
func shape(tr *rbTree, x int32) string {
	if x == nilNode {
		return "."
	}
	c := "b"
	if tr.n[x].red {
		c = "r"
	}
	return fmt.Sprintf("(%s %d%s %s)", shape(tr, tr.n[x].left), tr.n[x].start, c, shape(tr, tr.n[x].right))
}

// TestRankedInsertMatchesWalk checks insertRanked (and rankSet's in-order
// steps) against perf's insertion by walking down the tree, on random
// sequences of inserts with many equal starts and erasures between them.
func TestRankedInsertMatchesWalk(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for round := 0; round < 300; round++ {
		n := 1 + rng.Intn(300)
		order := make([]Symbol, n)
		for i := range order {
			v := uint64(rng.Intn(n/3 + 1))
			order[i] = Symbol{Start: v, End: v + 1}
		}
		ranks := make([]int32, n)
		for r, k := range sortedKeys(len(order), func(i int) uint64 { return order[i].Start }) {
			ranks[k] = int32(r)
		}
		walk, ranked := newRBTree(), newRBTree()
		ranked.ranked = newRankSet(n)
		ranked.syms = order
		for i, s := range order {
			walk.insert(s)
			ranked.insertRanked(int32(i), ranks[i], s.Start, s.End)
			if rng.Intn(4) == 0 {
				// erase the k-th node in order from both
				k := rng.Intn(i + 1)
				x, y := walk.first(), ranked.first()
				for ; k > 0 && walk.next(x) != nilNode; k-- {
					x, y = walk.next(x), ranked.next(y)
				}
				if x != y {
					t.Fatalf("round %d: in-order walks differ", round)
				}
				walk.erase(x)
				ranked.erase(y)
			}
			if sw, sr := shape(walk, walk.root), shape(ranked, ranked.root); sw != sr {
				t.Fatalf("round %d, insert %d: walking down gives\n%s\nranks give\n%s", round, i, sw, sr)
			}
		}
	}
}

// TestSortedKeys checks the radix sort against a stable sort.
func TestSortedKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for round := 0; round < 200; round++ {
		syms := make([]Symbol, rng.Intn(500))
		base := rng.Uint64()
		for i := range syms {
			syms[i].Start = base + uint64(rng.Intn(1<<uint(rng.Intn(40)+1)))
			if rng.Intn(5) == 0 {
				syms[i].Start = rng.Uint64()
			}
		}
		want := make([]int32, len(syms))
		for i := range want {
			want[i] = int32(i)
		}
		sort.SliceStable(want, func(a, b int) bool { return syms[want[a]].Start < syms[want[b]].Start })
		if got := sortedKeys(len(syms), func(i int) uint64 { return syms[i].Start }); !slices.Equal(got, want) {
			t.Fatalf("round %d: %v, want %v", round, got, want)
		}
	}
}
