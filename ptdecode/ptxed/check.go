package ptxed

import (
	"golang.org/x/arch/x86/x86asm"

	"github.com/perfpt/perfpt/ptdecode/insn"
)

// --check, as libipt's ptxed does it (check_insn, check_block): each
// instruction is decoded again by an independent decoder (XED there,
// golang.org/x/arch/x86/x86asm here) and its class compared with the one the
// trace decoder used; a block must end at its end IP after its NInsn
// instructions. Nothing is printed when they agree, an error line when not.
// Instructions x86asm does not know (ptwrite, uiret, the VMX instructions)
// are not checked.

// xedClasses maps an x86asm operation to the class the decoder must give it.
var xedClasses = map[x86asm.Op]insn.Class{
	x86asm.CALL: insn.ClassCall, x86asm.RET: insn.ClassReturn, x86asm.JMP: insn.ClassJump,
	x86asm.LCALL: insn.ClassFarCall, x86asm.INT: insn.ClassFarCall, x86asm.INTO: insn.ClassFarCall,
	x86asm.SYSCALL: insn.ClassFarCall, x86asm.SYSENTER: insn.ClassFarCall,
	x86asm.IRET: insn.ClassFarReturn, x86asm.IRETD: insn.ClassFarReturn, x86asm.IRETQ: insn.ClassFarReturn,
	x86asm.LRET: insn.ClassFarReturn, x86asm.SYSEXIT: insn.ClassFarReturn, x86asm.SYSRET: insn.ClassFarReturn,
	x86asm.LJMP: insn.ClassFarJump,
	x86asm.JA:   insn.ClassCondJump, x86asm.JAE: insn.ClassCondJump, x86asm.JB: insn.ClassCondJump,
	x86asm.JBE: insn.ClassCondJump, x86asm.JCXZ: insn.ClassCondJump, x86asm.JE: insn.ClassCondJump,
	x86asm.JECXZ: insn.ClassCondJump, x86asm.JG: insn.ClassCondJump, x86asm.JGE: insn.ClassCondJump,
	x86asm.JL: insn.ClassCondJump, x86asm.JLE: insn.ClassCondJump, x86asm.JNE: insn.ClassCondJump,
	x86asm.JNO: insn.ClassCondJump, x86asm.JNP: insn.ClassCondJump, x86asm.JNS: insn.ClassCondJump,
	x86asm.JO: insn.ClassCondJump, x86asm.JP: insn.ClassCondJump, x86asm.JRCXZ: insn.ClassCondJump,
	x86asm.JS: insn.ClassCondJump, x86asm.LOOP: insn.ClassCondJump, x86asm.LOOPE: insn.ClassCondJump,
	x86asm.LOOPNE: insn.ClassCondJump,
}

func x86asmMode(m insn.Mode) int {
	switch m {
	case insn.Mode16:
		return 16
	case insn.Mode32:
		return 32
	}
	return 64
}

// checkClass prints libipt's iclass error line when x86asm classifies the
// instruction at ip otherwise than class; it returns x86asm's length (0 when
// x86asm cannot decode the bytes).
func (p *printer) checkClass(offset, ip uint64, code []byte, mode insn.Mode, class insn.Class) int {
	inst, err := x86asm.Decode(code, x86asmMode(mode))
	if err != nil {
		return 0
	}
	if inst.Op == 0 {
		// x86asm decoded the bytes but does not know the instruction
		// (PTWRITE, ERETU, UIRET, ...), where XED does: no verdict.
		return inst.Len
	}
	want, ok := xedClasses[inst.Op]
	if !ok {
		want = insn.ClassOther
	}
	if class != insn.ClassUnknown && class != want {
		p.checkLine(offset, ip, "iclass error: iclass: "+class.String()+", xed iclass: "+inst.Op.String())
	}
	return inst.Len
}

// checkBlock walks b's instructions with x86asm: the walk must end at b's end
// IP, and the last instruction must have b's class (check_block).
func (p *printer) checkBlock(b blockView, offset uint64) {
	ip := b.ip
	var code []byte
	for n := b.ninsn; n > 0; n-- {
		code = b.code(ip)
		inst, err := x86asm.Decode(code, x86asmMode(b.mode))
		if err != nil {
			return
		}
		if n > 1 {
			ip = xedNextIP(&inst, ip)
		}
	}
	if ip != b.endIP {
		p.checkLine(offset, ip, "error: did not reach end: "+hexString(b.endIP))
		return
	}
	p.checkClass(offset, ip, code, b.mode, b.class)
}

// xedNextIP is the IP after inst at ip within a block: direct jumps and calls
// are followed, as xed_next_ip does.
func xedNextIP(inst *x86asm.Inst, ip uint64) uint64 {
	next := ip + uint64(inst.Len)
	if inst.Op == x86asm.JMP || inst.Op == x86asm.CALL {
		if rel, ok := inst.Args[0].(x86asm.Rel); ok {
			return next + uint64(int64(rel))
		}
	}
	return next
}

// blockView is what checkBlock needs of a block.
type blockView struct {
	ip, endIP uint64
	ninsn     uint16
	mode      insn.Mode
	class     insn.Class
	code      func(ip uint64) []byte
}

func (p *printer) checkLine(offset, ip uint64, msg string) {
	w := p.w
	w.WriteByte('[')
	p.hex(offset)
	w.WriteString(", ")
	p.hex(ip)
	w.WriteString(": ")
	w.WriteString(msg)
	w.WriteString("]\n")
}

func hexString(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var b [16]byte
	i := len(b)
	for ; v != 0; v >>= 4 {
		i--
		b[i] = digits[v&15]
	}
	return string(b[i:])
}
