// Package inflate decodes a zlib stream (RFC 1950 around RFC 1951's
// DEFLATE) whose decoded size is known in advance, into one buffer of
// that size: compressed ELF debug sections (SHF_COMPRESSED) give the
// size in their header. The output buffer is the sliding window, so
// nothing is copied out of a separate window, and bits are read 64 at a
// time; it decodes about twice as fast as compress/flate's streaming
// reader. Decoding can stop once a given prefix of the output is ready
// and go on later (Fill), so that a reader of the start of a section
// does not pay for the rest of it.
package inflate

import (
	"encoding/binary"
	"errors"
	"hash/adler32"
)

// Errors of a malformed stream.
var (
	ErrHeader    = errors.New("inflate: bad zlib header")
	ErrCorrupt   = errors.New("inflate: corrupt deflate stream")
	ErrTruncated = errors.New("inflate: stream ends early")
	ErrSize      = errors.New("inflate: stream does not decode to the stated size")
	ErrChecksum  = errors.New("inflate: adler-32 checksum mismatch")
)

const (
	litBits  = 10 // primary table bits for literals/lengths
	distBits = 8  // primary table bits for distances
	maxCodes = 288 + 32
)

// A decoding table entry: the code's length in bits 0-4, the number of
// extra bits that follow it in bits 8-11, what it means in the flags,
// and a value in bits 16-31 (a literal byte, the base of a length or a
// distance, a code-length symbol, or a subtable's start). An entry of no
// code has no flag.
const (
	entLit = 1 << 12 // a literal (or a code-length symbol)
	entLen = 1 << 13 // a length (in a literal/length table) or a distance
	entEOB = 1 << 14 // the end of the block
	entSub = 1 << 15 // a subtable: bits 0-4 the primary bits, 8-11 its bits
)

// Kinds of tables build makes.
const (
	kindLit = iota
	kindDist
	kindCodeLen
)

// Zlib decodes one zlib stream into a buffer of the size given to New.
type Zlib struct {
	in  []byte
	pos int    // next input byte
	buf uint64 // bit buffer, least significant bit first
	nb  uint   // bits in buf
	// over counts zero bytes fed past the end of the input.
	over int

	out []byte
	o   int // bytes decoded
	err error

	inBlock  bool
	final    bool
	stored   int // bytes left of a stored block, -1 in a Huffman block
	litTab   [1<<litBits + 2048]uint32
	distTab  [1<<distBits + 512]uint32
	checked  bool
	lens     [maxCodes]uint8
	fixedSet bool
}

// New prepares the decoding of the zlib stream in into a buffer of size
// bytes (made here: its contents are the prefix Fill reports).
func New(in []byte, size int) (*Zlib, error) {
	if len(in) < 2 || in[0]&0x0f != 8 || in[0]>>4 > 7 || (uint(in[0])<<8|uint(in[1]))%31 != 0 || in[1]&0x20 != 0 {
		return nil, ErrHeader
	}
	if size < 0 {
		return nil, ErrSize
	}
	return &Zlib{in: in, pos: 2, out: make([]byte, size)}, nil
}

// Fill decodes until at least want bytes of output are ready (or the
// stream ends) and returns the output decoded so far. The error is
// sticky: the prefix returned with it is all the stream gives.
func (z *Zlib) Fill(want int) ([]byte, error) {
	want = min(want, len(z.out))
	for z.o < want && z.err == nil {
		z.step(want)
	}
	if z.o == len(z.out) && z.err == nil && !z.checked {
		z.finish()
	}
	return z.out[:z.o], z.err
}

// Bytes returns the whole output (Fill of its size).
func (z *Zlib) Bytes() ([]byte, error) { return z.Fill(len(z.out)) }

// finish checks that the last block ended where the output does, and
// the checksum.
func (z *Zlib) finish() {
	z.checked = true
	for z.err == nil && (z.inBlock || !z.final) {
		// The output is full: the rest of the stream must be empty
		// blocks up to the final one.
		z.step(len(z.out) + 1)
	}
	if z.err != nil {
		return
	}
	// The checksum starts at the next byte boundary.
	z.align()
	var sum uint32
	for i := 0; i < 4; i++ {
		sum = sum<<8 | uint32(z.bits(8))
	}
	if z.overrun() {
		z.err = ErrTruncated
		return
	}
	if sum != adler32.Checksum(z.out) {
		z.err = ErrChecksum
	}
}

func (z *Zlib) fail(err error) {
	if z.err == nil {
		z.err = err
	}
}

// overrun reports whether more bits were taken than the input has.
func (z *Zlib) overrun() bool {
	return (z.pos+z.over)*8-int(z.nb) > len(z.in)*8
}

