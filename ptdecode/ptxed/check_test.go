package ptxed

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/insn"
)

// TestCheck: --check prints libipt's iclass error line when x86asm
// classifies an instruction otherwise than the decoder did, and nothing
// when they agree; a block must end at its end IP.
func TestCheck(t *testing.T) {
	var out bytes.Buffer
	p := &printer{w: bufio.NewWriter(&out)}
	p.checkClass(0x10, 0x400000, []byte{0xc3}, insn.Mode64, insn.ClassReturn)           // ret: agrees
	p.checkClass(0x10, 0x400000, []byte{0xe8, 0, 0, 0, 0}, insn.Mode64, insn.ClassCall) // call: agrees
	p.checkClass(0x10, 0x400000, []byte{0x90}, insn.Mode64, insn.ClassOther)            // nop: agrees
	p.w.Flush()
	if out.Len() != 0 {
		t.Errorf("agreeing classes: %q", out.String())
	}
	p.checkClass(0x10, 0x400000, []byte{0xc3}, insn.Mode64, insn.ClassCall)
	// A block of nop, jmp +1 (followed), nop, ret: 4 instructions ending at 0x1005.
	code := []byte{0x90, 0xeb, 0x01, 0xcc, 0x90, 0xc3}
	view := func(end uint64, class insn.Class) blockView {
		return blockView{ip: 0x1000, endIP: end, ninsn: 4, mode: insn.Mode64, class: class,
			code: func(ip uint64) []byte { return code[ip-0x1000:] }}
	}
	p.checkBlock(view(0x1005, insn.ClassReturn), 0x20)
	p.checkBlock(view(0x1004, insn.ClassReturn), 0x20)
	p.checkBlock(view(0x1005, insn.ClassJump), 0x20)
	p.w.Flush()
	want := "[10, 400000: iclass error: iclass: call, xed iclass: RET]\n" +
		"[20, 1005: error: did not reach end: 1004]\n" +
		"[20, 1005: iclass error: iclass: jump, xed iclass: RET]\n"
	if out.String() != want {
		t.Errorf("check lines:\n%s\nwant\n%s", out.String(), want)
	}
}
