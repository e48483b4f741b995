package perfinsn

// perf 6.1's x86 instruction decoder (its copy of the kernel's
// arch/x86/lib/insn.c, with inat tables generated from
// x86-opcode-map.txt) refuses a VEX- or EVEX-encoded opcode its AVX
// tables do not mark as taking the prefix (insn_get_opcode:
// !inat_accept_vex and not a group, or an EVEX-only opcode under VEX;
// insn_get_modrm: a group member without the mark), where libipt's
// length decoder, which ptdecode/insn follows, measures any of them. perf
// then has no length: -F insnlen prints "ilen: 0" and brstackinsn stops.
//
// vexOK lists the opcodes perf 6.1 takes, by encoding (VEX, EVEX),
// opcode map (VEX.m-mmmm, EVEX.mmm: 1 0F, 2 0F38, 3 0F3A, 5 and 6 the
// AVX512-FP16 maps, EVEX only; other maps have no table), and implied
// prefix (pp: none, 66, F3, F2): bit op of the four words. It was
// measured from perf 6.1 (perf script -F ip,insnlen on a sample at every
// VEX2, VEX3 and EVEX encoding of every map, pp, VEX.L and ModRM.reg:
// TestInsnLenMatchesPerf checks it again); VEX.L does not matter, and the
// groups are in vexGroups.
var vexOK = [2][7][4][4]uint64{
	{ // VEX
		{}, // map 0: none
		{ // map 1
			{0x0000cb0000ff0000, 0x03800000ffff0cf6, 0x00000000030f0000, 0x0000000000000044},
			{0x0000cb0000ff0000, 0xf071fffffff30cf6, 0x00000000030f0000, 0x7ffeffffffff0074},
			{0x0000340000470000, 0xc0018000ff0e0000, 0x0000000000000000, 0x0000004000000004},
			{0x0000340000070000, 0x30010000f7020000, 0x00000000000c0000, 0x0001004000010004},
		},
		{ // map 2
			{0x0000000000000000, 0x0000000040000200, 0x0000000000000000, 0x00a4000000000000},
			{0xffffff3f77f9ffff, 0x03000000470f0ae3, 0xffc0ffc0ffcf5000, 0x00800000f8008000},
			{0x0000000000000000, 0x0000000050000800, 0x0000000000000000, 0x00a0000000000000},
			{0x0000000000000000, 0x0000000040000a00, 0x0000000000000000, 0x00e0000000000000},
		},
		{ // map 3
			{0x0000000000000500, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000},
			{0x030f000723f0ff77, 0x0000000f00001c57, 0x0000000000000000, 0x000000008000c000},
			{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000},
			{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0001000000000000},
		},
		{}, // map 4: none
		{}, // map 5: none under VEX
		{}, // map 6: none under VEX
	},
	{ // EVEX
		{}, // map 0: none
		{ // map 1
			{0x0000cb0000ff0000, 0x03800000ffff0cf6, 0x00000000030f0000, 0x0000000000000044},
			{0x0000cb0000ff0000, 0xff71fffffff30cf6, 0x00000000030f0000, 0x7ffeffffffff0074},
			{0x0000340000470000, 0xcf018000ff0e0000, 0x0000000000000000, 0x0000004000000004},
			{0x0000340000070000, 0xbf018000f7020000, 0x00000000000c0000, 0x0001004000010004},
		},
		{ // map 2
			{0x0000000000000000, 0x0000000040000200, 0x0000000000000000, 0x00a4000000000000},
			{0xffffffffffffffff, 0xffef007c4f3ffaff, 0xfff0ffcfffcfff08, 0x00800000f800bd10},
			{0x073f07ff003f0000, 0x0004000050040800, 0x0000000000000000, 0x00a0000000000000},
			{0x0000000000000000, 0x00040100400c0a00, 0x00000c000c000000, 0x00e0000000000000},
		},
		{ // map 3
			{0x000000c000000500, 0x000000c000c00000, 0x0000000000000000, 0x0000000000000004},
			{0xcf0f00efeff0ff7f, 0x000f00cf00f31c5f, 0x0000000000000000, 0x000000008000c000},
			{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000004},
			{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0001000000000000},
		},
		{}, // map 4: none
		{ // map 5
			{0x0000c00020000000, 0x33000000ff020000, 0x0000000000000000, 0x0000000000000000},
			{0x0000000020000000, 0x7f0040000c000000, 0x0000000000000000, 0x0000000000000000},
			{0x0000340000030000, 0x2b000000ff020000, 0x0000000000000000, 0x0000000000000000},
			{0x0000000000000000, 0x2400000004000000, 0x0000000000000000, 0x0000000000000000},
		},
		{ // map 6
			{0x0000000000080000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000},
			{0x0000300000080000, 0x000000000000f00c, 0xffc0ffc0ffc00000, 0x0000000000000000},
			{0x0000000000000000, 0x0000000000c00000, 0x0000000000000000, 0x0000000000c00000},
			{0x0000000000000000, 0x0000000000c00000, 0x0000000000000000, 0x0000000000c00000},
		},
	},
}

