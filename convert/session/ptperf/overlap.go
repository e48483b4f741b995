package ptperf

import (
	"bytes"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// FindOverlap mirrors intel_pt_find_overlap: when snapshots or samples of
// the AUX area are recorded, buffer b may repeat the end of buffer a. It
// returns where b's new data starts (len(b) when it has none: b must start
// at a PSB) and whether that data goes on from a's (consecutive). With
// haveTSC the PSB+ TSCs tell the overlap (intel_pt_find_overlap_tsc), else
// the bytes do.
func FindOverlap(a, b []byte, haveTSC bool) (int, bool) {
	i := bytes.Index(b, psbBytes)
	if i < 0 {
		return len(b), false // no PSB
	}
	b = b[i:]
	base := i
	j := bytes.Index(a, psbBytes)
	if j < 0 {
		return base, false
	}
	a = a[j:]
	if haveTSC {
		if start, cons, ok := overlapTSC(a, b); ok {
			return base + start, cons
		}
	}
	// b cannot end within a: ignore the start of a.
	for len(b) < len(a) {
		k := nextPSBAfter(a)
		if k < 0 {
			return base, false
		}
		a = a[k:]
	}
	for {
		if bytes.Contains(a, b[:len(a)]) {
			return base + adjForPadding(b, len(a), a), true
		}
		k := nextPSBAfter(a)
		if k < 0 {
			return base, false
		}
		a = a[k:]
	}
}

// nextPSBAfter is intel_pt_step_psb: the offset of the PSB after the one
// at buf[0], or -1.
func nextPSBAfter(buf []byte) int {
	if len(buf) == 0 {
		return -1
	}
	k := bytes.Index(buf[1:], psbBytes)
	if k < 0 {
		return -1
	}
	return k + 1
}

// nextTSCRem is nextTSC that also returns the bytes left from the TSC
// packet (intel_pt_next_tsc's rem).
func nextTSCRem(buf []byte) (uint64, int, bool) {
	for off := 0; off < len(buf); {
		var p packet.Packet
		if err := decodePacket(&p, buf[off:]); err != nil || p.Size == 0 {
			return 0, 0, false
		}
		switch p.Kind {
		case packet.KindTSC:
			return p.Payload, len(buf) - off, true
		case packet.KindPSBEnd:
			return 0, 0, false
		}
		off += int(p.Size)
	}
	return 0, 0, false
}

// tscCmp is intel_pt_tsc_cmp for 7-byte TSCs.
func tscCmp(t1, t2 uint64) int {
	const halfway = 1 << 55
	switch {
	case t1 == t2:
		return 0
	case t1 < t2:
		if t2-t1 < halfway {
			return -1
		}
		return 1
	default:
		if t1-t2 < halfway {
			return 1
		}
		return -1
	}
}

// maxPadding is PERF_AUXTRACE_RECORD_ALIGNMENT - 1: a's data may end with
// up to 7 bytes of padding.
const maxPadding = 7

// adjForPadding is adj_for_padding: where b's new data starts once it is
// known to follow a at b[at], moved back over padding a ends with that b
// repeats.
func adjForPadding(b []byte, at int, a []byte) int {
	p, q := at-maxPadding, len(a)-maxPadding
	if p < 0 || q < 0 {
		return at
	}
	i := maxPadding
	for ; i > 0; i, p, q = i-1, p+1, q+1 {
		if b[p] != a[q] {
			break
		}
	}
	return p
}

// overlapTSC is intel_pt_find_overlap_tsc (no out-of-order TSCs).
func overlapTSC(a, b []byte) (int, bool, bool) {
	p := bytes.LastIndex(a, psbBytes)
	if p < 0 {
		return 0, false, true
	}
	tscA, remA, ok := nextTSCRem(a[p:])
	if !ok {
		// The last PSB+ of a is incomplete: one more back.
		a = a[:p]
		if p = bytes.LastIndex(a, psbBytes); p < 0 {
			return 0, false, true
		}
		if tscA, remA, ok = nextTSCRem(a[p:]); !ok {
			return 0, false, true
		}
	}
	off := 0
	for {
		if tscB, remB, ok := nextTSCRem(b[off:]); ok {
			cmp := tscCmp(tscA, tscB)
			if cmp == 0 && remB >= remA {
				start := len(b) - (remB - remA)
				return adjForPadding(b, start, a), true, true
			}
			if cmp < 0 {
				return off, false, true
			}
		}
		k := nextPSBAfter(b[off:])
		if k < 0 {
			return len(b), false, true
		}
		off += k
	}
}
