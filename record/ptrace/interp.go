package ptrace

import (
	"math/bits"

	"golang.org/x/arch/x86/x86asm"
	"golang.org/x/sys/unix"
)

// Fast mode's interpreter: after emulating a branch at a breakpoint, the
// tracer goes on executing the following blocks itself while they consist
// only of simple integer instructions (moves, loads, stores, LEA, ALU ops,
// shifts, PUSH/POP, direct jumps and calls), up to their branch, which it
// emulates as usual. Each block run this way saves a ptrace stop. A block
// with anything else (or a memory access that fails) is left to the CPU.

// interpMax caps the blocks interpreted in a row, so that a thread spinning
// on memory another thread writes still runs natively now and then.
const interpMax = 256

// regsArr gives the general registers of r by number (RAX=0 ... R15=15).
func regsArr(r *unix.PtraceRegs) [16]*uint64 {
	return [16]*uint64{&r.Rax, &r.Rcx, &r.Rdx, &r.Rbx, &r.Rsp, &r.Rbp, &r.Rsi, &r.Rdi,
		&r.R8, &r.R9, &r.R10, &r.R11, &r.R12, &r.R13, &r.R14, &r.R15}
}

// regInfo returns a register's number, size in bytes and whether it is a
// high-byte register (AH..BH).
func regInfo(x x86asm.Reg) (n int, size int, high bool, ok bool) {
	switch {
	case x >= x86asm.AL && x <= x86asm.BL:
		return int(x - x86asm.AL), 1, false, true
	case x >= x86asm.AH && x <= x86asm.BH:
		return int(x - x86asm.AH), 1, true, true
	case x >= x86asm.SPB && x <= x86asm.R15B:
		return int(x-x86asm.SPB) + 4, 1, false, true
	case x >= x86asm.AX && x <= x86asm.R15W:
		return int(x - x86asm.AX), 2, false, true
	case x >= x86asm.EAX && x <= x86asm.R15L:
		return int(x - x86asm.EAX), 4, false, true
	case x >= x86asm.RAX && x <= x86asm.R15:
		return int(x - x86asm.RAX), 8, false, true
	}
	return 0, 0, false, false
}

func mask(size int) uint64 {
	if size >= 8 {
		return ^uint64(0)
	}
	return 1<<(8*size) - 1
}

type interp struct {
	t    *tracer
	th   *thread
	r    *unix.PtraceRegs
	regs [16]*uint64
	in   *insn
}

func (m *interp) getReg(x x86asm.Reg) (uint64, int, bool) {
	n, size, high, ok := regInfo(x)
	if !ok {
		return 0, 0, false
	}
	v := *m.regs[n]
	if high {
		v >>= 8
	}
	return v & mask(size), size, true
}

func (m *interp) setReg(x x86asm.Reg, v uint64) bool {
	n, size, high, ok := regInfo(x)
	if !ok {
		return false
	}
	p := m.regs[n]
	switch {
	case high:
		*p = *p&^0xff00 | (v&0xff)<<8
	case size == 4:
		*p = v & 0xffffffff // 32-bit writes zero the upper half
	case size == 8:
		*p = v
	default:
		*p = *p&^mask(size) | v&mask(size)
	}
	return true
}

func (m *interp) addr(a x86asm.Mem) (uint64, bool) {
	var ea uint64
	switch {
	case a.Base == x86asm.RIP:
		ea = m.in.next()
	case a.Base != 0:
		n, size, _, ok := regInfo(a.Base)
		if !ok || size != 8 {
			return 0, false
		}
		ea = *m.regs[n]
	}
	if a.Index != 0 {
		n, size, _, ok := regInfo(a.Index)
		if !ok || size != 8 {
			return 0, false
		}
		ea += *m.regs[n] * uint64(a.Scale)
	}
	ea += uint64(disp(a))
	switch a.Segment {
	case 0:
	case x86asm.FS:
		ea += m.r.Fs_base
	case x86asm.GS:
		ea += m.r.Gs_base
	default:
		return 0, false
	}
	return ea, true
}

func (m *interp) load(ea uint64, size int) (uint64, bool) {
	if !m.th.as.accessible(ea, size, false) {
		return 0, false
	}
	var b [8]byte
	if _, err := m.th.as.mem.ReadAt(b[:size], int64(ea)); err != nil {
		return 0, false
	}
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, true
}

