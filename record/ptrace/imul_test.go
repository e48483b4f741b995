package ptrace

import (
	"math/big"
	"testing"

	"golang.org/x/arch/x86/x86asm"
	"golang.org/x/sys/unix"
)

// TestIMULFlags checks the interpreter's IMUL overflow flags against big
// integer arithmetic.
func TestIMULFlags(t *testing.T) {
	vals := []int64{0, 1, -1, 2, -2, 3, 1 << 15, -1 << 15, 1<<15 - 1, 1 << 31, -1 << 31, 1<<31 - 1, 1<<62 + 5, -1 << 63, 1<<63 - 1, 0x1234567, -0x7654321}
	for _, size := range []int{2, 4, 8} {
		reg0 := map[int]x86asm.Reg{2: x86asm.AX, 4: x86asm.EAX, 8: x86asm.RAX}[size]
		reg1 := map[int]x86asm.Reg{2: x86asm.CX, 4: x86asm.ECX, 8: x86asm.RCX}[size]
		for _, a := range vals {
			for _, b := range vals {
				var r unix.PtraceRegs
				m := interp{r: &r}
				m.regs = regsArr(&r)
				r.Rax, r.Rcx = uint64(a), uint64(b)
				in := insn{inst: x86asm.Inst{Op: x86asm.IMUL, Args: x86asm.Args{reg0, reg1}}}
				if !m.step(&in) {
					t.Fatal("imul not run")
				}
				sh := uint(64 - 8*size)
				sa, sb := a<<sh>>sh, b<<sh>>sh
				p := new(big.Int).Mul(big.NewInt(sa), big.NewInt(sb))
				over := p.BitLen() > 8*size-1 && !(p.Sign() < 0 && new(big.Int).Neg(p).Cmp(new(big.Int).Lsh(big.NewInt(1), uint(8*size-1))) == 0)
				got := r.Eflags&(flagCF|flagOF) == flagCF|flagOF
				if got != over {
					t.Errorf("size %d: %d*%d: overflow %v, want %v", size, sa, sb, got, over)
				}
				if want := uint64(sa*sb) & mask(size); r.Rax&mask(size) != want {
					t.Errorf("size %d: %d*%d = %#x, want %#x", size, sa, sb, r.Rax&mask(size), want)
				}
			}
		}
	}
}
