package ptrace

import (
	"errors"
	"fmt"

	"github.com/perfpt/perfpt/record/flow"
	"golang.org/x/arch/x86/x86asm"
)

// class says how an instruction moves control.
type class uint8

const (
	clPlain   class = iota // falls through
	clCond                 // Jcc, JrCXZ, LOOPcc
	clJump                 // direct JMP
	clCall                 // direct CALL
	clIndJump              // indirect JMP
	clIndCall              // indirect CALL
	clRet                  // near RET
	clSyscall              // SYSCALL
	clOther                // leaves user mode or traps some other way (INT, UD2, far transfers, ...)
	clUnknown              // x86asm cannot decode it: single-stepped, taken as a plain instruction

	// Instructions this CPU lacks, which the tracer performs itself (see
	// special.go) as a CPU with PTWRITE and RTM would.
	clPTW    // PTWRITE r/m32 or r/m64
	clXBegin // XBEGIN rel16/rel32
	clXEnd   // XEND
	clXAbort // XABORT imm8
	clXTest  // XTEST
	clCPUID  // CPUID, with Options.CPUID
)

// special says whether the tracer performs the instruction itself.
func (c class) special() bool { return c >= clPTW }

// stops says whether a fast-mode block ends at an instruction of this class.
func (c class) stops() bool { return c != clPlain && c != clJump && c != clCall }

// emulated says whether fast mode emulates the instruction at a breakpoint.
func (c class) emulated() bool {
	return c == clCond || c == clIndJump || c == clIndCall || c == clRet || c.special()
}

func (c class) kind() flow.Kind {
	switch c {
	case clCond:
		return flow.Cond
	case clJump:
		return flow.Jump
	case clCall:
		return flow.Call
	case clIndJump:
		return flow.IndJump
	case clIndCall:
		return flow.IndCall
	case clRet:
		return flow.Ret
	}
	return flow.Syscall
}

// insn is one decoded instruction.
type insn struct {
	inst   x86asm.Inst
	ip     uint64
	target uint64 // direct branches: the target
	len    uint8
	class  class
	rep    bool // a REP/REPcc string instruction: traps once per iteration when stepped
}

func (in insn) next() uint64 { return in.ip + uint64(in.len) }

// decodeInsn decodes the instruction at ip from code (at least 15 bytes
// unless the mapping ends sooner).
func decodeInsn(code []byte, ip uint64) (insn, error) {
	if in, ok := decodePTW(code, ip); ok {
		return in, nil
	}
	inst, err := x86asm.Decode(code, 64)
	if needsFallback(code, inst.Len, err) {
		if n := fallbackLen(code); n > 0 {
			return insn{inst: x86asm.Inst{Len: n}, ip: ip, len: uint8(n)}, nil
		}
		if err == nil {
			err = errors.New("unsure of the length")
		}
	}
	if err != nil {
		return insn{}, fmt.Errorf("decode at %#x (% x): %w", ip, code[:min(len(code), 15)], err)
	}
	in := insn{inst: inst, ip: ip, len: uint8(inst.Len)}
	in.class = classify(&inst)
	if in.class == clCond || in.class == clJump || in.class == clCall || in.class == clXBegin {
		if rel, ok := inst.Args[0].(x86asm.Rel); ok {
			in.target = ip + uint64(inst.Len) + uint64(int64(rel))
		}
	}
	if in.class == clPlain && isString(inst.Op) {
		for _, p := range inst.Prefix {
			if p == 0 {
				break
			}
			if p&0xff == x86asm.PrefixREP&0xff || p&0xff == x86asm.PrefixREPN&0xff {
				in.rep = true
			}
		}
	}
	return in, nil
}

func classify(inst *x86asm.Inst) class {
	switch inst.Op {
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE, x86asm.JL,
		x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JS,
		x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ, x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		return clCond
	case x86asm.JMP:
		if _, ok := inst.Args[0].(x86asm.Rel); ok {
			return clJump
		}
		return clIndJump
	case x86asm.CALL:
		if _, ok := inst.Args[0].(x86asm.Rel); ok {
			return clCall
		}
		return clIndCall
	case x86asm.RET:
		return clRet
	case x86asm.SYSCALL:
		return clSyscall
	case x86asm.INT, x86asm.INTO, x86asm.UD0, x86asm.UD1, x86asm.UD2, x86asm.HLT, x86asm.IRET, x86asm.IRETD,
		x86asm.IRETQ, x86asm.LRET, x86asm.LJMP, x86asm.LCALL, x86asm.SYSENTER, x86asm.SYSEXIT,
		x86asm.SYSRET:
		return clOther
	case x86asm.XBEGIN:
		return clXBegin
	case x86asm.XEND:
		return clXEnd
	case x86asm.XABORT:
		return clXAbort
	case x86asm.XTEST:
		return clXTest
	}
	return clPlain
}

func isString(op x86asm.Op) bool {
	switch op {
	case x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ,
		x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ,
		x86asm.LODSB, x86asm.LODSW, x86asm.LODSD, x86asm.LODSQ,
		x86asm.CMPSB, x86asm.CMPSW, x86asm.CMPSD, x86asm.CMPSQ,
		x86asm.SCASB, x86asm.SCASW, x86asm.SCASD, x86asm.SCASQ,
		x86asm.INSB, x86asm.INSW, x86asm.INSD, x86asm.OUTSB, x86asm.OUTSW, x86asm.OUTSD:
		return true
	}
	return false
}

// decodePTW decodes PTWRITE (F3 [REX] 0F AE /4), which x86asm takes for a
// REP-prefixed XSAVE (memory forms) or rejects (register forms). The
// instruction's Args[0] is the operand and DataSize its size in bits.
func decodePTW(code []byte, ip uint64) (insn, bool) {
	i, rep, rex := 0, false, byte(0)
	for ; i < len(code) && i < 14; i++ {
		b := code[i]
		switch b {
		case 0xf3:
			rep = true
			continue
		case 0x66, 0xf2, 0xf0:
			return insn{}, false // #UD with these
		case 0x67, 0x2e, 0x3e, 0x26, 0x36, 0x64, 0x65:
			continue
		}
		break
	}
	if i < len(code) && code[i]&0xf0 == 0x40 {
		rex = code[i]
		i++
	}
	if !rep || i+3 > len(code) || code[i] != 0x0f || code[i+1] != 0xae || code[i+2]>>3&7 != 4 {
		return insn{}, false
	}
	size := 32
	if rex&8 != 0 {
		size = 64
	}
	modrm := code[i+2]
	if modrm>>6 == 3 {
		n := int(modrm&7) | int(rex&1)<<3
		r := x86asm.EAX + x86asm.Reg(n)
		if size == 64 {
			r = x86asm.RAX + x86asm.Reg(n)
		}
		inst := x86asm.Inst{Len: i + 3, DataSize: size, Args: x86asm.Args{r}}
		return insn{inst: inst, ip: ip, len: uint8(inst.Len), class: clPTW}, true
	}
	inst, err := x86asm.Decode(code, 64) // a memory operand: x86asm sizes it right
	if err != nil {
		return insn{}, false
	}
	if _, ok := inst.Args[0].(x86asm.Mem); !ok {
		return insn{}, false
	}
	inst.DataSize = size
	return insn{inst: inst, ip: ip, len: uint8(inst.Len), class: clPTW}, true
}