func (m *interp) store(ea uint64, size int, v uint64) bool {
	if !m.th.as.accessible(ea, size, true) {
		return false
	}
	var b [8]byte
	for i := 0; i < size; i++ {
		b[i] = byte(v >> (8 * i))
	}
	_, err := m.th.as.mem.WriteAt(b[:size], int64(ea))
	return err == nil
}

// read evaluates a source operand of the given size.
func (m *interp) read(a x86asm.Arg, size int) (uint64, bool) {
	switch a := a.(type) {
	case x86asm.Reg:
		v, _, ok := m.getReg(a)
		return v & mask(size), ok
	case x86asm.Imm:
		return uint64(a) & mask(size), true
	case x86asm.Mem:
		ea, ok := m.addr(a)
		if !ok {
			return 0, false
		}
		return m.load(ea, size)
	}
	return 0, false
}

func (m *interp) write(a x86asm.Arg, size int, v uint64) bool {
	switch a := a.(type) {
	case x86asm.Reg:
		return m.setReg(a, v)
	case x86asm.Mem:
		ea, ok := m.addr(a)
		if !ok {
			return false
		}
		return m.store(ea, size, v)
	}
	return false
}

// opSize is the operand size in bytes of an instruction's first operand.
func opSize(inst *x86asm.Inst) int {
	if r, ok := inst.Args[0].(x86asm.Reg); ok {
		_, size, _, ok := regInfo(r)
		if ok {
			return size
		}
		return 0
	}
	if inst.MemBytes > 0 {
		return inst.MemBytes
	}
	return inst.DataSize / 8
}

// simple says whether step can execute inst.
func simple(inst *x86asm.Inst) bool {
	for _, p := range inst.Prefix {
		if p == 0 {
			break
		}
		switch b := byte(p); {
		case b >= 0x40 && b <= 0x4f: // REX
		case b == 0x66: // operand size
		case b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 || b == 0x65: // segments
		default:
			return false
		}
	}
	switch inst.Op {
	case x86asm.MOV, x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD, x86asm.LEA, x86asm.ADD, x86asm.SUB,
		x86asm.CMP, x86asm.AND, x86asm.OR, x86asm.XOR, x86asm.TEST, x86asm.INC, x86asm.DEC, x86asm.NEG,
		x86asm.SHL, x86asm.SHR, x86asm.SAR, x86asm.NOP, x86asm.PUSH, x86asm.POP, x86asm.JMP, x86asm.CALL:
		return true
	case x86asm.IMUL:
		return inst.Args[1] != nil // the two- and three-operand forms
	}
	return cmovCond(inst.Op) != 0 || setCond(inst.Op) != 0
}

