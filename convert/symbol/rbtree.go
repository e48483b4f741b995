package symbol

// perf keeps a DSO's symbols in a Linux red-black tree keyed by start
// address and searches it with symbols__find. When symbols overlap (a
// zero-sized _init extended over the PLT entries added later, say), the
// symbol found depends on the tree's shape, so the tree is rebuilt here with
// the same insertion and erase algorithm (lib/rbtree.c) to give the same
// answers.

const nilNode = -1

type rbNode struct {
	left, right, parent int32
	red                 bool
	sym                 Symbol
}

type rbTree struct {
	n    []rbNode
	root int32
	free []int32
}

func newRBTree() *rbTree { return &rbTree{root: nilNode} }

func (t *rbTree) alloc(s Symbol) int32 {
	nd := rbNode{left: nilNode, right: nilNode, parent: nilNode, red: true, sym: s}
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
	x := t.alloc(s)
	p, link := int32(nilNode), &t.root
	for *link != nilNode {
		p = *link
		if s.Start < t.n[p].sym.Start {
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
		s := &t.n[x].sym
		if ip < s.Start {
			x = t.n[x].left
		} else if ip > s.End || (ip == s.End && ip != s.Start) {
			x = t.n[x].right
		} else {
			return x
		}
	}
	return nilNode
}
