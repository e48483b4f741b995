package ptperf

// Straight runs. With every instruction sampled (a period of one
// instruction, perf's --itrace=i0ns or i1i), each instruction that is not
// a branch is a state of its own: Type TypeInstruction, FromIP its
// address, no packet read, nothing changed but the instruction counts and
// the IP. A StraightWalker walks such a run of instructions at once and
// delivers their samples itself; the decoder then walks the branch (or
// the instruction it cannot read) that ends the run as it would have
// (walkInsn), and returns its state.
//
// The states skipped are the ones Decode would have returned with the
// same Timestamp as the state before them (walkStraight checks it), in
// sequence between that state and the one returned, so that the session
// sees the same samples in the same order (StraightWalker.WalkStraight
// says when its side allows it).

// A StraightWalker walks straight-line code for a decoder that samples
// every instruction.
type StraightWalker interface {
	// WalkStraight walks the instructions from ip that are not
	// branches, stopping before the first branch, the first instruction
	// it cannot read, or wherever it chooses, and delivers an
	// instruction sample for each (the states' Timestamp is ts, and
	// TotInsnCnt tot+1, tot+2 and so on). It
	// returns how many it walked and the address after them; 0 walks
	// none (the states are then returned one by one).
	WalkStraight(ip, ts, tot uint64) (n, next uint64)
}

// walkStraight hands the run of non-branch instructions at d.ip to the
// StraightWalker, and does for the decoder what the states skipped would
// have done (walkInsn's count, Decode's sample time).
func (d *Decoder) walkStraight() {
	ts := d.sampleTimestamp
	upd := sampleTime(d.pktState)
	if upd {
		ts = d.timestamp // what Decode would set for the first state skipped
	}
	if ts != d.state.Timestamp || d.state.ToNR {
		return
	}
	n, next := d.straightW.WalkStraight(d.ip, ts, d.totInsnCnt)
	if n == 0 {
		return
	}
	d.addInsns(n)
	d.ip = next
	d.noProgress = 0
	d.periodInsnCnt = 0 // the last one skipped was sampled (sampleInsn)
	if upd {
		d.updateSampleTime()
	}
}