// refill tops the bit buffer up to at least 56 bits.
func (z *Zlib) refill() {
	if z.pos+8 <= len(z.in) {
		z.buf |= binary.LittleEndian.Uint64(z.in[z.pos:]) << z.nb
		z.pos += int(63-z.nb) >> 3
		z.nb |= 56
		return
	}
	for z.nb <= 56 {
		if z.pos < len(z.in) {
			z.buf |= uint64(z.in[z.pos]) << z.nb
			z.pos++
		} else {
			z.over++
		}
		z.nb += 8
	}
}

// bits takes n (<= 32) bits.
func (z *Zlib) bits(n uint) uint64 {
	if z.nb < n {
		z.refill()
	}
	v := z.buf & (1<<n - 1)
	z.buf >>= n
	z.nb -= n
	return v
}

// align drops the bits up to the next byte boundary.
func (z *Zlib) align() { z.bits(z.nb & 7) }

// step decodes a block header or part of a block, stopping once want
// bytes of output are ready.
func (z *Zlib) step(want int) {
	if z.over > 8 {
		z.fail(ErrTruncated)
		return
	}
	if !z.inBlock {
		if z.final {
			z.fail(ErrSize)
			return
		}
		z.final = z.bits(1) == 1
		switch z.bits(2) {
		case 0:
			z.align()
			n := z.bits(16)
			if z.bits(16) != n^0xffff {
				z.fail(ErrCorrupt)
				return
			}
			z.stored = int(n)
		case 1:
			z.stored = -1
			z.fixed()
		case 2:
			z.stored = -1
			z.dynamic()
		default:
			z.fail(ErrCorrupt)
		}
		if z.err == nil && z.over > 8 {
			z.fail(ErrTruncated)
		}
		z.inBlock = z.err == nil
		return
	}
	if z.stored >= 0 {
		z.copyStored(want)
		return
	}
	z.huffman(want)
}

// copyStored copies a stored block's bytes.
func (z *Zlib) copyStored(want int) {
	// Bytes still in the bit buffer come first.
	for z.stored > 0 && z.nb >= 8 {
		if z.o >= len(z.out) {
			z.fail(ErrSize)
			return
		}
		z.out[z.o] = byte(z.bits(8))
		z.o++
		z.stored--
	}
	if z.stored > 0 {
		// The buffer is empty; the bits above nb that a refill put
		// there are of the bytes copied now.
		z.buf = 0
	}
	n := min(z.stored, len(z.in)-z.pos, max(want-z.o, 0))
	if z.stored > 0 && n == 0 && z.pos >= len(z.in) {
		z.fail(ErrTruncated)
		return
	}
	if z.o+n > len(z.out) {
		z.fail(ErrSize)
		return
	}
	copy(z.out[z.o:], z.in[z.pos:z.pos+n])
	z.o += n
	z.pos += n
	z.stored -= n
	if z.stored == 0 {
		z.inBlock = false
	}
}

