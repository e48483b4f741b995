package symbol

import "math/bits"

// perf keeps a DSO's symbols in a Linux red-black tree keyed by start
// address and searches it with symbols__find. When symbols overlap (a
// zero-sized _init extended over the PLT entries added later, say), the
// symbol found depends on the tree's shape, so the tree is rebuilt here with
// the same insertion and erase algorithm (lib/rbtree.c) to give the same
// answers.

const nilNode = -1

// rbNode is a node of the tree: its links and the key and end its
// searches read, the symbol itself kept apart (rbTree.syms[sym], or the
// load order's symbol sym for ELF tables) so that nodes stay small.
type rbNode struct {
	left, right, parent int32
	red                 bool
	sym                 int32
	tie                 int32 // ELF tables: the tie the node stands for (build.go)
	start, end          uint64
}

type rbTree struct {
	n    []rbNode
	syms []Symbol
	root int32
	free []int32
	// ranked, when set, knows every symbol the tree will ever hold and
	// their order (see rankSet): inserts and in-order steps then need no
	// walk down or up the tree.
	ranked *rankSet
	rank   []int32 // by node: its rank, when ranked
}

func newRBTree() *rbTree { return &rbTree{root: nilNode} }

// sym returns node x's symbol.
func (t *rbTree) sym(x int32) *Symbol { return &t.syms[t.n[x].sym] }

// setEnd changes node x's symbol's end.
func (t *rbTree) setEnd(x int32, end uint64) {
	t.n[x].end = end
	t.syms[t.n[x].sym].End = end
}

// alloc makes a node for symbol k.
func (t *rbTree) alloc(k int32, start, end uint64) int32 {
	nd := rbNode{left: nilNode, right: nilNode, parent: nilNode, red: true, sym: k, start: start, end: end}
	if k := len(t.free); k > 0 {
		i := t.free[k-1]
		t.free = t.free[:k-1]
		t.n[i] = nd
		return i
	}
	t.n = append(t.n, nd)
	return int32(len(t.n) - 1)
}

// insert links s like __symbols__insert (equal keys go right) and
// rebalances like __rb_insert.
func (t *rbTree) insert(s Symbol) {
	t.syms = append(t.syms, s)
	x := t.alloc(int32(len(t.syms)-1), s.Start, s.End)
	p, link := int32(nilNode), &t.root
	for *link != nilNode {
		p = *link
		if s.Start < t.n[p].start {
			link = &t.n[p].left
		} else {
			link = &t.n[p].right
		}
	}
	t.n[x].parent = p
	*link = x
	t.insertFix(x)
}

func (t *rbTree) isRed(i int32) bool { return i != nilNode && t.n[i].red }

// replaceChild makes nw take old's place under parent p (or as root).
func (t *rbTree) replaceChild(old, nw, p int32) {
	if p == nilNode {
		t.root = nw
	} else if t.n[p].left == old {
		t.n[p].left = nw
	} else {
		t.n[p].right = nw
	}
}

// rotateSetParents mirrors __rb_rotate_set_parents: nw takes old's parent
// and colour; old becomes nw's child with colour red.
func (t *rbTree) rotateSetParents(old, nw int32, red bool) {
	p := t.n[old].parent
	t.n[nw].parent = p
	t.n[nw].red = t.n[old].red
	t.n[old].parent = nw
	t.n[old].red = red
	t.replaceChild(old, nw, p)
}

func (t *rbTree) insertFix(node int32) {
	parent := t.n[node].parent
	for {
		if parent == nilNode {
			t.n[node].red = false
			return
		}
		if !t.n[parent].red {
			return
		}
		g := t.n[parent].parent
		if tmp := t.n[g].right; parent != tmp {
			if t.isRed(tmp) {
				t.n[tmp].red, t.n[parent].red = false, false
				node = g
				parent = t.n[node].parent
				t.n[node].red = true
				continue
			}
			tmp = t.n[parent].right
			if node == tmp {
				tmp = t.n[node].left
				t.n[parent].right = tmp
				t.n[node].left = parent
				if tmp != nilNode {
					t.n[tmp].parent = parent
					t.n[tmp].red = false
				}
				t.n[parent].parent = node
				t.n[parent].red = true
				parent = node
				tmp = t.n[node].right
			}
			t.n[g].left = tmp
			t.n[parent].right = g
			if tmp != nilNode {
				t.n[tmp].parent = g
				t.n[tmp].red = false
			}
			t.rotateSetParents(g, parent, true)
			return
		} else {
			tmp = t.n[g].left
			if t.isRed(tmp) {
				t.n[tmp].red, t.n[parent].red = false, false
				node = g
				parent = t.n[node].parent
				t.n[node].red = true
				continue
			}
			tmp = t.n[parent].left
			if node == tmp {
				tmp = t.n[node].right
				t.n[parent].left = tmp
				t.n[node].right = parent
				if tmp != nilNode {
					t.n[tmp].parent = parent
					t.n[tmp].red = false
				}
				t.n[parent].parent = node
				t.n[parent].red = true
				parent = node
				tmp = t.n[node].left
			}
			t.n[g].right = tmp
			t.n[parent].left = g
			if tmp != nilNode {
				t.n[tmp].parent = g
				t.n[tmp].red = false
			}
			t.rotateSetParents(g, parent, true)
			return
		}
	}
}

