package perfinsn

import "testing"

// TestKernelInsnLen: the lengths perf 6.1's copy of the kernel's
// instruction decoder gives bytes that the SDM (and ptdecode/insn) read
// otherwise, seen as -F insnlen of samples in binaries of this machine
// that are not the recorded ones (quipper's perf.data.busy.1-3.4 in
// /bin/bash: "d5 44 89 ea" is AAD 0x44, 2 bytes, where libipt reads a
// REX2 prefix).
func TestKernelInsnLen(t *testing.T) {
	for _, c := range []struct {
		code []byte
		is64 bool
		want int
	}{
		{[]byte{0xd5, 0x44, 0x89, 0xea, 0x83, 0xe0}, true, 2},
		{[]byte{0x66, 0x48, 0xd5, 0x0a, 0x90}, true, 4},
		{[]byte{0xd5}, true, 0},                   // no immediate byte
		{[]byte{0xd5, 0x0a, 0x90}, false, 2},      // AAD in 32-bit code too
		{[]byte{0x47, 0x4e, 0x55}, true, 2},       // a second REX is the opcode
		{[]byte{0x48, 0x89, 0xe5, 0x90}, true, 3}, // mov %rsp,%rbp
		{[]byte{0xe8, 0, 0, 0, 0, 0x90}, true, 5}, // call rel32
		// VEX and EVEX as perf 6.1's AVX tables take them (vexOK)
		{[]byte{0xc5, 0xf8, 0x77, 0x90}, true, 3},                   // vzeroupper
		{[]byte{0x62, 0xf1, 0x7c, 0x08, 0x77, 0xc0}, true, 5},       // EVEX 0F 77: no ModRM
		{[]byte{0xc4, 0xe2, 0x79, 0x50, 0xc0, 0x90}, true, 5},       // vpdpbusd (AVX-VNNI)
		{[]byte{0xc4, 0xe2, 0x79, 0xb0, 0x00, 0x90}, true, 0},       // VEX 66 0F38 B0: not in 6.1's map
		{[]byte{0x62, 0xf3, 0x7d, 0x08, 0x72, 0xc0, 0x01}, true, 7}, // vpshrdw
		{[]byte{0xc4, 0xe3, 0x79, 0x72, 0xc0, 0x01}, true, 0},       // the same under VEX: EVEX only
		{[]byte{0xc5, 0xf9, 0x72, 0xc8, 0x01}, true, 5},             // Grp13 /1 taken under VEX
		{[]byte{0xc5, 0xf9, 0x72, 0xd8, 0x01}, true, 0},             // Grp13 /3: no such member
		{[]byte{0xc5, 0xf9, 0x72}, true, 0},                         // group without its ModRM
		{[]byte{0x62, 0xf4, 0x7c, 0x08, 0x8b, 0xc0}, true, 0},       // EVEX map 4: no table
		{[]byte{0x62, 0xf5, 0x7c, 0x08, 0x58, 0xc0}, true, 6},       // vaddph (AVX512-FP16 map 5)
		{[]byte{0xc5, 0x0a, 0x90}, false, 2},                        // 32-bit: LDS
		{[]byte{0xc5, 0xf8, 0x77}, false, 3},                        // 32-bit: vzeroupper
		// legacy 0F, 0F 38, 0F 3A opcodes as perf 6.1's tables take them
		{[]byte{0x0f, 0x19, 0xc0, 0x90}, true, 2},                   // hint NOP 0F 19: no ModRM
		{[]byte{0x0f, 0x1f, 0x44, 0x00, 0x00}, true, 5},             // nopl 0(%rax,%rax,1)
		{[]byte{0x0f, 0x38, 0x20, 0xc0, 0x90}, true, 3},             // 0F 38 20 without 66: no entry
		{[]byte{0x66, 0x0f, 0x38, 0x20, 0xc0, 0x90}, true, 5},       // pmovsxbw
		{[]byte{0x0f, 0x3a, 0x0f, 0xc1, 0x08}, true, 5},             // palignr (MMX)
		{[]byte{0x0f, 0x3a, 0x0e, 0xc1, 0x08}, true, 3},             // pblendw needs its 66
		{[]byte{0x66, 0x0f, 0x78, 0xc0, 0x01, 0x02}, true, 0},       // EXTRQ: refused (VEX-only entry)
		{[]byte{0x66, 0x2e, 0x0f, 0x78, 0xc0, 0x01, 0x02}, true, 5}, // last prefix 2E: VMREAD
		{[]byte{0x0f, 0xb8, 0xc0}, true, 2},                         // 0F B8 without F3
		{[]byte{0xf3, 0x0f, 0xb8, 0xc0}, true, 4},                   // popcnt
		{[]byte{0xf3, 0x2e, 0x0f, 0xb8, 0xc0}, true, 4},             // F3 not last: 0F B8 again
		{[]byte{0x0f, 0x71, 0xd0, 0x01}, true, 4},                   // psrlw $1,%mm0
		{[]byte{0x0f, 0x71, 0xc0, 0x01}, true, 3},                   // Grp12 /0: ModRM, no immediate
		{[]byte{0xf3, 0x0f, 0x73, 0xd0, 0x01}, true, 4},             // F3 Grp14: no immediate
		{[]byte{0x0f, 0x20, 0x44, 0x24, 0x7f}, true, 5},             // mov %cr: memory ModRM read on
		{[]byte{0x0f, 0x20, 0xc0, 0x90}, true, 3},                   // mov %cr0,%rax
		{[]byte{0x67, 0x0f, 0x22, 0x46, 0x10, 0x20}, false, 5},      // 16-bit addressing: disp8
		{[]byte{0x0f, 0x38, 0xf2, 0xc0}, true, 0},                   // ANDN without VEX: refused
		{[]byte{0xf2, 0x0f, 0x38, 0xf0, 0xc0}, true, 5},             // crc32b
		{[]byte{0x48, 0x9a, 1, 2, 3, 4, 5, 6}, true, 0},             // far call ptr16:64: refused
		{[]byte{0x66, 0xea, 1, 2, 3, 4, 5, 6}, false, 6},            // ljmp ptr16:16
		{[]byte{0x0f, 0x38}, true, 0},                               // the bytes end at the opcode
	} {
		if got := Len(c.code, c.is64); got != c.want {
			t.Errorf("Len(% x, 64-bit %v) = %d, want %d", c.code, c.is64, got, c.want)
		}
	}
}