// vexGroups are the opcodes perf 6.1 takes for some ModRM.reg values
// only (its AVX group tables: Grp12-14 shifts, Grp15 vldmxcsr/vstmxcsr,
// Grp17 BLSR/BLSMSK/BLSI, the EVEX gathers' and scatters' prefetch
// groups), the same under VEX and EVEX: map, pp, opcode, the mask of the
// reg values taken.
var vexGroups = [...]struct{ m, pp, op, regs uint8 }{
	{1, 0, 0xae, 0x0c},
	{1, 1, 0x71, 0x54},
	{1, 1, 0x72, 0x57},
	{1, 1, 0x73, 0xcc},
	{2, 0, 0xf3, 0x0e},
	{2, 1, 0xc6, 0x66},
	{2, 1, 0xc7, 0x66},
	{2, 1, 0xf3, 0x0e},
	{2, 2, 0xf3, 0x0e},
	{2, 3, 0xf3, 0x0e},
}

// vex says what perf 6.1's decoder makes of a VEX- or EVEX-encoded
// instruction at code: decided is false when code is not one (after the
// legacy prefixes and, in 64-bit code, a REX; in 32-bit code C4, C5 and
// 62 are VEX or EVEX only when the next byte's top bits are 11) or when
// its length is ptdecode/insn's; otherwise n is perf's length, 0 when it
// refuses the instruction or the bytes end first. An EVEX-encoded 0F 77
// (VZEROUPPER's opcode) has no ModRM for perf.
func vex(code []byte, is64 bool) (n int, decided bool) {
	i := opcodeAt(code, is64)
	if i+1 >= len(code) {
		return 0, false
	}
	var size, m, pp int
	evex := 0
	switch code[i] {
	case 0xc5:
		size, m, pp = 2, 1, int(code[i+1]&3)
	case 0xc4:
		size, m = 3, int(code[i+1]&0x1f)
	case 0x62:
		size, m, evex = 4, int(code[i+1]&7), 1
	default:
		return 0, false
	}
	if !is64 && code[i+1]&0xc0 != 0xc0 {
		return 0, false // LES, LDS, BOUND
	}
	op := i + size
	if op >= len(code) {
		return 0, true
	}
	if size > 2 {
		pp = int(code[i+2] & 3)
	}
	opc := code[op]
	if m < len(vexOK[evex]) && vexOK[evex][m][pp][opc>>6]&(1<<(opc&63)) != 0 {
		if evex == 1 && m == 1 && opc == 0x77 {
			return op + 1, true
		}
		return 0, false
	}
	for _, g := range vexGroups {
		if int(g.m) == m && int(g.pp) == pp && g.op == opc {
			if op+1 >= len(code) || g.regs&(1<<(code[op+1]>>3&7)) == 0 {
				return 0, true
			}
			return 0, false
		}
	}
	return 0, true
}
