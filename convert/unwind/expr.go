package unwind

// DWARF expression opcodes libunwind's dwarf_eval_expr knows.
const (
	opAddr       = 0x03
	opDeref      = 0x06
	opConst1u    = 0x08
	opConst1s    = 0x09
	opConst2u    = 0x0a
	opConst2s    = 0x0b
	opConst4u    = 0x0c
	opConst4s    = 0x0d
	opConst8u    = 0x0e
	opConst8s    = 0x0f
	opConstu     = 0x10
	opConsts     = 0x11
	opDup        = 0x12
	opDrop       = 0x13
	opOver       = 0x14
	opPick       = 0x15
	opSwap       = 0x16
	opRot        = 0x17
	opAbs        = 0x19
	opAnd        = 0x1a
	opDiv        = 0x1b
	opMinus      = 0x1c
	opMod        = 0x1d
	opMul        = 0x1e
	opNeg        = 0x1f
	opNot        = 0x20
	opOr         = 0x21
	opPlus       = 0x22
	opPlusUconst = 0x23
	opShl        = 0x24
	opShr        = 0x25
	opShra       = 0x26
	opXor        = 0x27
	opBra        = 0x28
	opEq         = 0x29
	opGe         = 0x2a
	opGt         = 0x2b
	opLe         = 0x2c
	opLt         = 0x2d
	opNe         = 0x2e
	opSkip       = 0x2f
	opLit0       = 0x30
	opLit31      = 0x4f
	opReg0       = 0x50
	opReg31      = 0x6f
	opBreg0      = 0x70
	opBreg31     = 0x8f
	opRegx       = 0x90
	opBregx      = 0x92
	opDerefSize  = 0x94
	opNop        = 0x96
)

const (
	// maxExprStack is libunwind's MAX_EXPR_STACK_SIZE.
	maxExprStack = 64
	// maxExprSteps bounds the operations of one evaluation: libunwind
	// has no bound, and a backward DW_OP_skip loops it forever.
	maxExprSteps = 4096
)

// unwReg is libunwind's dwarf_to_unw_regnum: DWARF numbers past the map
// read as register 0.
func unwReg(r uint64) uint64 {
	if r < NumRegs {
		return r
	}
	return 0
}