// step executes one simple instruction; false means it could not (the CPU
// must run it) and nothing was changed.
func (m *interp) step(in *insn) bool {
	m.in = in
	inst := &in.inst
	a0, a1 := inst.Args[0], inst.Args[1]
	switch inst.Op {
	case x86asm.NOP:
		return true
	case x86asm.JMP: // direct (block walk followed it)
		return true
	case x86asm.CALL: // direct
		sp := m.r.Rsp - 8
		if !m.store(sp, 8, in.next()) {
			return false
		}
		m.r.Rsp = sp
		return true
	case x86asm.PUSH:
		size := opSize(inst)
		if size != 8 {
			return false
		}
		v, ok := m.read(a0, 8)
		if !ok {
			return false
		}
		if imm, isImm := a0.(x86asm.Imm); isImm {
			v = uint64(int64(imm))
		}
		sp := m.r.Rsp - 8
		if !m.store(sp, 8, v) {
			return false
		}
		m.r.Rsp = sp
		return true
	case x86asm.POP:
		r, ok := a0.(x86asm.Reg)
		if !ok {
			return false
		}
		if _, size, _, ok := regInfo(r); !ok || size != 8 {
			return false
		}
		v, ok := m.load(m.r.Rsp, 8)
		if !ok {
			return false
		}
		m.r.Rsp += 8
		m.setReg(r, v)
		return true
	case x86asm.LEA:
		mem, ok := a1.(x86asm.Mem)
		if !ok || mem.Segment != 0 {
			return false
		}
		ea, ok := m.addr(mem)
		if !ok {
			return false
		}
		if inst.AddrSize != 64 {
			return false
		}
		return m.setReg(a0.(x86asm.Reg), ea)
	case x86asm.MOV:
		size := opSize(inst)
		if size == 0 {
			return false
		}
		if _, isSeg := a1.(x86asm.Reg); isSeg {
			if _, _, _, ok := regInfo(a1.(x86asm.Reg)); !ok {
				return false // segment or control register
			}
		}
		v, ok := m.read(a1, size)
		if !ok {
			return false
		}
		if imm, isImm := a1.(x86asm.Imm); isImm && size == 8 {
			v = uint64(int64(imm))
		}
		return m.write(a0, size, v)
	case x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD:
		dst, ok := a0.(x86asm.Reg)
		if !ok {
			return false
		}
		_, dsize, _, ok := regInfo(dst)
		if !ok {
			return false
		}
		ssize := inst.MemBytes
		if r, isReg := a1.(x86asm.Reg); isReg {
			_, ssize, _, ok = regInfo(r)
			if !ok {
				return false
			}
		}
		if ssize == 0 {
			return false
		}
		v, ok := m.read(a1, ssize)
		if !ok {
			return false
		}
		if inst.Op != x86asm.MOVZX {
			sh := uint(64 - 8*ssize)
			v = uint64(int64(v<<sh) >> sh)
		}
		return m.setReg(dst, v&mask(dsize))
	case x86asm.ADD, x86asm.SUB, x86asm.CMP, x86asm.AND, x86asm.OR, x86asm.XOR, x86asm.TEST:
		size := opSize(inst)
		if size == 0 {
			return false
		}
		a, ok := m.read(a0, size)
		if !ok {
			return false
		}
		b, ok := m.read(a1, size)
		if !ok {
			return false
		}
		var res, f uint64
		switch inst.Op {
		case x86asm.ADD:
			res = (a + b) & mask(size)
			f = addFlags(a, b, res, size)
		case x86asm.SUB, x86asm.CMP:
			res = (a - b) & mask(size)
			f = subFlags(a, b, res, size)
		case x86asm.AND, x86asm.TEST:
			res = a & b
			f = szp(res, size)
		case x86asm.OR:
			res = a | b
			f = szp(res, size)
		case x86asm.XOR:
			res = a ^ b
			f = szp(res, size)
		}
		if inst.Op != x86asm.CMP && inst.Op != x86asm.TEST {
			if !m.write(a0, size, res) {
				return false
			}
		}
		which := uint64(arithFlags)
		if inst.Op == x86asm.AND || inst.Op == x86asm.OR || inst.Op == x86asm.XOR || inst.Op == x86asm.TEST {
			which = arithFlags &^ flagAF // AF is undefined: leave it
		}
		m.setFlags(f, which)
		return true
	case x86asm.INC, x86asm.DEC:
		size := opSize(inst)
		if size == 0 {
			return false
		}
		a, ok := m.read(a0, size)
		if !ok {
			return false
		}
		var res, f uint64
		if inst.Op == x86asm.INC {
			res = (a + 1) & mask(size)
			f = addFlags(a, 1, res, size)
		} else {
			res = (a - 1) & mask(size)
			f = subFlags(a, 1, res, size)
		}
		if !m.write(a0, size, res) {
			return false
		}
		m.setFlags(f, arithFlags&^flagCF)
		return true
	case x86asm.IMUL:
		// dst = src1 * src2 (truncated); CF and OF say whether the signed
		// product did not fit. SF, ZF, AF and PF are undefined: left as
		// they were.
		dst, ok := a0.(x86asm.Reg)
		if !ok {
			return false
		}
		_, size, _, ok := regInfo(dst)
		if !ok || size < 2 {
			return false
		}
		src1, src2 := a0, a1
		if inst.Args[2] != nil {
			src1, src2 = a1, inst.Args[2]
		}
		x, ok := m.read(src1, size)
		if !ok {
			return false
		}
		y, ok := m.read(src2, size)
		if !ok {
			return false
		}
		sh := uint(64 - 8*size)
		sx, sy := int64(x<<sh)>>sh, int64(y<<sh)>>sh
		hi, lo := bits.Mul64(uint64(sx), uint64(sy))
		// The signed 128-bit product: fix the high half for negative factors.
		if sx < 0 {
			hi -= uint64(sy)
		}
		if sy < 0 {
			hi -= uint64(sx)
		}
		res := lo & mask(size)
		sres := int64(res<<sh) >> sh
		var f uint64
		fits := false
		if size == 8 {
			fits = (int64(lo) < 0 && hi == ^uint64(0)) || (int64(lo) >= 0 && hi == 0)
		} else {
			fits = int64(lo) == sres && (hi == 0 && int64(lo) >= 0 || hi == ^uint64(0) && int64(lo) < 0)
		}
		if !fits {
			f |= flagCF | flagOF
		}
		if !m.setReg(dst, res) {
			return false
		}
		m.setFlags(f, flagCF|flagOF)
		return true
	case x86asm.NEG:
		size := opSize(inst)
		if size == 0 {
			return false
		}
		a, ok := m.read(a0, size)
		if !ok {
			return false
		}
		res := (0 - a) & mask(size)
		f := subFlags(0, a, res, size)
		if !m.write(a0, size, res) {
			return false
		}
		m.setFlags(f, arithFlags)
		return true
	case x86asm.SHL, x86asm.SHR, x86asm.SAR:
		size := opSize(inst)
		imm, ok := a1.(x86asm.Imm)
		if size == 0 || !ok {
			return false
		}
		n := uint(imm) & 31
		if size == 8 {
			n = uint(imm) & 63
		}
		a, ok := m.read(a0, size)
		if !ok {
			return false
		}
		if n == 0 {
			return true
		}
		if n >= uint(8*size) {
			return false // flags of such shifts are not worth modelling
		}
		var res, f uint64
		top := uint(8*size - 1)
		switch inst.Op {
		case x86asm.SHL:
			res = a << n & mask(size)
			if a>>(uint(8*size)-n)&1 != 0 {
				f |= flagCF
			}
			if (res>>top&1 != 0) != (f&flagCF != 0) {
				f |= flagOF
			}
		case x86asm.SHR:
			res = a >> n
			if a>>(n-1)&1 != 0 {
				f |= flagCF
			}
			if a>>top&1 != 0 {
				f |= flagOF
			}
		case x86asm.SAR:
			sh := uint(64 - 8*size)
			sa := int64(a<<sh) >> sh
			res = uint64(sa>>n) & mask(size)
			if uint64(sa>>(n-1))&1 != 0 {
				f |= flagCF
			}
		}
		if n != 1 {
			// OF is undefined for counts above one: keep what the CPU we
			// model does for one (Intel and AMD agree on this in practice).
		}
		f |= szp(res, size)
		if !m.write(a0, size, res) {
			return false
		}
		m.setFlags(f, arithFlags&^flagAF)
		return true
	}
	if j := cmovCond(inst.Op); j != 0 {
		dst, ok := a0.(x86asm.Reg)
		if !ok {
			return false
		}
		_, size, _, ok := regInfo(dst)
		if !ok || size < 2 {
			return false
		}
		v, ok := m.read(a1, size) // read (and fault) whatever the condition
		if !ok {
			return false
		}
		if !m.cond(j) {
			if size != 4 {
				return true
			}
			v, _, _ = m.getReg(dst) // a 32-bit CMOV zeroes the upper half anyway
		}
		return m.setReg(dst, v)
	}
	if j := setCond(inst.Op); j != 0 {
		var v uint64
		if m.cond(j) {
			v = 1
		}
		return m.write(a0, 1, v)
	}
	return false
}

