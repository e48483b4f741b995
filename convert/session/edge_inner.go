package session

import "math/bits"

// aggInner is walkAgg's inner loop (walk): its state, in and out. The
// assembly reads it by the offsets of go_asm.h.
type aggInner struct {
	recs []aggRec
	// more holds the trace bytes after the current packet where the
	// loop may read more TNT-8 packets (and the PADs before them): up to
	// the end of the buffer or the decoder's stop position.
	more []byte
	ip   uint64
	// tnt holds the TNT bits left, the next one in bit 63, followed by
	// a 1 (1<<63: none left).
	tnt   uint64
	insns uint64
	// last is the record of the block walked last, which started at
	// lastIP; pending (1): it waits for its successor (a conditional
	// branch not taken).
	lastIP  uint64
	next    int32 // the record of the block at ip (0: unknown)
	last    int32
	ep      uint32
	pending uint32
	noProg  uint32 // 0 or 1: walkInsn's count of unconditional branches in a row
	// sstate is the decoder's sample-time state (BulkWalk.SampleState):
	// a bit was taken from the current TNT packet.
	sstate uint32

	// Out: the bytes of more used (used) and the TNT-8 packets read
	// there (refills), the last of them (lastTNT); the blocks walked, the
	// branch states passed (BulkWalk.Passing); whether the sample time
	// was taken (sampled: a packet read, or a state passed after a bit),
	// a TNT bit taken and a conditional branch not taken.
	used, refills  uint64
	walked, passed uint64
	lastTNT        uint32
	sampled        uint32
	tookBit        uint32
	notTaken       uint32

	// mid's (edge_mid.go), which reads TIP packets from more too, and
	// counts them in refills (lastTNT the last one's first byte): the
	// first byte of the packet before the last (prevC), the last TIP's
	// payload (tipPl) and whether one was read since the decoder was
	// synchronised (tips); the decoder's last IP (tipIP), and whether a
	// TIP's target passes (tipOK: BulkWalk.LastIP).
	tipIP, tipPl       uint64
	prevC, tips, tipOK uint32
}

// walkGo is the inner loop (aggInnerWalk's assembly is the same, step for
// step): it walks from s.ip as walkAgg does while the block there is a
// conditional branch with a TNT bit for it or a direct jump (the first
// of a row: no loop check) whose record the links know and is valid
// (links lead only to records walked in the map), and counts the blocks
// whose successor it walked. When the TNT bits run out it reads the next packet from s.more
// if that is a TNT-8 (after PADs), as BulkWalk.Next would. It stops
// before any other block or packet, leaving them to walkAgg.
func (s *aggInner) walkGo() {
	recs := s.recs
	ip, next, tnt, insns, noProg := s.ip, s.next, s.tnt, s.insns, s.noProg
	last, lastIP, pending := s.last, s.lastIP, s.pending
	more := s.more
	var used, refills, walked, passed uint64
	var lastTNT, sampled, tookBit, notTaken uint32
	sstate := s.sstate
	for next != 0 {
		if tnt == 1<<63 {
			// The next packet: a TNT-8 after PADs, or the loop ends.
			k := used
			for k < uint64(len(more)) && more[k] == 0 {
				k++
			}
			if k >= uint64(len(more)) {
				break
			}
			c := more[k]
			if c&1 != 0 || c == 2 {
				break
			}
			used, refills, lastTNT = k+1, refills+1, uint32(c)
			pl := uint64(c >> 1)
			n := uint(bits.Len64(pl) - 1)
			tnt = pl<<(64-n) | 1<<(63-n)
			sampled, sstate = 1, 0
		}
		// (Links lead to records, which stay in the map their block was
		// walked in while their epoch is current: the map's.)
		r := &recs[next]
		if r.epoch != s.ep {
			break
		}
		kind := r.kind
		ft := ip + uint64(r.ft)
		if kind != aggCond && (kind != aggJump || noProg != 0 || r.next[0] == 0) {
			break // (a jump's target may be in another map: not linked)
		}
		// Walked: the block before it went here.
		if pending != 0 {
			recs[last].insns += uint64(recs[last].cnt)
			pending = 0
		}
		walked++
		cnt := uint64(r.cnt)
		insns += cnt
		nx := r.next[0]
		to := ft + uint64(int64(r.rel))
		if kind == aggCond {
			noProg = 0
			tookBit, sstate = 1, 1
			bit := int64(tnt) < 0
			tnt <<= 1
			if !bit {
				notTaken, pending = 1, 1
				last, lastIP = next, ip
				ip, next = ft, nx
				continue
			}
			if to != ft {
				r.taken++
				nx = r.next[1]
			}
		} else {
			noProg = 1
			r.taken++
		}
		r.insns += cnt
		passed++
		sampled |= sstate
		last, lastIP = next, ip
		ip, next = to, nx
	}
	s.ip, s.next, s.tnt, s.insns, s.noProg = ip, next, tnt, insns, noProg
	s.last, s.lastIP, s.pending = last, lastIP, pending
	s.used, s.refills, s.walked, s.passed = used, refills, walked, passed
	s.lastTNT, s.sampled, s.tookBit, s.notTaken, s.sstate = lastTNT, sampled, tookBit, notTaken, sstate
}
