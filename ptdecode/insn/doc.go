// Package insn decodes the length and control-flow class of x86 instructions
// in 16-, 32- and 64-bit mode, as Intel PT flow reconstruction needs them.
//
// Decode is a table-driven length decoder written after the Intel SDM opcode
// maps; its classification follows libipt's rules (pt_ild.c) exactly, so the
// decoders of package flow bind trace to the same instructions libipt does.
// It never allocates and accepts every encoding libipt's own length decoder
// accepts (x86asm rejects some, e.g. ptwrite, uiret and APX REX2). Disasm
// prints an instruction with golang.org/x/arch/x86/x86asm in AT&T (GNU)
// syntax; a test checks lengths and classes against x86asm on compiled code.
package insn