// interpret runs th's blocks from ip in the tracer while it can (see the
// top of this file) and returns where the CPU must take over; th.regs
// holds the registers for there.
func (t *tracer) interpret(th *thread, ip uint64) uint64 {
	m := interp{t: t, th: th, r: &th.regs}
	m.regs = regsArr(m.r)
	for n := 0; n < interpMax; n++ {
		blk, err := th.as.block(ip)
		if err != nil {
			return ip
		}
		last := blk.last()
		if !last.class.emulated() {
			return ip
		}
		body := blk.insns[:len(blk.insns)-1]
		for i := range body {
			if !simple(&body[i].inst) {
				return ip
			}
		}
		th.blk = blk
		for i := range body {
			if !m.step(&body[i]) {
				// The CPU runs the rest (and faults if it must).
				t.retireBlock(th, body[i].ip, false)
				return body[i].ip
			}
		}
		if err := t.retireBlock(th, last.ip, false); err != nil {
			return last.ip
		}
		th.regs.Rip = last.ip
		to, err := t.emulate(th, &last)
		if err != nil {
			return last.ip
		}
		t.complete(th, &last, to, 0)
		t.stats.Interpreted++
		ip = to
		if th.tx != nil {
			return ip // a transaction began: it is stepped
		}
	}
	return ip
}