// eval mirrors libunwind's dwarf_eval_expr: push init, run, and return
// the top of the stack, or the register an DW_OP_reg/regx names (isReg).
func (u *Unwinder) eval(expr []byte, init uint64) (val uint64, isReg bool, err error) {
	var st [maxExprStack]uint64
	st[0] = init
	tos := 1
	c := cur{B: expr}
	push := func(v uint64) bool {
		if tos >= maxExprStack {
			return false
		}
		st[tos] = v
		tos++
		return true
	}
	for steps := 0; c.Left() > 0; steps++ {
		if steps >= maxExprSteps {
			return 0, false, ErrBadExpr
		}
		op := c.U8()
		ok := true
		switch {
		case op >= opLit0 && op <= opLit31:
			ok = push(uint64(op - opLit0))
		case op >= opBreg0 && op <= opBreg31:
			off := uint64(c.SLEB())
			v, e := u.getReg(unwReg(uint64(op - opBreg0)))
			if e != nil {
				return 0, false, e
			}
			ok = push(v + off)
		case op == opBregx:
			r := c.ULEB()
			off := uint64(c.SLEB())
			if c.Bad {
				return 0, false, ErrBadExpr
			}
			v, e := u.getReg(unwReg(r))
			if e != nil {
				return 0, false, e
			}
			ok = push(v + off)
		case op >= opReg0 && op <= opReg31:
			return unwReg(uint64(op - opReg0)), true, nil
		case op == opRegx:
			r := c.ULEB()
			if c.Bad {
				return 0, false, ErrBadExpr
			}
			return unwReg(r), true, nil
		case op == opAddr || op == opConst8u || op == opConst8s:
			ok = push(c.U64())
		case op == opConst1u:
			ok = push(uint64(c.U8()))
		case op == opConst2u:
			ok = push(uint64(c.U16()))
		case op == opConst4u:
			ok = push(uint64(c.U32()))
		case op == opConst1s:
			ok = push(uint64(int64(int8(c.U8()))))
		case op == opConst2s:
			ok = push(uint64(int64(int16(c.U16()))))
		case op == opConst4s:
			ok = push(uint64(int64(int32(c.U32()))))
		case op == opConstu:
			ok = push(c.ULEB())
		case op == opConsts:
			ok = push(uint64(c.SLEB()))
		case op == opDeref:
			if tos < 1 {
				return 0, false, ErrBadExpr
			}
			v, st1 := u.readMem(st[tos-1])
			if st1 < 0 {
				return 0, false, ErrNoMap
			}
			st[tos-1] = v
		case op == opDerefSize:
			n := c.U8()
			if tos < 1 || n < 1 || n > 8 {
				return 0, false, ErrBadExpr
			}
			v, e := u.readSized(st[tos-1], int(n))
			if e != nil {
				return 0, false, e
			}
			st[tos-1] = v
		case op == opDup:
			ok = tos >= 1 && push(st[tos-1])
		case op == opDrop:
			ok = tos >= 1
			tos--
		case op == opPick:
			n := int(c.U8())
			ok = n < tos && push(st[tos-1-n])
		case op == opOver:
			ok = tos >= 2 && push(st[tos-2])
		case op == opSwap:
			if ok = tos >= 2; ok {
				st[tos-1], st[tos-2] = st[tos-2], st[tos-1]
			}
		case op == opRot:
			// libunwind: pop a, b, c; push a, c, b.
			if ok = tos >= 3; ok {
				a, b, cc := st[tos-1], st[tos-2], st[tos-3]
				st[tos-3], st[tos-2], st[tos-1] = a, cc, b
			}
		case op == opAbs, op == opNeg, op == opNot:
			if ok = tos >= 1; ok {
				v := st[tos-1]
				switch op {
				case opAbs:
					if int64(v) < 0 {
						v = -v
					}
				case opNeg:
					v = -v
				default:
					v = ^v
				}
				st[tos-1] = v
			}
		case op == opPlusUconst:
			n := c.ULEB()
			if ok = tos >= 1; ok {
				st[tos-1] += n
			}
		case op >= opAnd && op <= opXor && op != opNeg && op != opNot && op != opPlusUconst,
			op >= opEq && op <= opNe:
			if ok = tos >= 2; !ok {
				break
			}
			b, a := st[tos-1], st[tos-2] // a op b
			tos--
			st[tos-1] = binop(op, a, b)
		case op == opSkip:
			d := int(int16(c.U16()))
			if c.Bad || !jump(&c, d) {
				return 0, false, ErrBadExpr
			}
		case op == opBra:
			d := int(int16(c.U16()))
			if ok = tos >= 1; !ok {
				break
			}
			tos--
			if st[tos] != 0 && (c.Bad || !jump(&c, d)) {
				return 0, false, ErrBadExpr
			}
		case op == opNop:
		default:
			return 0, false, ErrBadExpr
		}
		if !ok || c.Bad {
			return 0, false, ErrBadExpr
		}
	}
	if tos < 1 {
		return 0, false, ErrBadExpr
	}
	return st[tos-1], false, nil
}

// jump moves c by d bytes: before the expression's start is an error (in
// libunwind it would read the bytes before it), past its end ends it.
func jump(c *cur, d int) bool {
	n := c.Off + d
	if n < 0 {
		return false
	}
	c.Off = min(n, len(c.B))
	return true
}

func binop(op uint8, a, b uint64) uint64 {
	sa, sb := int64(a), int64(b)
	b2u := func(x bool) uint64 {
		if x {
			return 1
		}
		return 0
	}
	switch op {
	case opAnd:
		return a & b
	case opDiv:
		if b == 0 {
			return 0 // libunwind pushes the zero divisor back
		}
		if sb == -1 {
			return uint64(-sa)
		}
		return uint64(sa / sb)
	case opMinus:
		return a - b
	case opMod:
		if b == 0 {
			return 0
		}
		return a % b
	case opMul:
		return a * b
	case opOr:
		return a | b
	case opPlus:
		return a + b
	case opShl:
		if b >= 64 {
			return 0
		}
		return a << b
	case opShr:
		if b >= 64 {
			return 0
		}
		return a >> b
	case opShra:
		if b >= 64 {
			b = 63
		}
		return uint64(sa >> b)
	case opXor:
		return a ^ b
	case opEq:
		return b2u(sa == sb)
	case opGe:
		return b2u(sa >= sb)
	case opGt:
		return b2u(sa > sb)
	case opLe:
		return b2u(sa <= sb)
	case opLt:
		return b2u(sa < sb)
	case opNe:
		return b2u(sa != sb)
	}
	return 0
}
