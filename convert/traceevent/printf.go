package traceevent

import (
	"math/bits"
	"slices"
	"strconv"
)

// spec is one C printf conversion as libtraceevent hands it to
// trace_seq_printf: flags, width, precision, the length modifier printf
// reads the argument with, and the conversion letter.
type spec struct {
	minus, plus, space, hash, zero bool
	width, prec                    int // -1: none
	starWidth, starPrec            bool
	bits                           int // bits printf reads for an integer: 8, 16, 32 or 64
	conv                           byte
}

// parseSpec parses a conversion such as "%-08.3lx" (the whole spec,
// starting with '%').
func parseSpec(s string) spec {
	sp := spec{width: -1, prec: -1, bits: 32}
	i := 1
	for ; i < len(s); i++ {
		switch s[i] {
		case '-':
			sp.minus = true
		case '+':
			sp.plus = true
		case ' ':
			sp.space = true
		case '#':
			sp.hash = true
		case '0':
			sp.zero = true
		default:
			goto width
		}
	}
width:
	if i < len(s) && s[i] == '*' {
		sp.starWidth = true
		i++
	} else {
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if sp.width < 0 {
				sp.width = 0
			}
			sp.width = sp.width*10 + int(s[i]-'0')
		}
	}
	if i < len(s) && s[i] == '.' {
		i++
		sp.prec = 0
		if i < len(s) && s[i] == '*' {
			sp.starPrec = true
			i++
		} else {
			for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
				sp.prec = sp.prec*10 + int(s[i]-'0')
			}
		}
	}
	h := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case 'h':
			h++
		case 'l', 'L', 'q', 'j', 'z', 'Z', 't':
			sp.bits = 64
		default:
			goto conv
		}
	}
conv:
	if sp.bits == 32 {
		switch h {
		case 1:
			sp.bits = 16
		case 2:
			sp.bits = 8
		}
	}
	if i < len(s) {
		sp.conv = s[i]
	}
	return sp
}

// narrow gives the bits of v that printf reads for the conversion,
// sign-extended for %d and %i.
func (sp *spec) narrow(v uint64) uint64 {
	signed := sp.conv == 'd' || sp.conv == 'i'
	switch sp.bits {
	case 8:
		v &= 0xff
		if signed {
			v = uint64(int64(int8(v)))
		}
	case 16:
		v &= 0xffff
		if signed {
			v = uint64(int64(int16(v)))
		}
	case 32:
		v &= 0xffffffff
		if signed {
			v = uint64(int64(int32(v)))
		}
	}
	return v
}

// plain reports whether the conversion has no flags, width or
// precision: an integer prints as its digits alone.
func (sp *spec) plain() bool {
	return sp.width < 0 && sp.prec < 0 && !sp.minus && !sp.plus && !sp.space && !sp.hash && !sp.zero
}

// withStar applies a '*' argument: it is the width, or the precision
// when the width is not a star.
func (sp spec) withStar(n int) spec {
	if sp.starWidth {
		if n < 0 {
			sp.minus = true
			n = -n
		}
		sp.width = n
	} else if sp.starPrec {
		if n < 0 {
			n = -1
		}
		sp.prec = n
	}
	return sp
}

func pad(b []byte, n int, c byte) []byte {
	for ; n > 0; n-- {
		b = append(b, c)
	}
	return b
}

// appendInt formats v (the argument as passed, 64 bits) like printf would
// with this integer conversion.
func (sp spec) appendInt(b []byte, v uint64) []byte {
	v = sp.narrow(v)
	if sp.plain() {
		// No flags, width or precision: the digits alone.
		switch sp.conv {
		case 'd', 'i':
			return strconv.AppendInt(b, int64(v), 10)
		case 'u':
			return strconv.AppendUint(b, v, 10)
		case 'x':
			return appendHex(b, v)
		}
	}
	var digits []byte
	var scratch [24]byte
	neg := false
	prefix := ""
	switch sp.conv {
	case 'd', 'i':
		x := int64(v)
		if x < 0 {
			neg = true
			digits = strconv.AppendUint(scratch[:0], uint64(-x), 10)
		} else {
			digits = strconv.AppendUint(scratch[:0], uint64(x), 10)
		}
		if neg {
			prefix = "-"
		} else if sp.plus {
			prefix = "+"
		} else if sp.space {
			prefix = " "
		}
	case 'u':
		digits = strconv.AppendUint(scratch[:0], v, 10)
	case 'x', 'X':
		digits = strconv.AppendUint(scratch[:0], v, 16)
		if sp.conv == 'X' {
			for i, c := range digits {
				if c >= 'a' {
					digits[i] = c - 'a' + 'A'
				}
			}
		}
		if sp.hash && v != 0 {
			prefix = "0x"
			if sp.conv == 'X' {
				prefix = "0X"
			}
		}
	case 'o':
		digits = strconv.AppendUint(scratch[:0], v, 8)
		if sp.hash && digits[0] != '0' {
			prefix = "0"
		}
	default:
		return b
	}
	if sp.prec == 0 && v == 0 {
		digits = digits[:0]
		if sp.conv == 'o' && sp.hash {
			digits = append(digits, '0')
		}
	}
	zeros := 0
	if sp.prec > len(digits) {
		zeros = sp.prec - len(digits)
	}
	n := len(prefix) + zeros + len(digits)
	padding := 0
	if sp.width > n {
		padding = sp.width - n
	}
	if sp.zero && !sp.minus && sp.prec < 0 {
		zeros += padding
		padding = 0
	}
	if !sp.minus {
		b = pad(b, padding, ' ')
	}
	b = append(b, prefix...)
	b = pad(b, zeros, '0')
	b = append(b, digits...)
	if sp.minus {
		b = pad(b, padding, ' ')
	}
	return b
}

// appendStr formats a C string (up to its NUL) with %s.
func appendStr[T ~string | ~[]byte](b []byte, sp spec, s T) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			s = s[:i]
			break
		}
	}
	if sp.prec >= 0 && len(s) > sp.prec {
		s = s[:sp.prec]
	}
	padding := 0
	if sp.width > len(s) {
		padding = sp.width - len(s)
	}
	if !sp.minus {
		b = pad(b, padding, ' ')
	}
	b = append(b, s...)
	if sp.minus {
		b = pad(b, padding, ' ')
	}
	return b
}

// appendHex appends v in lower-case hex digits (strconv.AppendUint(b, v,
// 16), which takes the general path for any base but 10). It counts the
// digits first and writes them in place two at a time: a syscall's
// arguments (sys_enter's "%lx" six times) are most of a raw_syscalls
// line.
func appendHex(b []byte, v uint64) []byte {
	n := 1
	if v != 0 {
		n = (bits.Len64(v) + 3) >> 2
	}
	l := len(b)
	b = slices.Grow(b, n)[:l+n]
	d := b[l:]
	i := n
	for i >= 2 {
		x := v & 0xff
		d[i-1], d[i-2] = hexPairs[2*x+1], hexPairs[2*x]
		v >>= 8
		i -= 2
	}
	if i == 1 {
		d[0] = "0123456789abcdef"[v&15]
	}
	return b
}

// hexPairs is the two hex digits of every byte, "00" to "ff".
const hexPairs = "" +
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f" +
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f" +
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f" +
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f" +
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf" +
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf" +
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
