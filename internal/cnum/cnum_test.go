package cnum

import (
	"math/big"
	"strings"
	"testing"
)

// cCases are strtoull(s, &end, base) and strtol(s, &end, base) as glibc
// 2.36 answers them (printed by a C program calling them): the value, end
// - s and whether errno was ERANGE, unsigned then signed.
var cCases = []struct {
	base   int
	s      string
	u      uint64
	un     int
	uRange bool
	l      int64
	ln     int
	lRange bool
}{
	{0, "", 0, 0, false, 0, 0, false},
	{8, "", 0, 0, false, 0, 0, false},
	{10, "", 0, 0, false, 0, 0, false},
	{16, "", 0, 0, false, 0, 0, false},
	{36, "", 0, 0, false, 0, 0, false},
	{2, "", 0, 0, false, 0, 0, false},
	{0, " ", 0, 0, false, 0, 0, false},
	{8, " ", 0, 0, false, 0, 0, false},
	{10, " ", 0, 0, false, 0, 0, false},
	{16, " ", 0, 0, false, 0, 0, false},
	{36, " ", 0, 0, false, 0, 0, false},
	{2, " ", 0, 0, false, 0, 0, false},
	{0, "0", 0, 1, false, 0, 1, false},
	{8, "0", 0, 1, false, 0, 1, false},
	{10, "0", 0, 1, false, 0, 1, false},
	{16, "0", 0, 1, false, 0, 1, false},
	{36, "0", 0, 1, false, 0, 1, false},
	{2, "0", 0, 1, false, 0, 1, false},
	{0, "-0", 0, 2, false, 0, 2, false},
	{8, "-0", 0, 2, false, 0, 2, false},
	{10, "-0", 0, 2, false, 0, 2, false},
	{16, "-0", 0, 2, false, 0, 2, false},
	{36, "-0", 0, 2, false, 0, 2, false},
	{2, "-0", 0, 2, false, 0, 2, false},
	{0, "+0", 0, 2, false, 0, 2, false},
	{8, "+0", 0, 2, false, 0, 2, false},
	{10, "+0", 0, 2, false, 0, 2, false},
	{16, "+0", 0, 2, false, 0, 2, false},
	{36, "+0", 0, 2, false, 0, 2, false},
	{2, "+0", 0, 2, false, 0, 2, false},
	{0, "12", 0xc, 2, false, 12, 2, false},
	{8, "12", 0xa, 2, false, 10, 2, false},
	{10, "12", 0xc, 2, false, 12, 2, false},
	{16, "12", 0x12, 2, false, 18, 2, false},
	{36, "12", 0x26, 2, false, 38, 2, false},
	{2, "12", 0x1, 1, false, 1, 1, false},
	{0, " \x09\x0a\x0b\x0c\x0d42x", 0x2a, 8, false, 42, 8, false},
	{8, " \x09\x0a\x0b\x0c\x0d42x", 0x22, 8, false, 34, 8, false},
	{10, " \x09\x0a\x0b\x0c\x0d42x", 0x2a, 8, false, 42, 8, false},
	{16, " \x09\x0a\x0b\x0c\x0d42x", 0x42, 8, false, 66, 8, false},
	{36, " \x09\x0a\x0b\x0c\x0d42x", 0x14a9, 9, false, 5289, 9, false},
	{2, " \x09\x0a\x0b\x0c\x0d42x", 0, 0, false, 0, 0, false},
	{0, "-12", 0xfffffffffffffff4, 3, false, -12, 3, false},
	{8, "-12", 0xfffffffffffffff6, 3, false, -10, 3, false},
	{10, "-12", 0xfffffffffffffff4, 3, false, -12, 3, false},
	{16, "-12", 0xffffffffffffffee, 3, false, -18, 3, false},
	{36, "-12", 0xffffffffffffffda, 3, false, -38, 3, false},
	{2, "-12", 0xffffffffffffffff, 2, false, -1, 2, false},
	{0, "+-1", 0, 0, false, 0, 0, false},
	{8, "+-1", 0, 0, false, 0, 0, false},
	{10, "+-1", 0, 0, false, 0, 0, false},
	{16, "+-1", 0, 0, false, 0, 0, false},
	{36, "+-1", 0, 0, false, 0, 0, false},
	{2, "+-1", 0, 0, false, 0, 0, false},
	{0, "--1", 0, 0, false, 0, 0, false},
	{8, "--1", 0, 0, false, 0, 0, false},
	{10, "--1", 0, 0, false, 0, 0, false},
	{16, "--1", 0, 0, false, 0, 0, false},
	{36, "--1", 0, 0, false, 0, 0, false},
	{2, "--1", 0, 0, false, 0, 0, false},
	{0, "0x", 0, 1, false, 0, 1, false},
	{8, "0x", 0, 1, false, 0, 1, false},
	{10, "0x", 0, 1, false, 0, 1, false},
	{16, "0x", 0, 1, false, 0, 1, false},
	{36, "0x", 0x21, 2, false, 33, 2, false},
	{2, "0x", 0, 1, false, 0, 1, false},
	{0, "0x1f", 0x1f, 4, false, 31, 4, false},
	{8, "0x1f", 0, 1, false, 0, 1, false},
	{10, "0x1f", 0, 1, false, 0, 1, false},
	{16, "0x1f", 0x1f, 4, false, 31, 4, false},
	{36, "0x1f", 0xa743, 4, false, 42819, 4, false},
	{2, "0x1f", 0, 1, false, 0, 1, false},
	{0, "0X1F", 0x1f, 4, false, 31, 4, false},
	{8, "0X1F", 0, 1, false, 0, 1, false},
	{10, "0X1F", 0, 1, false, 0, 1, false},
	{16, "0X1F", 0x1f, 4, false, 31, 4, false},
	{36, "0X1F", 0xa743, 4, false, 42819, 4, false},
	{2, "0X1F", 0, 1, false, 0, 1, false},
	{0, "0xg", 0, 1, false, 0, 1, false},
	{8, "0xg", 0, 1, false, 0, 1, false},
	{10, "0xg", 0, 1, false, 0, 1, false},
	{16, "0xg", 0, 1, false, 0, 1, false},
	{36, "0xg", 0x4b4, 3, false, 1204, 3, false},
	{2, "0xg", 0, 1, false, 0, 1, false},
	{0, "0x 1", 0, 1, false, 0, 1, false},
	{8, "0x 1", 0, 1, false, 0, 1, false},
	{10, "0x 1", 0, 1, false, 0, 1, false},
	{16, "0x 1", 0, 1, false, 0, 1, false},
	{36, "0x 1", 0x21, 2, false, 33, 2, false},
	{2, "0x 1", 0, 1, false, 0, 1, false},
	{0, "017", 0xf, 3, false, 15, 3, false},
	{8, "017", 0xf, 3, false, 15, 3, false},
	{10, "017", 0x11, 3, false, 17, 3, false},
	{16, "017", 0x17, 3, false, 23, 3, false},
	{36, "017", 0x2b, 3, false, 43, 3, false},
	{2, "017", 0x1, 2, false, 1, 2, false},
	{0, "019", 0x1, 2, false, 1, 2, false},
	{8, "019", 0x1, 2, false, 1, 2, false},
	{10, "019", 0x13, 3, false, 19, 3, false},
	{16, "019", 0x19, 3, false, 25, 3, false},
	{36, "019", 0x2d, 3, false, 45, 3, false},
	{2, "019", 0x1, 2, false, 1, 2, false},
	{0, "08", 0, 1, false, 0, 1, false},
	{8, "08", 0, 1, false, 0, 1, false},
	{10, "08", 0x8, 2, false, 8, 2, false},
	{16, "08", 0x8, 2, false, 8, 2, false},
	{36, "08", 0x8, 2, false, 8, 2, false},
	{2, "08", 0, 1, false, 0, 1, false},
	{0, "0", 0, 1, false, 0, 1, false},
	{8, "0", 0, 1, false, 0, 1, false},
	{10, "0", 0, 1, false, 0, 1, false},
	{16, "0", 0, 1, false, 0, 1, false},
	{36, "0", 0, 1, false, 0, 1, false},
	{2, "0", 0, 1, false, 0, 1, false},
	{0, "00x1", 0, 2, false, 0, 2, false},
	{8, "00x1", 0, 2, false, 0, 2, false},
	{10, "00x1", 0, 2, false, 0, 2, false},
	{16, "00x1", 0, 2, false, 0, 2, false},
	{36, "00x1", 0x4a5, 4, false, 1189, 4, false},
	{2, "00x1", 0, 2, false, 0, 2, false},
	{0, "18446744073709551615", 0xffffffffffffffff, 20, false, 9223372036854775807, 20, true},
	{8, "18446744073709551615", 0x1, 1, false, 1, 1, false},
	{10, "18446744073709551615", 0xffffffffffffffff, 20, false, 9223372036854775807, 20, true},
	{16, "18446744073709551615", 0xffffffffffffffff, 20, true, 9223372036854775807, 20, true},
	{36, "18446744073709551615", 0xffffffffffffffff, 20, true, 9223372036854775807, 20, true},
	{2, "18446744073709551615", 0x1, 1, false, 1, 1, false},
	{0, "18446744073709551616", 0xffffffffffffffff, 20, true, 9223372036854775807, 20, true},
	{8, "18446744073709551616", 0x1, 1, false, 1, 1, false},
	{10, "18446744073709551616", 0xffffffffffffffff, 20, true, 9223372036854775807, 20, true},
	{16, "18446744073709551616", 0xffffffffffffffff, 20, true, 9223372036854775807, 20, true},
	{36, "18446744073709551616", 0xffffffffffffffff, 20, true, 9223372036854775807, 20, true},
	{2, "18446744073709551616", 0x1, 1, false, 1, 1, false},
	{0, "-18446744073709551615", 0x1, 21, false, -1 << 63, 21, true},
	{8, "-18446744073709551615", 0xffffffffffffffff, 2, false, -1, 2, false},
	{10, "-18446744073709551615", 0x1, 21, false, -1 << 63, 21, true},
	{16, "-18446744073709551615", 0xffffffffffffffff, 21, true, -1 << 63, 21, true},
	{36, "-18446744073709551615", 0xffffffffffffffff, 21, true, -1 << 63, 21, true},
	{2, "-18446744073709551615", 0xffffffffffffffff, 2, false, -1, 2, false},
	{0, "-18446744073709551616", 0xffffffffffffffff, 21, true, -1 << 63, 21, true},
	{8, "-18446744073709551616", 0xffffffffffffffff, 2, false, -1, 2, false},
	{10, "-18446744073709551616", 0xffffffffffffffff, 21, true, -1 << 63, 21, true},
	{16, "-18446744073709551616", 0xffffffffffffffff, 21, true, -1 << 63, 21, true},
	{36, "-18446744073709551616", 0xffffffffffffffff, 21, true, -1 << 63, 21, true},
	{2, "-18446744073709551616", 0xffffffffffffffff, 2, false, -1, 2, false},
	{0, "9223372036854775807", 0x7fffffffffffffff, 19, false, 9223372036854775807, 19, false},
	{8, "9223372036854775807", 0, 0, false, 0, 0, false},
	{10, "9223372036854775807", 0x7fffffffffffffff, 19, false, 9223372036854775807, 19, false},
	{16, "9223372036854775807", 0xffffffffffffffff, 19, true, 9223372036854775807, 19, true},
	{36, "9223372036854775807", 0xffffffffffffffff, 19, true, 9223372036854775807, 19, true},
	{2, "9223372036854775807", 0, 0, false, 0, 0, false},
	{0, "9223372036854775808", 0x8000000000000000, 19, false, 9223372036854775807, 19, true},
	{8, "9223372036854775808", 0, 0, false, 0, 0, false},
	{10, "9223372036854775808", 0x8000000000000000, 19, false, 9223372036854775807, 19, true},
	{16, "9223372036854775808", 0xffffffffffffffff, 19, true, 9223372036854775807, 19, true},
	{36, "9223372036854775808", 0xffffffffffffffff, 19, true, 9223372036854775807, 19, true},
	{2, "9223372036854775808", 0, 0, false, 0, 0, false},
	{0, "-9223372036854775808", 0x8000000000000000, 20, false, -1 << 63, 20, false},
	{8, "-9223372036854775808", 0, 0, false, 0, 0, false},
	{10, "-9223372036854775808", 0x8000000000000000, 20, false, -1 << 63, 20, false},
	{16, "-9223372036854775808", 0xffffffffffffffff, 20, true, -1 << 63, 20, true},
	{36, "-9223372036854775808", 0xffffffffffffffff, 20, true, -1 << 63, 20, true},
	{2, "-9223372036854775808", 0, 0, false, 0, 0, false},
	{0, "-9223372036854775809", 0x7fffffffffffffff, 20, false, -1 << 63, 20, true},
	{8, "-9223372036854775809", 0, 0, false, 0, 0, false},
	{10, "-9223372036854775809", 0x7fffffffffffffff, 20, false, -1 << 63, 20, true},
	{16, "-9223372036854775809", 0xffffffffffffffff, 20, true, -1 << 63, 20, true},
	{36, "-9223372036854775809", 0xffffffffffffffff, 20, true, -1 << 63, 20, true},
	{2, "-9223372036854775809", 0, 0, false, 0, 0, false},
	{0, "99999999999999999999999", 0xffffffffffffffff, 23, true, 9223372036854775807, 23, true},
	{8, "99999999999999999999999", 0, 0, false, 0, 0, false},
	{10, "99999999999999999999999", 0xffffffffffffffff, 23, true, 9223372036854775807, 23, true},
	{16, "99999999999999999999999", 0xffffffffffffffff, 23, true, 9223372036854775807, 23, true},
	{36, "99999999999999999999999", 0xffffffffffffffff, 23, true, 9223372036854775807, 23, true},
	{2, "99999999999999999999999", 0, 0, false, 0, 0, false},
	{0, "-99999999999999999999999", 0xffffffffffffffff, 24, true, -1 << 63, 24, true},
	{8, "-99999999999999999999999", 0, 0, false, 0, 0, false},
	{10, "-99999999999999999999999", 0xffffffffffffffff, 24, true, -1 << 63, 24, true},
	{16, "-99999999999999999999999", 0xffffffffffffffff, 24, true, -1 << 63, 24, true},
	{36, "-99999999999999999999999", 0xffffffffffffffff, 24, true, -1 << 63, 24, true},
	{2, "-99999999999999999999999", 0, 0, false, 0, 0, false},
	{0, "0xffffffffffffffff", 0xffffffffffffffff, 18, false, 9223372036854775807, 18, true},
	{8, "0xffffffffffffffff", 0, 1, false, 0, 1, false},
	{10, "0xffffffffffffffff", 0, 1, false, 0, 1, false},
	{16, "0xffffffffffffffff", 0xffffffffffffffff, 18, false, 9223372036854775807, 18, true},
	{36, "0xffffffffffffffff", 0xffffffffffffffff, 18, true, 9223372036854775807, 18, true},
	{2, "0xffffffffffffffff", 0, 1, false, 0, 1, false},
	{0, "0x10000000000000000", 0xffffffffffffffff, 19, true, 9223372036854775807, 19, true},
	{8, "0x10000000000000000", 0, 1, false, 0, 1, false},
	{10, "0x10000000000000000", 0, 1, false, 0, 1, false},
	{16, "0x10000000000000000", 0xffffffffffffffff, 19, true, 9223372036854775807, 19, true},
	{36, "0x10000000000000000", 0xffffffffffffffff, 19, true, 9223372036854775807, 19, true},
	{2, "0x10000000000000000", 0, 1, false, 0, 1, false},
	{0, "-0x1", 0xffffffffffffffff, 4, false, -1, 4, false},
	{8, "-0x1", 0, 2, false, 0, 2, false},
	{10, "-0x1", 0, 2, false, 0, 2, false},
	{16, "-0x1", 0xffffffffffffffff, 4, false, -1, 4, false},
	{36, "-0x1", 0xfffffffffffffb5b, 4, false, -1189, 4, false},
	{2, "-0x1", 0, 2, false, 0, 2, false},
	{0, " -0x8000000000000000", 0x8000000000000000, 20, false, -1 << 63, 20, false},
	{8, " -0x8000000000000000", 0, 3, false, 0, 3, false},
	{10, " -0x8000000000000000", 0, 3, false, 0, 3, false},
	{16, " -0x8000000000000000", 0x8000000000000000, 20, false, -1 << 63, 20, false},
	{36, " -0x8000000000000000", 0xffffffffffffffff, 20, true, -1 << 63, 20, true},
	{2, " -0x8000000000000000", 0, 3, false, 0, 3, false},
	{0, "0x7fffffffffffffff", 0x7fffffffffffffff, 18, false, 9223372036854775807, 18, false},
	{8, "0x7fffffffffffffff", 0, 1, false, 0, 1, false},
	{10, "0x7fffffffffffffff", 0, 1, false, 0, 1, false},
	{16, "0x7fffffffffffffff", 0x7fffffffffffffff, 18, false, 9223372036854775807, 18, false},
	{36, "0x7fffffffffffffff", 0xffffffffffffffff, 18, true, 9223372036854775807, 18, true},
	{2, "0x7fffffffffffffff", 0, 1, false, 0, 1, false},
	{0, "0x8000000000000000", 0x8000000000000000, 18, false, 9223372036854775807, 18, true},
	{8, "0x8000000000000000", 0, 1, false, 0, 1, false},
	{10, "0x8000000000000000", 0, 1, false, 0, 1, false},
	{16, "0x8000000000000000", 0x8000000000000000, 18, false, 9223372036854775807, 18, true},
	{36, "0x8000000000000000", 0xffffffffffffffff, 18, true, 9223372036854775807, 18, true},
	{2, "0x8000000000000000", 0, 1, false, 0, 1, false},
	{0, "-0x8000000000000001", 0x7fffffffffffffff, 19, false, -1 << 63, 19, true},
	{8, "-0x8000000000000001", 0, 2, false, 0, 2, false},
	{10, "-0x8000000000000001", 0, 2, false, 0, 2, false},
	{16, "-0x8000000000000001", 0x7fffffffffffffff, 19, false, -1 << 63, 19, true},
	{36, "-0x8000000000000001", 0xffffffffffffffff, 19, true, -1 << 63, 19, true},
	{2, "-0x8000000000000001", 0, 2, false, 0, 2, false},
	{0, "1777777777777777777777", 0xffffffffffffffff, 22, true, 9223372036854775807, 22, true},
	{8, "1777777777777777777777", 0xffffffffffffffff, 22, false, 9223372036854775807, 22, true},
	{10, "1777777777777777777777", 0xffffffffffffffff, 22, true, 9223372036854775807, 22, true},
	{16, "1777777777777777777777", 0xffffffffffffffff, 22, true, 9223372036854775807, 22, true},
	{36, "1777777777777777777777", 0xffffffffffffffff, 22, true, 9223372036854775807, 22, true},
	{2, "1777777777777777777777", 0x1, 1, false, 1, 1, false},
	{0, "2000000000000000000000", 0xffffffffffffffff, 22, true, 9223372036854775807, 22, true},
	{8, "2000000000000000000000", 0xffffffffffffffff, 22, true, 9223372036854775807, 22, true},
	{10, "2000000000000000000000", 0xffffffffffffffff, 22, true, 9223372036854775807, 22, true},
	{16, "2000000000000000000000", 0xffffffffffffffff, 22, true, 9223372036854775807, 22, true},
	{36, "2000000000000000000000", 0xffffffffffffffff, 22, true, 9223372036854775807, 22, true},
	{2, "2000000000000000000000", 0, 0, false, 0, 0, false},
	{0, "z", 0, 0, false, 0, 0, false},
	{8, "z", 0, 0, false, 0, 0, false},
	{10, "z", 0, 0, false, 0, 0, false},
	{16, "z", 0, 0, false, 0, 0, false},
	{36, "z", 0x23, 1, false, 35, 1, false},
	{2, "z", 0, 0, false, 0, 0, false},
	{0, "Z", 0, 0, false, 0, 0, false},
	{8, "Z", 0, 0, false, 0, 0, false},
	{10, "Z", 0, 0, false, 0, 0, false},
	{16, "Z", 0, 0, false, 0, 0, false},
	{36, "Z", 0x23, 1, false, 35, 1, false},
	{2, "Z", 0, 0, false, 0, 0, false},
	{0, "zz", 0, 0, false, 0, 0, false},
	{8, "zz", 0, 0, false, 0, 0, false},
	{10, "zz", 0, 0, false, 0, 0, false},
	{16, "zz", 0, 0, false, 0, 0, false},
	{36, "zz", 0x50f, 2, false, 1295, 2, false},
	{2, "zz", 0, 0, false, 0, 0, false},
	{0, "-z", 0, 0, false, 0, 0, false},
	{8, "-z", 0, 0, false, 0, 0, false},
	{10, "-z", 0, 0, false, 0, 0, false},
	{16, "-z", 0, 0, false, 0, 0, false},
	{36, "-z", 0xffffffffffffffdd, 2, false, -35, 2, false},
	{2, "-z", 0, 0, false, 0, 0, false},
	{0, "7fffffff", 0x7, 1, false, 7, 1, false},
	{8, "7fffffff", 0x7, 1, false, 7, 1, false},
	{10, "7fffffff", 0x7, 1, false, 7, 1, false},
	{16, "7fffffff", 0x7fffffff, 8, false, 2147483647, 8, false},
	{36, "7fffffff", 0x8789e0b6db, 8, false, 582133790427, 8, false},
	{2, "7fffffff", 0, 0, false, 0, 0, false},
	{0, "ffffffff81000000 ", 0, 0, false, 0, 0, false},
	{8, "ffffffff81000000 ", 0, 0, false, 0, 0, false},
	{10, "ffffffff81000000 ", 0, 0, false, 0, 0, false},
	{16, "ffffffff81000000 ", 0xffffffff81000000, 16, false, 9223372036854775807, 16, true},
	{36, "ffffffff81000000 ", 0xffffffffffffffff, 16, true, 9223372036854775807, 16, true},
	{2, "ffffffff81000000 ", 0, 0, false, 0, 0, false},
	{0, "0b101", 0, 1, false, 0, 1, false},
	{8, "0b101", 0, 1, false, 0, 1, false},
	{10, "0b101", 0, 1, false, 0, 1, false},
	{16, "0b101", 0xb101, 5, false, 45313, 5, false},
	{36, "0b101", 0x7d9d1, 5, false, 514513, 5, false},
	{2, "0b101", 0, 1, false, 0, 1, false},
	{0, "1e3", 0x1, 1, false, 1, 1, false},
	{8, "1e3", 0x1, 1, false, 1, 1, false},
	{10, "1e3", 0x1, 1, false, 1, 1, false},
	{16, "1e3", 0x1e3, 3, false, 483, 3, false},
	{36, "1e3", 0x70b, 3, false, 1803, 3, false},
	{2, "1e3", 0x1, 1, false, 1, 1, false},
	{0, "12abc", 0xc, 2, false, 12, 2, false},
	{8, "12abc", 0xa, 2, false, 10, 2, false},
	{10, "12abc", 0xc, 2, false, 12, 2, false},
	{16, "12abc", 0x12abc, 5, false, 76476, 5, false},
	{36, "12abc", 0x1b41b8, 5, false, 1786296, 5, false},
	{2, "12abc", 0x1, 1, false, 1, 1, false},
	{0, "\x011", 0, 0, false, 0, 0, false},
	{8, "\x011", 0, 0, false, 0, 0, false},
	{10, "\x011", 0, 0, false, 0, 0, false},
	{16, "\x011", 0, 0, false, 0, 0, false},
	{36, "\x011", 0, 0, false, 0, 0, false},
	{2, "\x011", 0, 0, false, 0, 0, false},
	{0, "\xa01", 0, 0, false, 0, 0, false},
	{8, "\xa01", 0, 0, false, 0, 0, false},
	{10, "\xa01", 0, 0, false, 0, 0, false},
	{16, "\xa01", 0, 0, false, 0, 0, false},
	{36, "\xa01", 0, 0, false, 0, 0, false},
	{2, "\xa01", 0, 0, false, 0, 0, false},
	{0, "+", 0, 0, false, 0, 0, false},
	{8, "+", 0, 0, false, 0, 0, false},
	{10, "+", 0, 0, false, 0, 0, false},
	{16, "+", 0, 0, false, 0, 0, false},
	{36, "+", 0, 0, false, 0, 0, false},
	{2, "+", 0, 0, false, 0, 0, false},
	{0, "-", 0, 0, false, 0, 0, false},
	{8, "-", 0, 0, false, 0, 0, false},
	{10, "-", 0, 0, false, 0, 0, false},
	{16, "-", 0, 0, false, 0, 0, false},
	{36, "-", 0, 0, false, 0, 0, false},
	{2, "-", 0, 0, false, 0, 0, false},
	{0, " +", 0, 0, false, 0, 0, false},
	{8, " +", 0, 0, false, 0, 0, false},
	{10, " +", 0, 0, false, 0, 0, false},
	{16, " +", 0, 0, false, 0, 0, false},
	{36, " +", 0, 0, false, 0, 0, false},
	{2, " +", 0, 0, false, 0, 0, false},
	{0, "0xffffffff81000000 1f main", 0xffffffff81000000, 18, false, 9223372036854775807, 18, true},
	{8, "0xffffffff81000000 1f main", 0, 1, false, 0, 1, false},
	{10, "0xffffffff81000000 1f main", 0, 1, false, 0, 1, false},
	{16, "0xffffffff81000000 1f main", 0xffffffff81000000, 18, false, 9223372036854775807, 18, true},
	{36, "0xffffffff81000000 1f main", 0xffffffffffffffff, 18, true, 9223372036854775807, 18, true},
	{2, "0xffffffff81000000 1f main", 0, 1, false, 0, 1, false},
}

