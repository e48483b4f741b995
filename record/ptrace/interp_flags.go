package ptrace

import (
	"math/bits"

	"golang.org/x/arch/x86/x86asm"
)

// Flag computations and condition tables of the interpreter.

const flagAF = 1 << 4
const arithFlags = flagCF | flagPF | flagAF | flagZF | flagSF | flagOF

func (m *interp) setFlags(f uint64, which uint64) {
	m.r.Eflags = m.r.Eflags&^which | f&which
}

// szp computes ZF, SF and PF of a result.
func szp(res uint64, size int) uint64 {
	var f uint64
	res &= mask(size)
	if res == 0 {
		f |= flagZF
	}
	if res>>(8*size-1)&1 != 0 {
		f |= flagSF
	}
	if bits.OnesCount8(uint8(res))%2 == 0 {
		f |= flagPF
	}
	return f
}

func addFlags(a, b, res uint64, size int) uint64 {
	top := uint(8*size - 1)
	f := szp(res, size)
	if res&mask(size) < a&mask(size) || (size == 8 && res < a) {
		f |= flagCF
	}
	if ((a^res)&(b^res))>>top&1 != 0 {
		f |= flagOF
	}
	if (a^b^res)&0x10 != 0 {
		f |= flagAF
	}
	return f
}

func subFlags(a, b, res uint64, size int) uint64 {
	top := uint(8*size - 1)
	f := szp(res, size)
	if a&mask(size) < b&mask(size) {
		f |= flagCF
	}
	if ((a^b)&(a^res))>>top&1 != 0 {
		f |= flagOF
	}
	if (a^b^res)&0x10 != 0 {
		f |= flagAF
	}
	return f
}

// cmovCond and setCond map CMOVcc and SETcc to the Jcc of the same
// condition (0: not one).
func cmovCond(op x86asm.Op) x86asm.Op {
	switch op {
	case x86asm.CMOVA:
		return x86asm.JA
	case x86asm.CMOVAE:
		return x86asm.JAE
	case x86asm.CMOVB:
		return x86asm.JB
	case x86asm.CMOVBE:
		return x86asm.JBE
	case x86asm.CMOVE:
		return x86asm.JE
	case x86asm.CMOVG:
		return x86asm.JG
	case x86asm.CMOVGE:
		return x86asm.JGE
	case x86asm.CMOVL:
		return x86asm.JL
	case x86asm.CMOVLE:
		return x86asm.JLE
	case x86asm.CMOVNE:
		return x86asm.JNE
	case x86asm.CMOVNO:
		return x86asm.JNO
	case x86asm.CMOVNP:
		return x86asm.JNP
	case x86asm.CMOVNS:
		return x86asm.JNS
	case x86asm.CMOVO:
		return x86asm.JO
	case x86asm.CMOVP:
		return x86asm.JP
	case x86asm.CMOVS:
		return x86asm.JS
	}
	return 0
}

func setCond(op x86asm.Op) x86asm.Op {
	switch op {
	case x86asm.SETA:
		return x86asm.JA
	case x86asm.SETAE:
		return x86asm.JAE
	case x86asm.SETB:
		return x86asm.JB
	case x86asm.SETBE:
		return x86asm.JBE
	case x86asm.SETE:
		return x86asm.JE
	case x86asm.SETG:
		return x86asm.JG
	case x86asm.SETGE:
		return x86asm.JGE
	case x86asm.SETL:
		return x86asm.JL
	case x86asm.SETLE:
		return x86asm.JLE
	case x86asm.SETNE:
		return x86asm.JNE
	case x86asm.SETNO:
		return x86asm.JNO
	case x86asm.SETNP:
		return x86asm.JNP
	case x86asm.SETNS:
		return x86asm.JNS
	case x86asm.SETO:
		return x86asm.JO
	case x86asm.SETP:
		return x86asm.JP
	case x86asm.SETS:
		return x86asm.JS
	}
	return 0
}

// cond evaluates a Jcc condition on the current flags.
func (m *interp) cond(j x86asm.Op) bool {
	in := insn{inst: x86asm.Inst{Op: j}}
	return condTaken(&in, m.r)
}