var (
	lenBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	dBase    = [30]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	dExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	clOrder  = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// fixed sets the tables of a fixed-Huffman block.
func (z *Zlib) fixed() {
	if z.fixedSet {
		return
	}
	var l [288 + 32]uint8
	for i := range 288 {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	for i := 288; i < 320; i++ {
		l[i] = 5
	}
	// Fixed codes are over-subscribed for none but incomplete for
	// neither; build them as usual.
	var ok bool
	if ok = build(z.litTab[:], l[:288], litBits, kindLit); !ok {
		z.fail(ErrCorrupt)
		return
	}
	if ok = build(z.distTab[:], l[288:], distBits, kindDist); !ok {
		z.fail(ErrCorrupt)
		return
	}
	z.fixedSet = true
}

// dynamic reads a dynamic-Huffman block's code lengths and sets its
// tables.
func (z *Zlib) dynamic() {
	z.fixedSet = false
	nlit := int(z.bits(5)) + 257
	ndist := int(z.bits(5)) + 1
	nclen := int(z.bits(4)) + 4
	if nlit > 286 || ndist > 30 {
		z.fail(ErrCorrupt)
		return
	}
	var cl [19]uint8
	for i := 0; i < nclen; i++ {
		cl[clOrder[i]] = uint8(z.bits(3))
	}
	var t [1 << 7]uint32
	ok := build(t[:], cl[:], 7, kindCodeLen)
	if !ok {
		z.fail(ErrCorrupt)
		return
	}
	lens := z.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		if z.nb < 16 {
			z.refill()
		}
		e := t[z.buf&(1<<7-1)]
		if e&entLit == 0 {
			z.fail(ErrCorrupt)
			return
		}
		n := uint(e & 31)
		z.buf >>= n
		z.nb -= n
		sym := e >> 16
		var rep int
		var v uint8
		switch {
		case sym < 16:
			lens[i] = uint8(sym)
			i++
			continue
		case sym == 16:
			if i == 0 {
				z.fail(ErrCorrupt)
				return
			}
			v, rep = lens[i-1], 3+int(z.bits(2))
		case sym == 17:
			rep = 3 + int(z.bits(3))
		default:
			rep = 11 + int(z.bits(7))
		}
		if i+rep > len(lens) {
			z.fail(ErrCorrupt)
			return
		}
		for ; rep > 0; rep-- {
			lens[i] = v
			i++
		}
	}
	if z.over > 8 {
		z.fail(ErrTruncated)
		return
	}
	if lens[256] == 0 {
		z.fail(ErrCorrupt)
		return
	}
	if ok = build(z.litTab[:], lens[:nlit], litBits, kindLit); !ok {
		z.fail(ErrCorrupt)
		return
	}
	if ok = build(z.distTab[:], lens[nlit:], distBits, kindDist); !ok {
		z.fail(ErrCorrupt)
	}
}

// build makes in tab the decoding table of the canonical Huffman code
// of the given code lengths: a primary table of 1<<bits entries indexed
// by the next bits of input, an entry per code (see entLit) or, for
// longer codes, an entSub entry pointing at a subtable after the primary
// one. ok is false for an over-subscribed or incomplete code (but one of
// a single code of length 1, and none at all, which compress/flate
// accepts for distances).
func build(tab []uint32, lens []uint8, bits uint, kind int) (ok bool) {
	var count [16]int
	maxLen := 0
	for _, l := range lens {
		count[l]++
		maxLen = max(maxLen, int(l))
	}
	count[0] = 0
	left := 1
	for l := 1; l <= 15; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return false
		}
	}
	if left != 0 && !(maxLen == 1 && count[1] == 1) && maxLen != 0 {
		return false
	}
	var next [16]int
	code := 0
	for l := 1; l <= 15; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	primary := 1 << bits
	// Subtable sizes: per primary prefix, the longest code under it.
	var subLen [1 << 10]uint8
	var codes [maxCodes]uint16
	for s, l := range lens {
		if l == 0 {
			continue
		}
		c := reverse(uint16(next[l]), uint(l))
		next[l]++
		codes[s] = c
		if uint(l) > bits {
			p := c & uint16(primary-1)
			subLen[p] = max(subLen[p], l-uint8(bits))
		}
	}
	size := primary
	var start [1 << 10]int
	for p := 0; p < primary; p++ {
		if subLen[p] > 0 {
			start[p] = size
			size += 1 << subLen[p]
		}
	}
	if size > len(tab) || size > 1<<16 {
		return false
	}
	tab = tab[:size]
	clear(tab)
	for p := 0; p < primary; p++ {
		if subLen[p] > 0 {
			tab[p] = entSub | uint32(start[p])<<16 | uint32(subLen[p])<<8 | uint32(bits)
		}
	}
	for s, l := range lens {
		if l == 0 {
			continue
		}
		c := int(codes[s])
		if uint(l) <= bits {
			e := entry(s, kind) | uint32(l)
			for i := c; i < primary; i += 1 << l {
				tab[i] = e
			}
			continue
		}
		p := c & (primary - 1)
		sl := int(l) - int(bits)
		e := entry(s, kind) | uint32(sl)
		for i := c >> bits; i < 1<<subLen[p]; i += 1 << sl {
			tab[start[p]+i] = e
		}
	}
	return true
}

// entry is the meaning of symbol s of a table of kind, as a table entry
// without the code length.
func entry(s, kind int) uint32 {
	switch kind {
	case kindLit:
		switch {
		case s < 256:
			return entLit | uint32(s)<<16
		case s == 256:
			return entEOB
		case s < 257+29:
			return entLen | uint32(lenBase[s-257])<<16 | uint32(lenExtra[s-257])<<8
		}
	case kindDist:
		if s < 30 {
			return entLen | dBase[s]<<16 | uint32(dExtra[s])<<8
		}
	case kindCodeLen:
		return entLit | uint32(s)<<16
	}
	return 0
}

func reverse(c uint16, n uint) uint16 {
	var r uint16
	for i := uint(0); i < n; i++ {
		r = r<<1 | c&1
		c >>= 1
	}
	return r
}

