package ptagg

// blockRec is one distinct block executed under one call stack on one
// CPU, with its counts: 64 bytes, one cache line.
type blockRec struct {
	start, end uint64 // the block's first and last instruction
	// nc is the call-tree node and CPU, nodeCPU(node, cpu); 0 in the
	// unused record 0.
	nc       uint64
	insns    uint64 // the sum of Block.NInsn
	branches uint64 // taken branches
	nanos    uint64
	cycles   uint64 // CYC cycles
	// succ holds the records that last followed this one: [1] after a
	// conditional branch taken or a call, return or jump that changed the
	// frame, [0] else. The guess for the next run of the thread (0: none).
	succ [2]int32
}

func (r *blockRec) node() int32 { return int32(r.nc>>32) - 1 }
func (r *blockRec) cpu() int32  { return int32(uint32(r.nc)) }

// nodeCPU packs a call-tree node and a CPU (-1: unknown) into a key.
func nodeCPU(node, cpu int32) uint64 { return uint64(node+1)<<32 | uint64(uint32(cpu)) }

// The multipliers of recHash (also the assembly's).
const (
	hashMul1 = 0x9e3779b97f4a7c15
	hashMul2 = 0xbf58476d1ce4e5b9
)

// recTable holds the block records, keyed by (start, end, nc): the records
// themselves, dense (index 0 unused), and an open-addressed hash index of
// them (linear probing, at most half full), used only when the successor
// guess misses.
type recTable struct {
	recs  []blockRec
	slots []int32 // indexes in recs; 0: empty
	shift uint8   // 64 - log2(len(slots))
}

func newRecTable() recTable {
	const bits = 10
	return recTable{recs: make([]blockRec, 1, 1<<(bits-1)), slots: make([]int32, 1<<bits), shift: 64 - bits}
}

func recHash(start, nc uint64, shift uint8) uint64 {
	return ((start ^ nc*hashMul1) * hashMul2) >> shift
}

// recFind is recTable.find on the table's records, slots and shift.
func recFind(recs []blockRec, slots []int32, shift uint64, start, end, nc uint64) int32 {
	mask := uint64(len(slots) - 1)
	for i := recHash(start, nc, uint8(shift)); ; i = (i + 1) & mask {
		ri := slots[i]
		if ri == 0 {
			return 0
		}
		if r := &recs[ri]; r.start == start && r.nc == nc && r.end == end {
			return ri
		}
	}
}

// edgeFind is edgeTable.find on the table's slots and shift.
func edgeFind(slots []edge, shift uint64, from int32, site uint64) int32 {
	mask := uint64(len(slots) - 1)
	for i := recHash(site, uint64(from), uint8(shift)); ; i = (i + 1) & mask {
		e := &slots[i]
		if e.site == site && e.from == from+1 {
			return e.to
		}
		if e.from == 0 {
			return -1
		}
	}
}

// find returns the index of the record of (start, end, nc), or 0.
func (t *recTable) find(start, end, nc uint64) int32 {
	return recFind(t.recs, t.slots, uint64(t.shift), start, end, nc)
}

// insert adds a record of (start, end, nc), which is not in the table,
// and returns its index.
func (t *recTable) insert(start, end, nc uint64) int32 {
	if 2*len(t.recs) > len(t.slots) {
		t.slots = make([]int32, 2*len(t.slots))
		t.shift--
		for ri := 1; ri < len(t.recs); ri++ {
			t.put(int32(ri))
		}
	}
	t.recs = append(t.recs, blockRec{start: start, end: end, nc: nc})
	ri := int32(len(t.recs) - 1)
	t.put(ri)
	return ri
}

func (t *recTable) put(ri int32) {
	r := &t.recs[ri]
	mask := uint64(len(t.slots) - 1)
	for i := recHash(r.start, r.nc, t.shift); ; i = (i + 1) & mask {
		if t.slots[i] == 0 {
			t.slots[i] = ri
			return
		}
	}
}

// edgeTable maps (call-tree node, call site) to the node the call enters:
// the result of fold, which never changes once computed.
type edgeTable struct {
	slots []edge
	shift uint8
	n     int
}

type edge struct {
	site     uint64
	from, to int32 // from+1: 0 marks an empty slot
}

func newEdgeTable() edgeTable {
	const bits = 8
	return edgeTable{slots: make([]edge, 1<<bits), shift: 64 - bits}
}

// find returns the node entered by a call from site in node from, or -1.
func (t *edgeTable) find(from int32, site uint64) int32 {
	return edgeFind(t.slots, uint64(t.shift), from, site)
}

func (t *edgeTable) insert(from int32, site uint64, to int32) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		t.slots = make([]edge, 2*len(old))
		t.shift--
		for _, e := range old {
			if e.from != 0 {
				t.put(e)
			}
		}
	}
	t.n++
	t.put(edge{site: site, from: from + 1, to: to})
}

func (t *edgeTable) put(e edge) {
	mask := uint64(len(t.slots) - 1)
	for i := recHash(e.site, uint64(e.from-1), t.shift); ; i = (i + 1) & mask {
		if t.slots[i].from == 0 {
			t.slots[i] = e
			return
		}
	}
}
