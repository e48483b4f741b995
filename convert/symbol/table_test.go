package symbol

import (
	"bytes"
	"math/rand"
	"os"
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
				got = append(got, tr.n[x].sym.Start)
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
	tab.fixupDuplicate()
	tab.finish()
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