// erase mirrors rb_erase (__rb_erase_augmented then ____rb_erase_color).
func (t *rbTree) erase(node int32) {
	nd := t.n[node]
	child, tmp := nd.right, nd.left
	var rebalance int32 = nilNode
	switch {
	case tmp == nilNode:
		p := nd.parent
		t.replaceChild(node, child, p)
		if child != nilNode {
			t.n[child].parent = p
			t.n[child].red = nd.red
		} else if !nd.red {
			rebalance = p
		}
	case child == nilNode:
		p := nd.parent
		t.n[tmp].parent = p
		t.n[tmp].red = nd.red
		t.replaceChild(node, tmp, p)
	default:
		successor, parent := child, int32(nilNode)
		var child2 int32
		tmp = t.n[child].left
		if tmp == nilNode {
			parent = successor
			child2 = t.n[successor].right
		} else {
			for {
				parent = successor
				successor = tmp
				tmp = t.n[tmp].left
				if tmp == nilNode {
					break
				}
			}
			child2 = t.n[successor].right
			t.n[parent].left = child2
			t.n[successor].right = child
			t.n[child].parent = successor
		}
		tmp = nd.left
		t.n[successor].left = tmp
		t.n[tmp].parent = successor
		p := nd.parent
		t.replaceChild(node, successor, p)
		succRed := t.n[successor].red
		if child2 != nilNode {
			t.n[child2].parent = parent
			t.n[child2].red = false
		} else if !succRed {
			rebalance = parent
		}
		t.n[successor].parent = p
		t.n[successor].red = nd.red
	}
	t.free = append(t.free, node)
	if t.ranked != nil {
		t.ranked.clear(t.rank[node])
	}
	if rebalance != nilNode {
		t.eraseColor(rebalance)
	}
}

func (t *rbTree) eraseColor(parent int32) {
	node := int32(nilNode)
	for {
		sibling := t.n[parent].right
		if node != sibling {
			if t.isRed(sibling) {
				tmp1 := t.n[sibling].left
				t.n[parent].right = tmp1
				t.n[sibling].left = parent
				t.n[tmp1].parent = parent
				t.n[tmp1].red = false
				t.rotateSetParents(parent, sibling, true)
				sibling = tmp1
			}
			tmp1 := t.n[sibling].right
			if !t.isRed(tmp1) {
				tmp2 := t.n[sibling].left
				if !t.isRed(tmp2) {
					t.n[sibling].red = true
					if t.n[parent].red {
						t.n[parent].red = false
					} else {
						node = parent
						parent = t.n[node].parent
						if parent != nilNode {
							continue
						}
					}
					return
				}
				tmp1 = t.n[tmp2].right
				t.n[sibling].left = tmp1
				t.n[tmp2].right = sibling
				t.n[parent].right = tmp2
				if tmp1 != nilNode {
					t.n[tmp1].parent = sibling
					t.n[tmp1].red = false
				}
				tmp1 = sibling
				sibling = tmp2
			}
			tmp2 := t.n[sibling].left
			t.n[parent].right = tmp2
			t.n[sibling].left = parent
			t.n[tmp1].parent = sibling
			t.n[tmp1].red = false
			if tmp2 != nilNode {
				t.n[tmp2].parent = parent
			}
			t.rotateSetParents(parent, sibling, false)
			return
		}
		sibling = t.n[parent].left
		if t.isRed(sibling) {
			tmp1 := t.n[sibling].right
			t.n[parent].left = tmp1
			t.n[sibling].right = parent
			t.n[tmp1].parent = parent
			t.n[tmp1].red = false
			t.rotateSetParents(parent, sibling, true)
			sibling = tmp1
		}
		tmp1 := t.n[sibling].left
		if !t.isRed(tmp1) {
			tmp2 := t.n[sibling].right
			if !t.isRed(tmp2) {
				t.n[sibling].red = true
				if t.n[parent].red {
					t.n[parent].red = false
				} else {
					node = parent
					parent = t.n[node].parent
					if parent != nilNode {
						continue
					}
				}
				return
			}
			tmp1 = t.n[tmp2].left
			t.n[sibling].right = tmp1
			t.n[tmp2].left = sibling
			t.n[parent].left = tmp2
			if tmp1 != nilNode {
				t.n[tmp1].parent = sibling
				t.n[tmp1].red = false
			}
			tmp1 = sibling
			sibling = tmp2
		}
		tmp2 := t.n[sibling].right
		t.n[parent].left = tmp2
		t.n[sibling].right = parent
		t.n[tmp1].parent = sibling
		t.n[tmp1].red = false
		if tmp2 != nilNode {
			t.n[tmp2].parent = parent
		}
		t.rotateSetParents(parent, sibling, false)
		return
	}
}

