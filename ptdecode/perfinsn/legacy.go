package perfinsn

import "github.com/perfpt/perfpt/ptdecode/insn"

// perf 6.1's x86 instruction decoder (its copy of the kernel's
// arch/x86/lib/insn.c with inat tables generated from
// x86-opcode-map.txt) reads a legacy opcode of the 0F, 0F 38 and 0F 3A
// maps by its table for the last legacy prefix (insn_last_prefix_id: the
// last prefix byte if it is 66, F2 or F3, else none), where libipt's
// length decoder, which ptdecode/insn follows, reads the SDM's lengths:
//   - an opcode without an entry for that prefix (undefined ones, the
//     hint NOPs 0F 19 and 0F 1D, 0F B8 without F3, most of 0F 38 and
//     0F 3A without their prefix, ...) has no ModRM or immediate for perf;
//   - an opcode its table marks VEX-only (66 0F 78, F3 0F 38 10, ...) is
//     refused: -F insnlen prints "ilen: 0" and brstackinsn stops;
//   - 0F 71-73 (Grp12-14) members the table has not for that prefix
//     have their ModRM but no immediate;
//   - 0F 20-23 (MOV to and from control and debug registers) take a
//     memory ModRM's SIB and displacement, where the CPU reads any ModRM
//     as registers;
//   - 0F 78 and 0F 79 are VMREAD and VMWRITE (a ModRM, no immediate)
//     when another prefix follows a 66 or F2 (66 2E 0F 78), where
//     ptdecode/insn reads EXTRQ or INSERTQ with two immediate bytes.
//
// The tables were measured from perf 6.1 (perf script -F ip,insnlen on a
// sample at every opcode of the three maps after no prefix, 66, F2 and
// F3, with every ModRM.reg in a register and a SIB+disp8 memory form,
// in 64- and 32-bit code, which agree: TestLegacyInsnLenMatchesPerf
// checks them again). Index: prefix (none, 66, F2, F3), map (0F, 0F 38,
// 0F 3A), bit op of the four words.
var legacyNoModRM = [4][3][4]uint64{
	{ // no prefix
		{0xfaff00f022005ff0, 0x3c80300000000000, 0x0100070700000000, 0x800100400041ff00},
		{0xffffffff8ffff000, 0xffffffffbffffdff, 0xffffffffffffffff, 0xfd10ffffffffc03f},
		{0xffffff3fffff7aff, 0xffffff3fff3fffff, 0xffffffffffffffff, 0xffffffffffffeffb},
	},
	{ // 66
		{0xfaff00f022005ff0, 0x00800000000c0000, 0x0100070700000000, 0x800100000000ff00},
		{0x0000000000000000, 0x0010ff83b0c00500, 0x000f0030003000f0, 0xfc10ffff07ff402f},
		{0x30f0ff10100f0080, 0xfff0ff30ff0ce3a0, 0xffffffffffffffff, 0xffffffff7fff2fff},
	},
	{ // F2
		{0xfaffcbf022f85ff0, 0x40f07fff08fd0cf6, 0x0100070703030000, 0xfffeffbfffbeff70},
		{0xffffffffffffffff, 0xfffbfeffbff3f5ff, 0xfffff3fff3ffffff, 0xfc10fffffffffd3f},
		{0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xfffeffffffffefff},
	},
	{ // F3
		{0xfaffcbf022b85ff0, 0x30f07fff00f10cf6, 0x00000707030f0000, 0xffffffbfffbfff70},
		{0xf8c0f800ffc0ffff, 0xfffbffffaffbf7ff, 0xffffffffffffffff, 0xfc13fffffffffd3f},
		{0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xfffeffffffffeffb},
	},
}

