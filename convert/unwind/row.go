package unwind

// where says how a register of the caller is found (libunwind's
// dwarf_where_t).
type where uint8

const (
	whereSame    where = iota // unchanged
	whereUndef                // undefined
	whereCFARel               // saved at CFA + off
	whereReg                  // in register reg
	whereExpr                 // at the address an expression computes
	whereValExpr              // the value an expression computes
)

type rule struct {
	where where
	off   uint64 // CFA offset (two's complement), or a register number
	expr  []byte // expression bytes, for whereExpr/whereValExpr
}

// Row is the unwind row of a pc: how to find the CFA and the caller's
// registers.
type Row struct {
	cfaSet  bool   // the CFA rule was defined
	cfaExpr []byte // non-nil: the CFA is this expression's value
	cfaReg  uint64
	cfaOff  uint64
	reg     [NumRegs]rule
	ra      uint64 // return address column
	// Signal says the FDE's CIE is a signal frame's ("S").
	Signal bool
}

// maxRemember bounds DW_CFA_remember_state nesting (libunwind allocates
// without bound; real CFI nests one or two deep).
const maxRemember = 16

type rowState struct {
	cfaSet  bool // DW_CFA_def_cfa, _sf, _register or _expression ran
	cfaExpr []byte
	cfaReg  uint64
	cfaOff  uint64
	reg     [NumRegs]rule
}

// interp runs CFA programs into a row (libunwind's run_cfi_program). Its
// remember stack is a fixed array, so a row costs no allocation.
type interp struct {
	cur     rowState
	initial [NumRegs]rule
	stack   [maxRemember]rowState
	depth   int
}

// Row computes the row of link-time address pc from f (the pc must be in
// f's range; for a caller frame pass the return address minus one, as
// libunwind's parse_fde runs the program up to ip - use_prev_instr).
func (f *FDE) Row(pc uint64, r *Row) error {
	var in interp
	return in.row(f, pc, r)
}

func (in *interp) row(f *FDE, pc uint64, r *Row) error {
	in.cur = rowState{}
	in.depth = 0
	ci := &f.cie
	if ci.ra >= NumRegs {
		return ErrBadCFI
	}
	// setup_fde: the CIE's initial instructions, to the end.
	if err := in.run(ci, ci.instr, ci.instrAddr, 0, ^uint64(0)); err != nil {
		return err
	}
	in.initial = in.cur.reg
	in.depth = 0
	if err := in.run(ci, f.instr, f.instrAddr, f.Start, pc); err != nil {
		return err
	}
	r.cfaSet, r.cfaExpr, r.cfaReg, r.cfaOff, r.reg = in.cur.cfaSet, in.cur.cfaExpr, in.cur.cfaReg, in.cur.cfaOff, in.cur.reg
	r.ra = ci.ra
	r.Signal = ci.signal
	return nil
}

// CFA opcodes.
const (
	cfaAdvanceLoc       = 0x40
	cfaOffset           = 0x80
	cfaRestore          = 0xc0
	cfaNop              = 0x00
	cfaSetLoc           = 0x01
	cfaAdvanceLoc1      = 0x02
	cfaAdvanceLoc2      = 0x03
	cfaAdvanceLoc4      = 0x04
	cfaOffsetExtended   = 0x05
	cfaRestoreExtended  = 0x06
	cfaUndefined        = 0x07
	cfaSameValue        = 0x08
	cfaRegister         = 0x09
	cfaRememberState    = 0x0a
	cfaRestoreState     = 0x0b
	cfaDefCFA           = 0x0c
	cfaDefCFARegister   = 0x0d
	cfaDefCFAOffset     = 0x0e
	cfaDefCFAExpression = 0x0f
	cfaExpression       = 0x10
	cfaOffsetExtendedSf = 0x11
	cfaDefCFASf         = 0x12
	cfaDefCFAOffsetSf   = 0x13
	cfaValExpression    = 0x16
	cfaLoUser           = 0x1c
	cfaMIPSAdvanceLoc8  = 0x1d
	cfaGNUWindowSave    = 0x2d
	cfaGNUArgsSize      = 0x2e
	cfaGNUNegOffsetExt  = 0x2f
	cfaHiUser           = 0x3f
)

