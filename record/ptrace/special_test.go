package ptrace

import (
	"fmt"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestDecodeSpecial checks the decoding of PTWRITE (which x86asm does not
// know) and the RTM instructions.
func TestDecodeSpecial(t *testing.T) {
	for _, c := range []struct {
		code  []byte
		class class
		len   int
		size  int    // PTWRITE operand bits
		arg   string // PTWRITE operand
	}{
		{[]byte{0xf3, 0x48, 0x0f, 0xae, 0xe0}, clPTW, 5, 64, "RAX"},
		{[]byte{0xf3, 0x0f, 0xae, 0xe0}, clPTW, 4, 32, "EAX"},
		{[]byte{0xf3, 0x49, 0x0f, 0xae, 0xe7}, clPTW, 5, 64, "R15"},
		{[]byte{0xf3, 0x41, 0x0f, 0xae, 0xe1}, clPTW, 5, 32, "R9L"},
		{[]byte{0xf3, 0x0f, 0xae, 0x25, 0xe4, 0x1f, 0, 0}, clPTW, 8, 32, "Reg(0):[RIP+0x1fe4]"},
		{[]byte{0xf3, 0x48, 0x0f, 0xae, 0x64, 0x24, 0x08}, clPTW, 7, 64, "Reg(0):[RSP+0x8]"},
		{[]byte{0x64, 0xf3, 0x48, 0x0f, 0xae, 0x24, 0x25, 0x10, 0, 0, 0}, clPTW, 11, 64, "FS:[Reg(0)+0x10]"},
		{[]byte{0x0f, 0xae, 0x20}, clPlain, 3, 0, ""},             // XSAVE
		{[]byte{0xf3, 0x0f, 0xae, 0xe8}, clPlain, 0, 0, ""},       // /5: not PTWRITE
		{[]byte{0x66, 0xf3, 0x0f, 0xae, 0xe0}, clPlain, 0, 0, ""}, // #UD
		{[]byte{0xc7, 0xf8, 0x10, 0, 0, 0}, clXBegin, 6, 0, ""},
		{[]byte{0x0f, 0x01, 0xd5}, clXEnd, 3, 0, ""},
		{[]byte{0xc6, 0xf8, 0x5a}, clXAbort, 3, 0, ""},
		{[]byte{0x0f, 0x01, 0xd6}, clXTest, 3, 0, ""},
	} {
		in, err := decodeInsn(append(c.code, make([]byte, 8)...), 0x1000)
		if err != nil {
			if c.class == clPlain && c.len == 0 {
				continue
			}
			t.Errorf("% x: %v", c.code, err)
			continue
		}
		if in.class != c.class || (c.len > 0 && int(in.len) != c.len) {
			t.Errorf("% x: class %d len %d, want %d len %d", c.code, in.class, in.len, c.class, c.len)
			continue
		}
		if c.class == clXBegin && in.target != 0x1000+6+0x10 {
			t.Errorf("% x: target %#x", c.code, in.target)
		}
		if c.class != clPTW {
			continue
		}
		if in.inst.DataSize != c.size {
			t.Errorf("% x: operand size %d, want %d", c.code, in.inst.DataSize, c.size)
		}
		var arg string
		switch a := in.inst.Args[0].(type) {
		case x86asm.Reg:
			arg = a.String()
		case x86asm.Mem:
			arg = fmt.Sprintf("%v:[%v+%#x]", a.Segment, a.Base, disp(a))
		}
		if arg != c.arg {
			t.Errorf("% x: operand %s, want %s", c.code, arg, c.arg)
		}
	}
}
