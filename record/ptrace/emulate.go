package ptrace

import (
	"fmt"
	"unsafe"

	"golang.org/x/arch/x86/x86asm"
	"golang.org/x/sys/unix"
)

func uintptrOf[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }

const (
	flagCF = 1 << 0
	flagPF = 1 << 2
	flagZF = 1 << 6
	flagSF = 1 << 7
	flagOF = 1 << 11
)

// condTaken evaluates a conditional branch against the registers before it
// executes (LOOPcc's count is taken as already decremented by the caller).
func condTaken(in *insn, r *unix.PtraceRegs) bool {
	f := r.Eflags
	cf, pf, zf := f&flagCF != 0, f&flagPF != 0, f&flagZF != 0
	sf, of := f&flagSF != 0, f&flagOF != 0
	count := r.Rcx
	if in.inst.AddrSize == 32 {
		count &= 0xffffffff
	}
	switch in.inst.Op {
	case x86asm.JO:
		return of
	case x86asm.JNO:
		return !of
	case x86asm.JB:
		return cf
	case x86asm.JAE:
		return !cf
	case x86asm.JE:
		return zf
	case x86asm.JNE:
		return !zf
	case x86asm.JBE:
		return cf || zf
	case x86asm.JA:
		return !cf && !zf
	case x86asm.JS:
		return sf
	case x86asm.JNS:
		return !sf
	case x86asm.JP:
		return pf
	case x86asm.JNP:
		return !pf
	case x86asm.JL:
		return sf != of
	case x86asm.JGE:
		return sf == of
	case x86asm.JLE:
		return zf || sf != of
	case x86asm.JG:
		return !zf && sf == of
	case x86asm.JCXZ:
		return r.Rcx&0xffff == 0
	case x86asm.JECXZ, x86asm.JRCXZ:
		return count == 0
	case x86asm.LOOP:
		return count != 0
	case x86asm.LOOPE:
		return count != 0 && zf
	case x86asm.LOOPNE:
		return count != 0 && !zf
	}
	return false
}

// emulate performs the branch in (at th.regs.Rip) on th's registers and
// memory and returns where it goes; th.regs.Rip is left for the caller.
func (t *tracer) emulate(th *thread, in *insn) (uint64, error) {
	if in.class.special() {
		return t.special(th, in)
	}
	r := &th.regs
	switch in.class {
	case clCond:
		switch in.inst.Op {
		case x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
			if in.inst.AddrSize == 32 {
				r.Rcx = (r.Rcx - 1) & 0xffffffff
			} else {
				r.Rcx--
			}
		}
		if condTaken(in, r) {
			return in.target, nil
		}
		return in.next(), nil
	case clIndJump, clIndCall:
		to, err := t.operand(th, in, in.inst.Args[0])
		if err != nil {
			return 0, err
		}
		if in.class == clIndCall {
			r.Rsp -= 8
			if err := th.as.write64(r.Rsp, in.next()); err != nil {
				return 0, err
			}
		}
		return to, nil
	case clRet:
		to, err := th.as.read64(r.Rsp)
		if err != nil {
			return 0, err
		}
		r.Rsp += 8
		if imm, ok := in.inst.Args[0].(x86asm.Imm); ok {
			r.Rsp += uint64(imm)
		}
		return to, nil
	}
	return 0, fmt.Errorf("cannot emulate %v at %#x", in.inst, in.ip)
}

// operand reads a branch's register or memory operand.
func (t *tracer) operand(th *thread, in *insn, a x86asm.Arg) (uint64, error) {
	switch a := a.(type) {
	case x86asm.Reg:
		v, ok := reg(&th.regs, a)
		if !ok {
			return 0, fmt.Errorf("register %v at %#x", a, in.ip)
		}
		return v, nil
	case x86asm.Mem:
		ea, err := t.ea(th, in, a)
		if err != nil {
			return 0, err
		}
		v, err := th.as.read64(ea)
		if err != nil {
			return 0, err
		}
		if in.inst.DataSize == 16 {
			v &= 0xffff
		}
		return v, nil
	}
	return 0, fmt.Errorf("operand %v at %#x", a, in.ip)
}

// ea computes a memory operand's effective address.
func (t *tracer) ea(th *thread, in *insn, a x86asm.Mem) (uint64, error) {
	var ea uint64
	if a.Base == x86asm.RIP {
		ea = in.next()
	} else if a.Base != 0 {
		v, ok := reg(&th.regs, a.Base)
		if !ok {
			return 0, fmt.Errorf("base %v at %#x", a.Base, in.ip)
		}
		ea = v
	}
	if a.Index != 0 {
		v, ok := reg(&th.regs, a.Index)
		if !ok {
			return 0, fmt.Errorf("index %v at %#x", a.Index, in.ip)
		}
		ea += v * uint64(a.Scale)
	}
	ea += uint64(disp(a))
	if in.inst.AddrSize == 32 {
		ea &= 0xffffffff
	}
	switch a.Segment {
	case x86asm.FS:
		ea += th.regs.Fs_base
	case x86asm.GS:
		ea += th.regs.Gs_base
	}
	return ea, nil
}

// reg reads a general register (64- or 32-bit).
func reg(r *unix.PtraceRegs, x x86asm.Reg) (uint64, bool) {
	var v64 = [...]*uint64{&r.Rax, &r.Rcx, &r.Rdx, &r.Rbx, &r.Rsp, &r.Rbp, &r.Rsi, &r.Rdi,
		&r.R8, &r.R9, &r.R10, &r.R11, &r.R12, &r.R13, &r.R14, &r.R15}
	switch {
	case x >= x86asm.RAX && x <= x86asm.R15:
		return *v64[x-x86asm.RAX], true
	case x >= x86asm.EAX && x <= x86asm.R15L:
		return *v64[x-x86asm.EAX] & 0xffffffff, true
	}
	return 0, false
}

// disp returns a memory operand's displacement: x86asm gives a 32-bit
// displacement zero-extended, the CPU sign-extends it.
func disp(a x86asm.Mem) int64 {
	if a.Disp>>32 == 0 {
		return int64(int32(a.Disp))
	}
	return a.Disp
}