func TestAgainstC(t *testing.T) {
	for _, c := range cCases {
		if u, n, r := Strtoull(c.s, c.base); u != c.u || n != c.un || r != c.uRange {
			t.Errorf("Strtoull(%q, %d) = %#x, %d, %v; C: %#x, %d, %v", c.s, c.base, u, n, r, c.u, c.un, c.uRange)
		}
		if l, n, r := Strtol(c.s, c.base); l != c.l || n != c.ln || r != c.lRange {
			t.Errorf("Strtol(%q, %d) = %d, %d, %v; C: %d, %d, %v", c.s, c.base, l, n, r, c.l, c.ln, c.lRange)
		}
	}
}

// reference reads s as C's strtol family is specified (C11 7.22.1.4),
// with big integers: the subject sequence, its value, and the saturation
// of each function.
func reference(s string, base int) (u uint64, uRange bool, l int64, lRange bool, n int) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	hexDigit := func(j int) bool { return j < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 }
	switch {
	case (base == 0 || base == 16) && i+1 < len(s) && s[i] == '0' && (s[i+1]|0x20) == 'x' && hexDigit(i+2):
		base, i = 16, i+2
	case base == 0 && i < len(s) && s[i] == '0':
		base = 8
	case base == 0:
		base = 10
	}
	j := i
	for j < len(s) {
		c := s[j] | 0x20
		var d int
		switch {
		case s[j] >= '0' && s[j] <= '9':
			d = int(s[j] - '0')
		case c >= 'a' && c <= 'z':
			d = int(c-'a') + 10
		default:
			d = 99
		}
		if d >= base {
			break
		}
		j++
	}
	if j == i {
		return 0, false, 0, false, 0
	}
	v, _ := new(big.Int).SetString(s[i:j], base)
	if neg {
		v.Neg(v)
	}
	maxU := new(big.Int).SetUint64(^uint64(0))
	switch {
	case new(big.Int).Abs(v).Cmp(maxU) > 0:
		u, uRange = ^uint64(0), true
	case neg:
		u = new(big.Int).And(v, maxU).Uint64() // -x modulo 2^64
	default:
		u = v.Uint64()
	}
	switch {
	case !v.IsInt64() && neg:
		l, lRange = -1<<63, true
	case !v.IsInt64():
		l, lRange = 1<<63-1, true
	default:
		l = v.Int64()
	}
	return u, uRange, l, lRange, j
}