// huffman decodes a Huffman block's symbols until its end or until
// want bytes of output are ready.
func (z *Zlib) huffman(want int) {
	in, pos, buf, nb := z.in, z.pos, z.buf, z.nb
	out, o := z.out, z.o
	lt, dt := &z.litTab, &z.distTab
	const litMask, distMask = 1<<litBits - 1, 1<<distBits - 1
	defer func() { z.pos, z.buf, z.nb, z.o = pos, buf, nb, o }()
	// The fast loop: input for a refill of 8 bytes and room for the
	// longest match and its 8-byte overshoot, so that neither is checked
	// per symbol.
	fastOut := min(want, len(out)-258-8)
	fastIn := len(in) - 8
	for o < fastOut && pos <= fastIn {
		if nb < 48 {
			buf |= binary.LittleEndian.Uint64(in[pos:]) << nb
			pos += int(63-nb) >> 3
			nb |= 56
		}
		e := lt[buf&litMask]
		if e&entSub != 0 {
			buf >>= litBits
			nb -= litBits
			e = lt[(e>>16)+uint32(buf&(1<<(e>>8&15)-1))]
		}
		n := uint(e & 31)
		if e&entLit != 0 {
			buf >>= n
			nb -= n
			out[o] = byte(e >> 16)
			o++
			// A second literal without a refill: 56 bits minus
			// two codes of at most 15.
			e = lt[buf&litMask]
			if e&entLit == 0 || nb < 15 {
				continue
			}
			n = uint(e & 31)
			buf >>= n
			nb -= n
			out[o] = byte(e >> 16)
			o++
			continue
		}
		if e&entLen == 0 {
			if e&entEOB != 0 {
				buf >>= n
				nb -= n
				z.inBlock = false
				return
			}
			z.fail(ErrCorrupt)
			return
		}
		x := uint(e >> 8 & 15)
		length := int(e>>16) + int(buf>>n&(1<<x-1))
		n += x
		buf >>= n
		nb -= n
		e = dt[buf&distMask]
		if e&entSub != 0 {
			buf >>= distBits
			nb -= distBits
			e = dt[(e>>16)+uint32(buf&(1<<(e>>8&15)-1))]
		}
		if e&entLen == 0 {
			z.fail(ErrCorrupt)
			return
		}
		n = uint(e & 31)
		x = uint(e >> 8 & 15)
		d := int(e>>16) + int(buf>>n&(1<<x-1))
		n += x
		buf >>= n
		nb -= n
		if d > o {
			z.fail(ErrCorrupt)
			return
		}
		src := o - d
		if d >= 8 {
			for i := 0; i < length; i += 8 {
				binary.LittleEndian.PutUint64(out[o+i:], binary.LittleEndian.Uint64(out[src+i:]))
			}
		} else {
			for i := 0; i < length; i++ {
				out[o+i] = out[src+i]
			}
		}
		o += length
	}
	// The slow loop: the last bytes of input or output.
	for o < want {
		// 48 bits cover a length code with its extra bits and a
		// distance code with its extra bits.
		if nb < 48 {
			if pos+8 <= len(in) {
				buf |= binary.LittleEndian.Uint64(in[pos:]) << nb
				pos += int(63-nb) >> 3
				nb |= 56
			} else {
				z.pos, z.buf, z.nb = pos, buf, nb
				z.refill()
				pos, buf, nb = z.pos, z.buf, z.nb
				if z.over > 8 {
					z.fail(ErrTruncated)
					return
				}
			}
		}
		e := lt[buf&litMask]
		if e&entSub != 0 {
			buf >>= litBits
			nb -= litBits
			e = lt[(e>>16)+uint32(buf&(1<<(e>>8&15)-1))]
		}
		n := uint(e & 31)
		if e&entLit != 0 {
			buf >>= n
			nb -= n
			if o >= len(out) {
				z.fail(ErrSize)
				return
			}
			out[o] = byte(e >> 16)
			o++
			continue
		}
		if e&entLen == 0 {
			if e&entEOB != 0 {
				buf >>= n
				nb -= n
				z.inBlock = false
				return
			}
			z.fail(ErrCorrupt)
			return
		}
		x := uint(e >> 8 & 15)
		length := int(e>>16) + int(buf>>n&(1<<x-1))
		n += x
		buf >>= n
		nb -= n
		e = dt[buf&distMask]
		if e&entSub != 0 {
			buf >>= distBits
			nb -= distBits
			e = dt[(e>>16)+uint32(buf&(1<<(e>>8&15)-1))]
		}
		if e&entLen == 0 {
			z.fail(ErrCorrupt)
			return
		}
		n = uint(e & 31)
		x = uint(e >> 8 & 15)
		d := int(e>>16) + int(buf>>n&(1<<x-1))
		n += x
		buf >>= n
		nb -= n
		if d > o {
			z.fail(ErrCorrupt)
			return
		}
		if o+length > len(out) {
			z.fail(ErrSize)
			return
		}
		src := o - d
		switch {
		case d >= 8 && o+length+8 <= len(out):
			// Eight bytes at a time, overshooting into bytes
			// written later.
			for i := 0; i < length; i += 8 {
				binary.LittleEndian.PutUint64(out[o+i:], binary.LittleEndian.Uint64(out[src+i:]))
			}
		case d >= length:
			copy(out[o:o+length], out[src:src+length])
		default:
			for i := 0; i < length; i++ {
				out[o+i] = out[src+i]
			}
		}
		o += length
	}
}
