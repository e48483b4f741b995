// Package cnum reads numbers as C's strtol family does (glibc's
// ____strtol_l_internal and ____strtoul_l_internal in the C locale), for
// the places where perf, libtraceevent or a perf option parser hand text
// to strtol, strtoul or strtoull: how many bytes are taken, what a sign,
// a "0x" or a leading 0 means, what an overflow gives.
package cnum

import "math/bits"

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// digit is c's value as a digit of bases up to 36 (letters either case),
// or 36 and more when c is none.
func digit(c byte) uint64 {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0')
	case c >= 'a' && c <= 'z':
		return uint64(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return uint64(c-'A') + 10
	}
	return 36
}

// parse reads the number at the start of s in base (0, or 2 to 36): the
// magnitude (all ones once past 64 bits, over then set), whether a '-'
// came before it and how many bytes it took, 0 when no digit was read
// (C's end pointer is then s itself). Base 0 is 16 after "0x" or "0X",
// 8 after a leading 0, else 10; base 16 takes an optional "0x". A "0x"
// that no hex digit follows is the number 0 ending before the 'x'.
func parse(s string, base int) (mag uint64, neg bool, n int, over bool) {
	if base != 0 && (base < 2 || base > 36) {
		return 0, false, 0, false // glibc: EINVAL, nothing read
	}
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if (base == 0 || base == 16) && i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && digit(s[i+2]) < 16 {
		base = 16
		i += 2
	} else if base == 0 && i < len(s) && s[i] == '0' {
		base = 8
	} else if base == 0 {
		base = 10
	}
	b := uint64(base)
	start := i
	for ; i < len(s); i++ {
		d := digit(s[i])
		if d >= b {
			break
		}
		hi, lo := bits.Mul64(mag, b)
		v, carry := bits.Add64(lo, d, 0)
		if hi != 0 || carry != 0 {
			over = true
		}
		mag = v
	}
	if i == start {
		return 0, false, 0, false
	}
	if over {
		mag = ^uint64(0)
	}
	return mag, neg, i, over
}

// Strtoull is C's strtoull(s, &end, base) (and strtoul's, whose unsigned
// long has 64 bits): the value, how many bytes of s it took (end - s; 0
// when no digit was read) and whether C would set errno to ERANGE. A
// value past 64 bits is all ones, a '-' negates the rest modulo 2^64.
func Strtoull(s string, base int) (v uint64, n int, erange bool) {
	mag, neg, n, over := parse(s, base)
	switch {
	case over:
		return ^uint64(0), n, true
	case neg:
		return -mag, n, false
	}
	return mag, n, false
}

// Strtol is C's strtol(s, &end, base) with 64-bit long: the value,
// saturated at LONG_MAX or LONG_MIN (erange then set), and how many bytes
// of s it took (0 when no digit was read).
func Strtol(s string, base int) (v int64, n int, erange bool) {
	mag, neg, n, over := parse(s, base)
	switch {
	case neg && (over || mag > 1<<63):
		return -1 << 63, n, true
	case neg:
		return int64(-mag), n, false
	case over || mag > 1<<63-1:
		return 1<<63 - 1, n, true
	}
	return int64(mag), n, false
}

// Strtoul is C's strtoul(s, &end, base): Strtoull, unsigned long having
// 64 bits.
func Strtoul(s string, base int) (v uint64, n int, erange bool) { return Strtoull(s, base) }

// Whole reports whether C code that checks *end == '\0' after one of
// these calls accepts s: n, as returned, reaches its end, or s is empty
// (strtol of "" reads nothing and end points at the terminating NUL:
// perf's OPT_INTEGER and OPT_UINTEGER take "" as 0).
func Whole(s string, n int) bool { return n == len(s) }

// Uint is strtoull(s, &end, 0) as C code checking errno and *end == '\0'
// reads a whole argument (libipt's ptdump and ptxed): the value, and
// false when C refuses s (a byte left over, or ERANGE). Leading blanks,
// '+' and '-' (negating modulo 2^64) are taken; "" is 0.
func Uint(s string) (uint64, bool) {
	v, n, erange := Strtoull(s, 0)
	return v, !erange && n == len(s)
}

// Range reads the "begin[-end]" suffix of a file argument as libipt's
// ptdump and ptxed parse_range read it: parts is 0 for "", -1 when s is
// no range (the ':' before it is then part of the file name), 1 for a
// begin alone and 2 for begin and end. Each number is read by strtoull
// with base 0, so "-" alone is the range 0-0 and "5-" is 5-0.
func Range(s string) (begin, end uint64, parts int) {
	if s == "" {
		return 0, 0, 0
	}
	begin, n, erange := Strtoull(s, 0)
	switch {
	case erange:
		return 0, 0, -1
	case n == len(s):
		return begin, 0, 1
	case s[n] != '-':
		return 0, 0, -1
	}
	end, ok := Uint(s[n+1:])
	if !ok {
		return 0, 0, -1
	}
	return begin, end, 2
}
