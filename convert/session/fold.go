package session

import (
	"math/bits"

	"github.com/perfpt/perfpt/convert/session/ptperf"
)

// foldConds is WalkBulk's loop for the conditional branches that fold
// into the batch's last run fr (Handler.FoldRuns: the timeline's), which
// ended in a conditional branch the walk took: while the current TNT
// packet has bits, no state is returned (pass) and the block at ip is a
// conditional branch in the walk's map, it walks the block and folds it
// into fr as the general loop does (End, NInsn, Flags, the queue's
// pending fall-through), without the general loop's checks for other
// kinds of blocks and packets. It stops before anything else (a block of
// another kind, code not in the graph, the bits run out, a fold that
// would not fit: fr.NInsn reaching 1<<31) and returns where the walk is
// (ip, the bits left), the instructions walked and whether the last
// block's branch was taken (held: its resolution is left to the next
// block, as in the general loop; unchanged when nothing was walked). The
// decoder learns the bits taken and the states passed (BulkWalk.Walked:
// what TookBit and Passing say block by block).
func (w *bulkWalker) foldConds(b *ptperf.BulkWalk, fr *Run, ip, payload uint64, count int, held bool) (uint64, uint64, int, uint64, bool) {
	n := uint64(fr.NInsn)
	n0, bits0, count0 := n, payload, count
	ip, payload, count, n, last, lastIP := condChain(w.bcc, w.lo, w.span, w.delta, ip, payload, count, n)
	k := count0 - count
	if k == 0 {
		return ip, payload, count, 0, held
	}
	end := lastIP + last.bytes
	fr.End, fr.NInsn, fr.Flags = end, uint32(n), last.flags
	rq := &w.q.rq
	rq.pendFT = end + uint64(last.in.Length)
	rq.folded += n - n0
	// The bits taken: a state passed at each taken branch, which takes
	// the sample time (after a bit); held says the last one was taken.
	taken := bits.OnesCount64(bits0 >> (64 - uint(k)))
	if taken < k {
		b.NotTaken = true
	}
	b.Walked(taken, taken != 0, true)
	return ip, payload, count, n - n0, int64(bits0<<(uint(k)-1)) < 0
}

// condChain is foldConds' loop, with few variables so that they stay in
// registers: from ip, with the TNT bits of payload and count, while the
// block there is a conditional branch in the map (lo, span; delta its
// code cache's offset from an address) and n, the instructions of the
// run it folds into, is below 1<<31. It returns where it stopped, the
// bits left, n with the blocks walked, and the last of them and its
// start (nil: none).
func condChain(cc *codeCache, lo, span, delta, ip, payload uint64, count int, n uint64) (uint64, uint64, int, uint64, *runEntry, uint64) {
	var last *runEntry
	var lastIP uint64
	for count != 0 && n < 1<<31 && ip-lo < span {
		e := cc.run(ip + delta)
		if e == nil || e.in.Branch != ptperf.BrConditional {
			break
		}
		n += e.cnt
		last, lastIP = e, ip
		// The fall-through, plus the displacement where the bit says
		// taken.
		ip += e.bytes + uint64(e.in.Length) + uint64(int64(e.in.Rel)&(int64(payload)>>63))
		payload <<= 1
		count--
	}
	return ip, payload, count, n, last, lastIP
}
