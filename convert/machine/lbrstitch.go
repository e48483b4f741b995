package machine

import (
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/perfdata"
)

// lbrStitch is a thread's LBR stitching state (perf's struct lbr_stitch):
// the previous sample's branch stack, the chain entry each of its
// branches gave (prev_lbr_cursor), and the entries stitched so far.
type lbrStitch struct {
	havePrev   bool
	prev       []perfdata.BranchEntry
	prevHwIdx  uint64
	prevCursor []sample.Frame
	prevValid  []bool
	stitched   []sample.Frame // in chain order (perf's lbr_stitch->lists)
}

// LBRBranches is what LBRCallchain needs of a sample's branch stack: its
// entries, perf's entries[0] (which may lie past an empty stack), and
// hw_idx (HwIdx < 0: the stack has none, perf's no_hw_idx).
type LBRBranches struct {
	Entries []perfdata.BranchEntry
	First   *perfdata.BranchEntry
	HwIdx   int64
}

// stitchOf returns t's stitching state when perf would stitch its LBR
// stacks (lbr_stitch_enable, a stack with hw_idx and a known LBR depth),
// else nil.
func (m *Machine) stitchOf(t *Thread, b *LBRBranches) *lbrStitch {
	if !m.StitchLBR || m.MaxLBR <= 0 || b.HwIdx < 0 || t == nil {
		return nil
	}
	if t.lbr == nil {
		// alloc_lbr_stitch: max_lbr + 1 saved entries.
		t.lbr = &lbrStitch{prevCursor: make([]sample.Frame, m.MaxLBR+1), prevValid: make([]bool, m.MaxLBR+1)}
	}
	return t.lbr
}

// hasStitched is has_stitched_lbr: whether the current stack continues
// the previous one (the same branches in the same hardware registers,
// found from the base of the current stack), in which case the entries
// of the previous stack below the current one's base are added to the
// stitched entries (before those stitched earlier).
func (st *lbrStitch) hasStitched(cur *LBRBranches, maxLBR uint64) bool {
	if !st.havePrev {
		return false
	}
	prevNr := uint64(len(st.prev))
	curNr := uint64(len(cur.Entries))
	// The physical index of the current stack's base, and how far the
	// previous stack's top lies from it (u64 arithmetic, as perf's).
	curBase := maxLBR - curNr + uint64(cur.HwIdx) + 1
	var distance uint64
	if st.prevHwIdx > curBase {
		distance = st.prevHwIdx - curBase
	} else {
		distance = maxLBR + st.prevHwIdx - curBase
	}
	if distance+1 > prevNr {
		return false
	}
	identical := 0
	for i, j := int(distance), int(curNr)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
		p, c := &st.prev[i], &cur.Entries[j]
		if p.From != c.From || p.To != c.To || p.Flags != c.Flags {
			break
		}
		identical++
	}
	if identical == 0 {
		return false
	}
	var add []sample.Frame
	for i := int(prevNr) - 1; i > int(distance); i-- {
		if i < len(st.prevValid) && st.prevValid[i] {
			// list_add: each goes before the ones added before it.
			add = append(add, st.prevCursor[i])
		}
	}
	for l, r := 0, len(add)-1; l < r; l, r = l+1, r-1 {
		add[l], add[r] = add[r], add[l]
	}
	st.stitched = append(add, st.stitched...)
	return true
}

// remember keeps the current sample's stack as the previous one
// (perf's memcpy of prev_sample).
func (st *lbrStitch) remember(cur *LBRBranches) {
	st.havePrev = true
	st.prev = append(st.prev[:0], cur.Entries...)
	st.prevHwIdx = uint64(cur.HwIdx)
}
