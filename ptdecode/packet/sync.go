package packet

import "encoding/binary"

// The PSB payload as a little-endian 64-bit word, in both phases.
const (
	psbWordHiLo = 0x8202820282028202 // bytes 02 82 02 82 ...
	psbWordLoHi = 0x0282028202820282 // bytes 82 02 82 02 ...
)

// isPSB reports whether a complete PSB starts at buf[off].
func isPSB(buf []byte, off int) bool {
	if off < 0 || len(buf)-off < PSBSize {
		return false
	}
	for i := off; i < off+PSBSize; i += 2 {
		if buf[i] != opcExt || buf[i+1] != extPSB {
			return false
		}
	}
	return true
}

// findPSB locates the PSB around a word of PSB pattern found at pos: it walks
// to the end of the run of 02 82 pairs and steps back one PSB, as libipt's
// pt_find_psb does. It returns -1 when that is not a PSB.
func findPSB(buf []byte, pos int) int {
	if buf[pos] != opcExt {
		pos++
	}
	for pos+1 < len(buf) && buf[pos] == opcExt && buf[pos+1] == extPSB {
		pos += 2
	}
	pos -= PSBSize
	if !isPSB(buf, pos) {
		return -1
	}
	return pos
}

// SyncForward returns the offset of the first PSB at or after off. Like
// libipt (pt_sync_forward) it scans the buffer in 8-byte words aligned to
// the start of buf, so a PSB is found if any aligned word lies in its
// pattern, which always holds for a complete PSB. The error wraps ErrEOS
// when there is none.
func SyncForward(buf []byte, off int) (int, error) {
	if off < 0 || off > len(buf) {
		return 0, errAt(off, ErrEOS)
	}
	for pos := (off + 7) &^ 7; pos+8 <= len(buf); pos += 8 {
		w := binary.LittleEndian.Uint64(buf[pos:])
		if w != psbWordHiLo && w != psbWordLoHi {
			continue
		}
		if f := findPSB(buf, pos); f >= off {
			return f, nil
		}
	}
	return 0, errAt(len(buf), ErrEOS)
}

// SyncBackward returns the offset of the last PSB found scanning backwards
// from off (libipt's pt_sync_backward: aligned 8-byte words before off).
// The error wraps ErrEOS when there is none.
func SyncBackward(buf []byte, off int) (int, error) {
	if off < 0 || off > len(buf) {
		return 0, errAt(off, ErrEOS)
	}
	for pos := off&^7 - 8; pos >= 0; pos -= 8 {
		w := binary.LittleEndian.Uint64(buf[pos:])
		if w != psbWordHiLo && w != psbWordLoHi {
			continue
		}
		if f := findPSB(buf, pos); f >= 0 {
			return f, nil
		}
	}
	return 0, errAt(0, ErrEOS)
}

// PSBIndex appends to dst the offsets of all PSB packets of buf, in order,
// as found by successive forward synchronisation, and returns the extended
// slice. These are the points where decoding can start, for example to
// split a trace among workers.
func PSBIndex(dst []int, buf []byte) []int {
	off := 0
	for {
		f, err := SyncForward(buf, off)
		if err != nil {
			return dst
		}
		dst = append(dst, f)
		off = f + PSBSize
	}
}