// FuzzAgainstReference checks the hand-written reading against the
// big-integer reading of the C standard's rules on any text and base.
func FuzzAgainstReference(f *testing.F) {
	for _, c := range cCases {
		f.Add(c.s, uint8(c.base))
	}
	f.Fuzz(func(t *testing.T, s string, b uint8) {
		base := int(b % 37)
		if base == 1 {
			base = 0
		}
		u, ur, l, lr, n := reference(s, base)
		if gu, gn, gr := Strtoull(s, base); gu != u || gn != n || gr != ur {
			t.Errorf("Strtoull(%q, %d) = %#x, %d, %v; want %#x, %d, %v", s, base, gu, gn, gr, u, n, ur)
		}
		if gl, gn, gr := Strtol(s, base); gl != l || gn != n || gr != lr {
			t.Errorf("Strtol(%q, %d) = %d, %d, %v; want %d, %d, %v", s, base, gl, gn, gr, l, n, lr)
		}
	})
}

func TestWhole(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{{"", true}, {"12", true}, {" 12", true}, {"12 ", false}, {" ", false}, {"-", false}, {"0x", false}, {"0x1", true}} {
		_, n, _ := Strtol(c.s, 10)
		if c.s == "0x" || c.s == "0x1" {
			_, n, _ = Strtol(c.s, 0)
		}
		if got := Whole(c.s, n); got != c.want {
			t.Errorf("Whole(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

// TestRange: libipt's parse_range on the suffix forms TestPtNumericArgs
// (internal/cli) compares with libipt's ptdump and ptxed.
func TestRange(t *testing.T) {
	for _, c := range []struct {
		s          string
		begin, end uint64
		parts      int
	}{
		{"", 0, 0, 0}, {"16", 16, 0, 1}, {" 0x10", 16, 0, 1}, {"-1", ^uint64(0), 0, 1},
		{"1-17", 1, 17, 2}, {"1- 17", 1, 17, 2}, {"-", 0, 0, 2}, {"5-", 5, 0, 2}, {"-1-0", ^uint64(0), 0, 2},
		{"abc", 0, 0, -1}, {"0b1", 0, 0, -1}, {"1_0", 0, 0, -1}, {"0x", 0, 0, -1}, {"1 ", 0, 0, -1},
		{"99999999999999999999", 0, 0, -1}, {"1-99999999999999999999", 0, 0, -1}, {"1-x", 0, 0, -1},
	} {
		b, e, p := Range(c.s)
		if b != c.begin || e != c.end || p != c.parts {
			t.Errorf("Range(%q) = %#x, %#x, %d; want %#x, %#x, %d", c.s, b, e, p, c.begin, c.end, c.parts)
		}
	}
}