// TestDecode: intel_pt_insn_decoder's classes of what perf's decoder
// reads, from the opcode bytes as perf reads them.
func TestDecode(t *testing.T) {
	for _, c := range []struct {
		code []byte
		is64 bool
		want Insn
		ok   bool
	}{
		{[]byte{0xe8, 0xfb, 0xff, 0xff, 0xff}, true, Insn{5, OpCall, BrUnconditional, -5}, true},
		{[]byte{0x0f, 0x85, 0x10, 0, 0, 0}, true, Insn{6, OpJcc, BrConditional, 16}, true},
		{[]byte{0x75, 0xfe}, true, Insn{2, OpJcc, BrConditional, -2}, true},
		{[]byte{0xe2, 0x03}, true, Insn{2, OpLoop, BrConditional, 3}, true},
		{[]byte{0xff, 0xd0}, true, Insn{2, OpCall, BrIndirect, 0}, true},      // call *%rax
		{[]byte{0x41, 0xff, 0xe3}, true, Insn{3, OpJmp, BrIndirect, 0}, true}, // jmp *%r11
		{[]byte{0xf3, 0xc3}, true, Insn{2, OpRet, BrIndirect, 0}, true},       // repz ret
		{[]byte{0x0f, 0x05}, true, Insn{2, OpSyscall, BrIndirect, 0}, true},
		{[]byte{0x0f, 0x01, 0xc2}, true, Insn{3, OpVMEntry, BrIndirect, 0}, true},
		{[]byte{0xf1}, true, Insn{1, OpOther, BrNone, 0}, true}, // int1: not perf's int
		{[]byte{0xcd, 0x80}, false, Insn{2, OpInt, BrIndirect, 0}, true},
		{[]byte{0x66, 0xe9, 0x10, 0x00}, false, Insn{4, OpJmp, BrUnconditional, 16}, true}, // jmpw
		{[]byte{0x48, 0x48, 0xe8, 0, 0, 0, 0}, true, Insn{2, OpOther, BrNone, 0}, true},    // the second REX is the opcode
		{[]byte{0xc5, 0xf8, 0x77}, true, Insn{3, OpOther, BrNone, 0}, true},                // vzeroupper
		{[]byte{0x66, 0x0f, 0x78, 0xc0, 0x04, 0x08}, true, Insn{}, false},                  // extrq: refused
		{[]byte{0xf2, 0x0f, 0x79, 0xc1}, true, Insn{}, false},                              // insertq: refused
	} {
		var got Insn
		ok := Decode(c.code, c.is64, &got)
		if ok != c.ok || got != c.want {
			t.Errorf("Decode(% x, 64-bit %v) = %+v, %v; want %+v, %v", c.code, c.is64, got, ok, c.want, c.ok)
		}
	}
}

// TestDecodeAllocatesNothing: Decode is on the session's code-cache
// path, once per instruction; none of its paths allocates (C7 /1 takes
// the Grp11 copy, 0F 20 and 0F 71 /1 modRMEnd's MOV stand-in).
func TestDecodeAllocatesNothing(t *testing.T) {
	for _, c := range [][]byte{
		{0x48, 0x89, 0xe5},
		{0xc7, 0x48, 0x10, 1, 2, 3, 4},
		{0x0f, 0x20, 0x44, 0x24, 0x08},
		{0x0f, 0x71, 0xc8, 0x08},
		{0xc5, 0xf8, 0x77},
		{0xe8, 1, 2, 3, 4},
	} {
		var in Insn
		if a := testing.AllocsPerRun(10, func() { Decode(c, true, &in) }); a != 0 {
			t.Errorf("% x: %v allocations", c, a)
		}
	}
}
