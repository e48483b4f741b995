// Package perfinsn measures x86 instructions as perf 6.1 does: its copy
// of the kernel's instruction decoder (arch/x86/lib/insn.c with inat
// tables generated from x86-opcode-map.txt, insn_decode) and the
// classification intel_pt_insn_decoder makes of what it decodes. perf
// uses them for -F insnlen, brstackinsn and its Intel PT walk
// (intel_pt_get_insn), where an instruction they refuse is "Failed to
// get instruction". ptdecode/insn, which follows libipt, measures many
// of those bytes otherwise; this package starts from its decode and
// applies perf's differences, which were measured from perf 6.1.
package perfinsn

import "github.com/perfpt/perfpt/ptdecode/insn"

// maxLen is MAX_INSN_SIZE: insn_decode sees at most 15 bytes.
const maxLen = 15

// Len is the length the kernel's insn_decode finds for the
// instruction at code, 0 when it fails.
func Len(code []byte, is64 bool) int {
	code = code[:min(len(code), maxLen)]
	if n := prefixOpcode(code, is64); n > 0 {
		return n
	}
	if n, ok := aad(code, is64); ok {
		return n
	}
	if n, ok := vex(code, is64); ok {
		return n
	}
	if n, ok := legacy(code, is64); ok {
		return n
	}
	if i := group11ModRM(code, is64); i > 0 && code[i]&0x38 != 0 {
		// x86-opcode-map.txt gives C6 and C7 their immediate at the
		// opcode (Grp11A Eb,Ib; Grp11B Ev,Iz): every reg of the
		// ModRM has it, where the SDM defines /0 (and /7) only. The
		// length is MOV's, with the same addressing.
		// A copy on the stack: Len allocates nothing.
		var buf [maxLen]byte
		code = buf[:copy(buf[:], code)]
		code[i] &^= 0x38
	}
	mode := insn.Mode32
	if is64 {
		mode = insn.Mode64
	}
	var in insn.Insn
	if len(code) == 0 || insn.Decode(&in, code, mode) != nil {
		return 0
	}
	return int(in.Size)
}

// prefixOpcode is the length the kernel's instruction decoder
// (insn_get_prefixes, insn_get_opcode) gives a prefix it takes for the
// opcode, where the SDM (and ptdecode/insn) reads on: a second REX or a
// legacy prefix after a REX in 64-bit mode (the kernel reads one REX
// after the legacy prefixes, "47 4e 55" is "47 4e" and "55"), or a fifth
// different legacy prefix. Such an opcode has no ModRM or immediate. It
// returns 0 when the code is no such case.
func prefixOpcode(code []byte, is64 bool) int {
	var seen [4]byte
	nb, n := 0, 0
	for ; n < len(code) && legacyPrefix(code[n]); n++ {
		dup := false
		for _, p := range seen[:nb] {
			dup = dup || p == code[n]
		}
		if !dup {
			if nb == len(seen) {
				return n + 1
			}
			seen[nb] = code[n]
			nb++
		}
	}
	if !is64 || n+1 >= len(code) || code[n]&0xf0 != 0x40 {
		return 0
	}
	if c := code[n+1]; c&0xf0 == 0x40 || legacyPrefix(c) {
		return n + 2
	}
	return 0
}

// aad is the length perf 6.1's copy of the kernel's instruction
// decoder gives D5 in 64-bit mode: AAD with its immediate byte (its
// opcode map does not refuse it there, and it knows no REX2 prefix,
// which ptdecode/insn reads it as, as libipt does), after the legacy
// prefixes and a REX; 0 when the immediate is missing. ok says the code
// is such a case.
func aad(code []byte, is64 bool) (n int, ok bool) {
	if !is64 {
		return 0, false
	}
	i := opcodeAt(code, true)
	if i >= len(code) || code[i] != 0xd5 {
		return 0, false
	}
	if i+2 > len(code) {
		return 0, true
	}
	return i + 2, true
}

// group11ModRM returns the index of the ModRM byte when code's
// opcode, after the legacy prefixes and (in 64-bit code) a REX, is C6 or
// C7, else 0.
func group11ModRM(code []byte, is64 bool) int {
	i := opcodeAt(code, is64)
	if i+1 < len(code) && (code[i] == 0xc6 || code[i] == 0xc7) {
		return i + 1
	}
	return 0
}

func legacyPrefix(b byte) bool {
	switch b {
	case 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x66, 0x67, 0xf0, 0xf2, 0xf3:
		return true
	}
	return false
}

// opcodeAt is the index of code's opcode byte as the kernel's decoder
// finds it: after the legacy prefixes and, in 64-bit code, one REX
// (len(code) when the bytes end first).
func opcodeAt(code []byte, is64 bool) int {
	i := 0
	for i < len(code) && legacyPrefix(code[i]) {
		i++
	}
	if is64 && i < len(code) && code[i]&0xf0 == 0x40 {
		i++
	}
	return i
}
