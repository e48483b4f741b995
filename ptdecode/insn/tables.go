package insn

// Opcode tables of the length decoder, written from the Intel SDM opcode maps
// (volume 2, appendix A).

// bits builds a 256-bit set from opcode ranges given as lo, hi pairs.
func bits(ranges ...uint8) (s [4]uint64) {
	for i := 0; i+1 < len(ranges); i += 2 {
		for op := int(ranges[i]); op <= int(ranges[i+1]); op++ {
			s[op>>6] |= 1 << (op & 63)
		}
	}
	return s
}

// modrmMap0 holds the one-byte opcodes that take a ModRM byte.
var modrmMap0 = bits(
	0x00, 0x03, 0x08, 0x0b, 0x10, 0x13, 0x18, 0x1b,
	0x20, 0x23, 0x28, 0x2b, 0x30, 0x33, 0x38, 0x3b,
	0x62, 0x63, 0x69, 0x69, 0x6b, 0x6b, 0x80, 0x8f,
	0xc0, 0xc1, 0xc4, 0xc7, 0xd0, 0xd3, 0xd8, 0xdf,
	0xf6, 0xf7, 0xfe, 0xff,
)

// modrmMap1 holds the 0F xx opcodes that take a ModRM byte: all but these.
var modrmMap1 = func() [4]uint64 {
	no := bits(0x04, 0x09, 0x0a, 0x0c, 0x0e, 0x0e, 0x30, 0x3f, 0x77, 0x77, 0x80, 0x8f,
		0xa0, 0xa2, 0xa8, 0xaa, 0xc8, 0xcf)
	// 0F 0B (ud2) has none; 0F 0D (prefetch) and 0F 0F (3DNow!) have one.
	no[0] |= 1 << 0x0b
	var s [4]uint64
	for i := range s {
		s[i] = ^no[i]
	}
	return s
}()

// Immediate kinds of the one-byte opcodes.
const (
	immNone   = iota
	immB      // 8 bits
	immZ      // 16 or 32 bits by operand size
	immV      // 16, 32 or 64 bits by operand size
	immW      // 16 bits
	immEnter  // 16 + 8 bits
	immPtr    // far pointer: z + 16 bits
	immGrp3b  // F6: 8 bits for /0 and /1
	immGrp3z  // F7: z for /0 and /1
	immGrp11z // C7: z for /0
)

var imm0 = func() (t [256]uint8) {
	for _, op := range []uint8{0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3c, 0x6a, 0x6b,
		0x80, 0x82, 0x83, 0xa8, 0xc0, 0xc1, 0xc6, 0xcd, 0xd4, 0xd5, 0xe4, 0xe5, 0xe6, 0xe7} {
		t[op] = immB
	}
	for op := 0xb0; op <= 0xb7; op++ {
		t[op] = immB
	}
	for _, op := range []uint8{0x05, 0x0d, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x68, 0x69, 0x81, 0xa9} {
		t[op] = immZ
	}
	for op := 0xb8; op <= 0xbf; op++ {
		t[op] = immV
	}
	t[0xc2], t[0xca] = immW, immW
	t[0xc8] = immEnter
	t[0x9a], t[0xea] = immPtr, immPtr
	t[0xf6], t[0xf7], t[0xc7] = immGrp3b, immGrp3z, immGrp11z
	return t
}()