// legacyRefused are the opcodes perf 6.1 refuses without a VEX or
// EVEX prefix, indexed as legacyNoModRM.
var legacyRefused = [4][3][4]uint64{
	{ // no prefix
		{},
		{0, 0, 0, 0x00a4000000000000},
		{0x000000c000000000, 0x000000c000c00000, 0, 0x0000000000000004},
	},
	{ // 66
		{0, 0x0f00000000000000, 0, 0},
		{0x0040f0c08f4ef000, 0xffef007c0f30f0fc, 0xfff0ffcfffcfff08, 0x0084000000003d10},
		{0xcf0f00e8ef00007f, 0x000f00c000f30c48, 0, 0},
	},
	{ // F2
		{0, 0x8f00800000000000, 0, 0},
		{0, 0x00040100000c0000, 0x00000c000c000000, 0x00e4000000000000},
		{0, 0, 0, 0x0001000000000000},
	},
	{ // F3
		{0, 0x0f00000000000000, 0, 0},
		{0x073f07ff003f0000, 0x0004000000040800, 0, 0x00a4000000000000},
		{0, 0, 0, 0x0000000000000004},
	},
}

// shiftImm are the ModRM.reg values of 0F 71, 72 and 73 that have
// their immediate byte for perf 6.1, by prefix (none, 66; after F2 or F3
// none has).
var shiftImm = [2][3]uint8{{0x54, 0x54, 0x44}, {0x54, 0x57, 0xcc}}

// legacy says what perf 6.1's decoder makes of a legacy (not VEX)
// instruction of the 0F, 0F 38 or 0F 3A map, or a far CALL or JMP (9A,
// EA) after a REX.W, at code, after the legacy
// prefixes and, in 64-bit code, a REX: decided is false when code is no
// such instruction or its length is ptdecode/insn's; otherwise n is
// perf's length, 0 when it refuses the opcode or the bytes end first.
func legacy(code []byte, is64 bool) (n int, decided bool) {
	i, pfx := 0, 0
	for ; i < len(code) && legacyPrefix(code[i]); i++ {
		switch code[i] {
		case 0x66:
			pfx = 1
		case 0xf2:
			pfx = 2
		case 0xf3:
			pfx = 3
		default:
			pfx = 0
		}
	}
	rexW := false
	if is64 && i < len(code) && code[i]&0xf0 == 0x40 {
		rexW = code[i]&8 != 0
		i++
	}
	if rexW && i < len(code) && (code[i] == 0x9a || code[i] == 0xea) {
		// A far CALL or JMP Ap with an 8-byte operand size: perf's
		// __get_immptr has no ptr16:64 and refuses it.
		return 0, true
	}
	if i+1 >= len(code) || code[i] != 0x0f {
		return 0, false
	}
	m, op := 0, i+1
	switch code[op] {
	case 0x38:
		m, op = 1, op+1
	case 0x3a:
		m, op = 2, op+1
	}
	if op >= len(code) {
		return 0, true
	}
	opc := code[op]
	bit := uint64(1) << (opc & 63)
	switch {
	case legacyRefused[pfx][m][opc>>6]&bit != 0:
		return 0, true
	case legacyNoModRM[pfx][m][opc>>6]&bit != 0:
		return op + 1, true
	case m == 0 && (opc >= 0x20 && opc <= 0x23 || pfx == 0 && (opc == 0x78 || opc == 0x79)):
		return modRMEnd(code, op+1, is64), true
	case m == 0 && opc >= 0x71 && opc <= 0x73:
		if op+1 >= len(code) {
			return 0, true
		}
		if pfx < 2 && shiftImm[pfx][opc-0x71]&(1<<(code[op+1]>>3&7)) != 0 {
			return 0, false
		}
		return modRMEnd(code, op+1, is64), true
	}
	return 0, false
}

// modRMEnd is the index after the ModRM at code[i] and its SIB and
// displacement (insn_get_modrm, insn_get_sib, insn_get_displacement); 0
// when the bytes end first. Their length does not depend on the opcode,
// so ptdecode/insn measures it on MOV Gv,Ev (8B: a ModRM, no immediate)
// put in place of the opcode bytes before code[i], with the same
// prefixes (a 67 in 32-bit code gives 16-bit addressing).
func modRMEnd(code []byte, i int, is64 bool) int {
	s := opcodeAt(code, is64)
	if i >= len(code) || s >= i {
		return 0
	}
	alt := append(append(append(make([]byte, 0, len(code)), code[:s]...), 0x8b), code[i:]...)
	mode := insn.Mode32
	if is64 {
		mode = insn.Mode64
	}
	var in insn.Insn
	if insn.Decode(&in, alt, mode) != nil {
		return 0
	}
	return int(in.Size) - 1 + i - s
}