// first and next walk the tree in order.
func (t *rbTree) first() int32 {
	if t.ranked != nil {
		return t.ranked.next(-1)
	}
	x := t.root
	if x == nilNode {
		return nilNode
	}
	for t.n[x].left != nilNode {
		x = t.n[x].left
	}
	return x
}

func (t *rbTree) next(x int32) int32 {
	if t.ranked != nil {
		return t.ranked.next(t.rank[x])
	}
	if r := t.n[x].right; r != nilNode {
		x = r
		for t.n[x].left != nilNode {
			x = t.n[x].left
		}
		return x
	}
	for {
		p := t.n[x].parent
		if p == nilNode || t.n[p].left == x {
			return p
		}
		x = p
	}
}

// find mirrors symbols__find.
func (t *rbTree) find(ip uint64) int32 {
	x := t.root
	for x != nilNode {
		s := &t.n[x]
		if ip < s.start {
			x = t.n[x].left
		} else if ip > s.end || (ip == s.end && ip != s.start) {
			x = t.n[x].right
		} else {
			return x
		}
	}
	return nilNode
}

// insertRanked inserts s, of rank r among every symbol the tree will hold
// (see rankSet), where insert would: a new node becomes a leaf next to its
// in-order neighbours, as the right child of its predecessor when that
// has none, else as the left child of its successor (one of the two is
// always free, the other being its ancestor).
func (t *rbTree) insertRanked(k, r int32, start, end uint64) {
	x := t.alloc(k, start, end)
	if int(x) >= len(t.rank) {
		t.rank = append(t.rank, make([]int32, int(x)+1-len(t.rank))...)
	}
	t.rank[x] = r
	p := t.ranked.prev(r)
	switch {
	case p != nilNode && t.n[p].right == nilNode:
		t.n[p].right = x
		t.n[x].parent = p
	case p == nilNode && t.root == nilNode:
		t.root = x
	default:
		q := t.ranked.next(r)
		t.n[q].left = x
		t.n[x].parent = q
	}
	t.ranked.set(r, x)
	t.insertFix(x)
}

// rankSet holds the nodes present in a tree by their rank: their place
// in the order the tree keeps (by start, then by insertion). Ranks are
// known ahead when every symbol to be inserted is (perf's loading of one
// DSO), and the present ones are a bit set with a summary of its non-empty
// words: the in-order neighbours of a rank are found without touching the
// tree.
type rankSet struct {
	bits    []uint64
	summary []uint64 // bit w set: bits[w] != 0
	node    []int32  // by rank
}

func newRankSet(n int) *rankSet {
	w := (n + 63) / 64
	return &rankSet{bits: make([]uint64, w), summary: make([]uint64, (w+63)/64), node: make([]int32, n)}
}

func (s *rankSet) set(r, x int32) {
	s.node[r] = x
	s.bits[r/64] |= 1 << (r % 64)
	s.summary[r/4096] |= 1 << (r / 64 % 64)
}

func (s *rankSet) clear(r int32) {
	w := r / 64
	s.bits[w] &^= 1 << (r % 64)
	if s.bits[w] == 0 {
		s.summary[w/64] &^= 1 << (w % 64)
	}
}

// next returns the node of the smallest present rank above r (r may be
// -1), or nilNode.
func (s *rankSet) next(r int32) int32 {
	r++
	if int(r) >= len(s.node) {
		return nilNode
	}
	w := int(r / 64)
	if m := s.bits[w] >> (r % 64); m != 0 {
		return s.node[int(r)+bits.TrailingZeros64(m)]
	}
	// the next non-empty word, by the summary
	w++
	for sw := w / 64; sw < len(s.summary); sw++ {
		m := s.summary[sw]
		if sw == w/64 {
			m &^= 1<<(w%64) - 1
		}
		if m != 0 {
			w = sw*64 + bits.TrailingZeros64(m)
			return s.node[w*64+bits.TrailingZeros64(s.bits[w])]
		}
	}
	return nilNode
}

// prev returns the node of the largest present rank below r, or nilNode.
func (s *rankSet) prev(r int32) int32 {
	if r <= 0 {
		return nilNode
	}
	r--
	w := int(r / 64)
	if m := s.bits[w] << (63 - r%64); m != 0 {
		return s.node[int(r)-bits.LeadingZeros64(m)]
	}
	w--
	for sw := w / 64; w >= 0 && sw >= 0; sw-- {
		m := s.summary[sw]
		if sw == w/64 {
			m &= 1<<(w%64+1) - 1
		}
		if m != 0 {
			w = sw*64 + 63 - bits.LeadingZeros64(m)
			return s.node[w*64+63-bits.LeadingZeros64(s.bits[w])]
		}
	}
	return nilNode
}