// run executes prog while the location is at most end (libunwind's loop
// condition *ip <= end_ip, checked before each instruction). Every
// instruction consumes at least one byte and none jumps back, so it ends.
func (in *interp) run(ci *cie, prog []byte, progAddr, loc, end uint64) error {
	c := cur{B: prog}
	s := &in.cur
	regnum := func() (uint64, bool) {
		r := c.ULEB()
		return r, !c.Bad && r < NumRegs
	}
	for loc <= end && c.Left() > 0 {
		op := c.U8()
		var operand uint64
		if op&0xc0 != 0 {
			operand = uint64(op & 0x3f)
			op &= 0xc0
		}
		switch op {
		case cfaAdvanceLoc:
			loc += operand * ci.codeAlign
		case cfaAdvanceLoc1:
			loc += uint64(c.U8()) * ci.codeAlign
		case cfaAdvanceLoc2:
			loc += uint64(c.U16()) * ci.codeAlign
		case cfaAdvanceLoc4:
			loc += uint64(c.U32()) * ci.codeAlign
		case cfaOffset:
			if operand >= NumRegs {
				return ErrBadCFI
			}
			v := c.ULEB()
			s.reg[operand] = rule{where: whereCFARel, off: v * uint64(ci.dataAlign)}
		case cfaOffsetExtended, cfaOffsetExtendedSf, cfaGNUNegOffsetExt:
			r, ok := regnum()
			if !ok {
				return ErrBadCFI
			}
			var v uint64
			if op == cfaOffsetExtendedSf {
				v = uint64(c.SLEB())
			} else {
				v = c.ULEB()
			}
			v *= uint64(ci.dataAlign)
			if op == cfaGNUNegOffsetExt {
				v = -v
			}
			s.reg[r] = rule{where: whereCFARel, off: v}
		case cfaRestore:
			if operand >= NumRegs {
				return ErrBadCFI
			}
			s.reg[operand] = in.initial[operand]
		case cfaRestoreExtended:
			r := c.ULEB()
			if c.Bad || r >= NumRegs {
				return ErrBadCFI
			}
			s.reg[r] = in.initial[r]
		case cfaNop:
		case cfaSetLoc:
			v, ok := c.Encoded(ci.fdeEnc, progAddr, 0, 0)
			if !ok {
				return ErrBadCFI
			}
			loc = v
		case cfaUndefined, cfaSameValue:
			r, ok := regnum()
			if !ok {
				return ErrBadCFI
			}
			if op == cfaUndefined {
				s.reg[r] = rule{where: whereUndef}
			} else {
				s.reg[r] = rule{where: whereSame}
			}
		case cfaRegister:
			r, ok := regnum()
			if !ok {
				return ErrBadCFI
			}
			s.reg[r] = rule{where: whereReg, off: c.ULEB()}
		case cfaRememberState:
			if in.depth >= maxRemember {
				return ErrBadCFI
			}
			in.stack[in.depth] = *s
			in.depth++
		case cfaRestoreState:
			if in.depth == 0 {
				return ErrBadCFI
			}
			in.depth--
			*s = in.stack[in.depth]
		case cfaDefCFA, cfaDefCFASf:
			r, ok := regnum()
			if !ok {
				return ErrBadCFI
			}
			s.cfaSet, s.cfaExpr, s.cfaReg = true, nil, r
			if op == cfaDefCFA {
				s.cfaOff = c.ULEB() // not factored
			} else {
				s.cfaOff = uint64(c.SLEB()) * uint64(ci.dataAlign)
			}
		case cfaDefCFARegister:
			r, ok := regnum()
			if !ok {
				return ErrBadCFI
			}
			s.cfaSet, s.cfaExpr, s.cfaReg = true, nil, r
		case cfaDefCFAOffset:
			s.cfaOff = c.ULEB()
		case cfaDefCFAOffsetSf:
			s.cfaOff = uint64(c.SLEB()) * uint64(ci.dataAlign)
		case cfaDefCFAExpression:
			e := c.Take(c.ULEB())
			if c.Bad {
				return ErrBadCFI
			}
			s.cfaSet, s.cfaExpr = true, e
		case cfaExpression, cfaValExpression:
			r, ok := regnum()
			if !ok {
				return ErrBadCFI
			}
			e := c.Take(c.ULEB())
			if c.Bad {
				return ErrBadCFI
			}
			w := whereExpr
			if op == cfaValExpression {
				w = whereValExpr
			}
			s.reg[r] = rule{where: w, expr: e}
		case cfaGNUArgsSize:
			c.ULEB()
		case cfaLoUser, cfaHiUser, cfaMIPSAdvanceLoc8, cfaGNUWindowSave:
			return ErrBadCFI
		default:
			// libunwind's switch has no case for the rest
			// (DW_CFA_val_offset, val_offset_sf, ...): it skips the
			// opcode byte alone, and so do we.
		}
		if c.Bad {
			return ErrBadCFI
		}
	}
	return nil
}
