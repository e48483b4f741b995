package insn

import "golang.org/x/arch/x86/x86asm"

// Disasm returns the AT&T (GNU objdump) syntax of the instruction at ip in
// code, or "(bad)" when x86asm cannot decode it.
func Disasm(code []byte, mode Mode, ip uint64) string {
	bits := 64
	switch mode {
	case Mode16:
		bits = 16
	case Mode32:
		bits = 32
	}
	in, err := x86asm.Decode(code, bits)
	if err != nil {
		return "(bad)"
	}
	return x86asm.GNUSyntax(in, ip, nil)
}
