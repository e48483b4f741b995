package script

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
	} {
		if got := kernelInsnLen(c.code, c.is64); got != c.want {
			t.Errorf("kernelInsnLen(% x, 64-bit %v) = %d, want %d", c.code, c.is64, got, c.want)
		}
	}
}
