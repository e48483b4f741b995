package insn

import (
	"debug/elf"
	"encoding/hex"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

func TestDecodeTable(t *testing.T) {
	tests := []struct {
		hex    string
		mode   Mode
		size   uint8
		class  Class
		iclass IClass
		disp   int64
	}{
		{"90", Mode64, 1, ClassOther, IInvalid, 0},
		{"c3", Mode64, 1, ClassReturn, IRetC3, 0},
		{"c20800", Mode64, 3, ClassReturn, IRetC2, 0},
		{"e800000000", Mode64, 5, ClassCall, ICallE8, 0},
		{"66e8fcffffff", Mode64, 6, ClassCall, ICallE8, -4},
		{"e8fcff", Mode16, 3, ClassCall, ICallE8, -4},
		{"66e8fcffffff", Mode16, 6, ClassCall, ICallE8, -4},
		{"ebfe", Mode64, 2, ClassJump, IJmpEB, -2},
		{"7410", Mode32, 2, ClassCondJump, IJcc, 16},
		{"0f8400010000", Mode64, 6, ClassCondJump, IJcc, 256},
		{"660f8400010000", Mode64, 7, ClassCondJump, IJcc, 256},
		{"660f840001", Mode32, 5, ClassCondJump, IJcc, 256},
		{"e3fe", Mode64, 2, ClassCondJump, IJrCXZ, -2},
		{"e2fe", Mode64, 2, ClassCondJump, ILoop, -2},
		{"ffd0", Mode64, 2, ClassCall, ICallFFr2, 0},
		{"ff2500000000", Mode64, 6, ClassJump, IJmpFFr4, 0},
		{"ff1c24", Mode64, 3, ClassFarCall, ICallFFr3, 0},
		{"9a0000000010 00", Mode32, 7, ClassFarCall, ICall9A, 0},
		{"ea000010000800", Mode32, 7, ClassFarJump, IJmpEA, 0},
		{"cd80", Mode32, 2, ClassFarCall, IInt, 0},
		{"cc", Mode64, 1, ClassFarCall, IInt3, 0},
		{"48cf", Mode64, 2, ClassFarReturn, IIret, 0},
		{"0f05", Mode64, 2, ClassFarCall, ISyscall, 0},
		{"480f07", Mode64, 3, ClassFarReturn, ISysret, 0},
		{"0f34", Mode32, 2, ClassFarCall, ISysenter, 0},
		{"0f01c2", Mode64, 3, ClassFarReturn, IVmlaunch, 0},
		{"0f01c3", Mode64, 3, ClassFarReturn, IVmresume, 0},
		{"0f01c1", Mode64, 3, ClassFarCall, IVmcall, 0},
		{"f30f01ec", Mode64, 4, ClassFarReturn, IUiret, 0},
		{"0f22d8", Mode64, 3, ClassOther, IMovCR3, 0},
		{"0fc73424", Mode64, 4, ClassOther, IVmptrld, 0},
		{"f30fae20", Mode64, 4, ClassPTWrite, IPtwrite, 0},
		{"f3480fae20", Mode64, 5, ClassPTWrite, IPtwrite, 0},
		{"48b80102030405060708", Mode64, 10, ClassOther, IInvalid, 0},
		{"b80102030405", Mode64, 5, ClassOther, IInvalid, 0},
		{"66b80102", Mode64, 4, ClassOther, IInvalid, 0},
		{"b80102", Mode16, 3, ClassOther, IInvalid, 0},
		{"a10000000000000000", Mode64, 9, ClassOther, IInvalid, 0},
		{"a100000000", Mode32, 5, ClassOther, IInvalid, 0},
		{"8b8400000000", Mode16, 4, ClassOther, IInvalid, 0},
		{"8b8400000000 00", Mode32, 7, ClassOther, IInvalid, 0},
		{"c5f877", Mode64, 3, ClassOther, IInvalid, 0},
		{"c4e27d18c0", Mode64, 5, ClassOther, IInvalid, 0},
		{"62f17c48100424", Mode64, 7, ClassOther, IInvalid, 0},
		{"c8100001", Mode64, 4, ClassOther, IInvalid, 0},
		{"f6c101", Mode64, 3, ClassOther, IInvalid, 0},
		{"f7c101000000", Mode64, 6, ClassOther, IInvalid, 0},
		{"f7d1", Mode64, 2, ClassOther, IInvalid, 0},
		{"c7f800000000", Mode64, 6, ClassOther, IInvalid, 0},
		{"0f0f c0 b4", Mode64, 4, ClassOther, IInvalid, 0},
		{"0f3a0fc108", Mode64, 5, ClassOther, IInvalid, 0},
		{"d500a10010000000000000", Mode64, 11, ClassJump, IJmpAbs, 0x1000},
	}
	for _, tt := range tests {
		code := mustHex(t, tt.hex)
		var in Insn
		if err := Decode(&in, code, tt.mode); err != nil {
			t.Errorf("%s %v: %v", tt.hex, tt.mode, err)
			continue
		}
		if in.Size != tt.size || in.Class != tt.class || in.IClass != tt.iclass || in.Disp != tt.disp {
			t.Errorf("%s %v: got size %d %v %v disp %d, want %d %v %v %d", tt.hex, tt.mode,
				in.Size, in.Class, in.IClass, in.Disp, tt.size, tt.class, tt.iclass, tt.disp)
		}
		// Every prefix of the encoding is too short.
		for n := 0; n < len(code) && n < int(tt.size); n++ {
			if err := Decode(&in, code[:n], tt.mode); err != ErrShort {
				t.Errorf("%s[:%d]: got %v, want ErrShort", tt.hex, n, err)
			}
		}
	}
}

func TestDecodeBad(t *testing.T) {
	var in Insn
	for _, h := range []string{"0f39", "0f3b00", "66666666666666666666666666666690"} {
		if err := Decode(&in, mustHex(t, h), Mode64); err != ErrBadInsn {
			t.Errorf("%s: got %v, want ErrBadInsn", h, err)
		}
	}
	if err := Decode(&in, []byte{0x90}, ModeUnknown); err != ErrBadInsn {
		t.Errorf("unknown mode: %v", err)
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b := []byte{}
	for _, c := range []byte(s) {
		if c != ' ' {
			b = append(b, c)
		}
	}
	out, err := hex.DecodeString(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAgainstX86asm sweeps the code of a compiled program and compares the
// length and class of every instruction with golang.org/x/arch's x86asm.
func TestAgainstX86asm(t *testing.T) {
	f, err := elf.Open("/usr/bin/ls")
	if err != nil {
		t.Skip("no /usr/bin/ls to sweep:", err)
	}
	defer f.Close()
	sec := f.Section(".text")
	if sec == nil || f.Machine != elf.EM_X86_64 {
		t.Skip("no x86-64 .text in /usr/bin/ls")
	}
	code, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	n, bad := 0, 0
	for off := 0; off < len(code); {
		var in Insn
		err := Decode(&in, code[off:], Mode64)
		xi, xerr := x86asm.Decode(code[off:], 64)
		if err != nil {
			if xerr == nil {
				t.Errorf("%#x: ild %v, x86asm %v", off, err, xi)
			}
			off++
			continue
		}
		n++
		if xerr == nil && xi.Op != 0 { // Op 0: a lone prefix x86asm could not attach (endbr64)
			if int(in.Size) != xi.Len {
				bad++
				if bad < 10 {
					t.Errorf("%#x % x: ild len %d, x86asm %d (%v)", off, code[off:off+xi.Len], in.Size, xi.Len, xi)
				}
			}
			if c := x86asmClass(xi); c != in.Class {
				t.Errorf("%#x %v: ild class %v, x86asm %v", off, xi, in.Class, c)
			}
		}
		off += int(in.Size)
	}
	t.Logf("%d instructions compared, %d length mismatches", n, bad)
}

func x86asmClass(xi x86asm.Inst) Class {
	switch xi.Op {
	case x86asm.CALL:
		return ClassCall
	case x86asm.RET:
		return ClassReturn
	case x86asm.JMP:
		return ClassJump
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE, x86asm.JL,
		x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JS,
		x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ, x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		return ClassCondJump
	case x86asm.LCALL, x86asm.INT, x86asm.SYSCALL, x86asm.SYSENTER:
		return ClassFarCall
	case x86asm.LRET, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ, x86asm.SYSRET, x86asm.SYSEXIT:
		return ClassFarReturn
	case x86asm.LJMP:
		return ClassFarJump
	}
	return ClassOther
}
