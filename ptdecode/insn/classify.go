package insn

// classify sets the class of a length-decoded instruction, following the
// opcode rules of libipt's pt_ild.c (only map 0 and map 1 legacy opcodes
// change control flow; VEX/EVEX encoded ones never do).
func (d *ild) classify(in *Insn, n int) {
	in.Class = ClassOther
	in.IClass = IInvalid
	if d.vex != 0 || d.mapn > 1 {
		return
	}
	op := d.opcode
	m64 := d.mode == Mode64
	direct := func(c Class, ic IClass) {
		in.Class, in.IClass = c, ic
		in.Direct = true
		in.Disp = d.readDisp()
	}
	if d.mapn == 0 {
		switch {
		case op >= 0x70 && op <= 0x7f:
			if !d.rex2 {
				direct(ClassCondJump, IJcc)
			}
			return
		}
		switch op {
		case 0x9a:
			if !m64 {
				in.Class, in.IClass = ClassFarCall, ICall9A
			}
		case 0xff:
			switch d.reg() {
			case 2:
				in.Class, in.IClass = ClassCall, ICallFFr2
			case 3:
				in.Class, in.IClass = ClassFarCall, ICallFFr3
			case 4:
				in.Class, in.IClass = ClassJump, IJmpFFr4
			case 5:
				in.Class, in.IClass = ClassFarJump, IJmpFFr5
			}
		case 0xe8:
			if !d.rex2 {
				direct(ClassCall, ICallE8)
			}
		case 0xcd:
			in.Class, in.IClass = ClassFarCall, IInt
		case 0xcc:
			in.Class, in.IClass = ClassFarCall, IInt3
		case 0xce:
			if !m64 {
				in.Class, in.IClass = ClassFarCall, IInto
			}
		case 0xf1:
			in.Class, in.IClass = ClassFarCall, IInt1
		case 0xcf:
			in.Class, in.IClass = ClassFarReturn, IIret
		case 0xe9:
			if !d.rex2 {
				direct(ClassJump, IJmpE9)
			}
		case 0xea:
			if !m64 && !d.rex2 {
				in.Class, in.IClass = ClassFarJump, IJmpEA
			}
		case 0xeb:
			if !d.rex2 {
				direct(ClassJump, IJmpEB)
			}
		case 0xe3:
			if !d.rex2 {
				direct(ClassCondJump, IJrCXZ)
			}
		case 0xe0:
			if !d.rex2 {
				direct(ClassCondJump, ILoopNE)
			}
		case 0xe1:
			if !d.rex2 {
				direct(ClassCondJump, ILoopE)
			}
		case 0xe2:
			if !d.rex2 {
				direct(ClassCondJump, ILoop)
			}
		case 0xc3:
			in.Class, in.IClass = ClassReturn, IRetC3
		case 0xc2:
			in.Class, in.IClass = ClassReturn, IRetC2
		case 0xcb:
			in.Class, in.IClass = ClassFarReturn, IRetCB
		case 0xca:
			in.Class, in.IClass = ClassFarReturn, IRetCA
		case 0xa1:
			if m64 && d.rex2 && !d.rexW && !d.asz && !d.osz {
				in.Class, in.IClass = ClassJump, IJmpAbs
				in.Direct = true
				in.Disp = d.readImm64(n - 8)
			}
		}
		return
	}
	// map 1
	switch {
	case op >= 0x80 && op <= 0x8f:
		if !d.rex2 {
			direct(ClassCondJump, IJcc)
		}
		return
	}
	switch op {
	case 0x22:
		if d.reg() == 3 && !d.rexR {
			in.IClass = IMovCR3
		}
	case 0x05:
		in.Class, in.IClass = ClassFarCall, ISyscall
	case 0x34:
		if !d.rex2 {
			in.Class, in.IClass = ClassFarCall, ISysenter
		}
	case 0x35:
		if !d.rex2 {
			in.Class, in.IClass = ClassFarReturn, ISysexit
		}
	case 0x07:
		in.Class, in.IClass = ClassFarReturn, ISysret
	case 0x01:
		switch d.modrm {
		case 0xc1:
			in.Class, in.IClass = ClassFarCall, IVmcall
		case 0xc2:
			in.Class, in.IClass = ClassFarReturn, IVmlaunch
		case 0xc3:
			in.Class, in.IClass = ClassFarReturn, IVmresume
		case 0xec:
			in.Class, in.IClass = ClassFarReturn, IUiret
		case 0xca:
			switch d.lastF2F3 {
			case 2:
				in.Class, in.IClass = ClassFarReturn, IErets
			case 3:
				in.Class, in.IClass = ClassFarReturn, IEretu
			}
		}
	case 0xc7:
		if d.modrm>>6 != 3 && d.reg() == 6 {
			in.IClass = IVmptrld
		}
	case 0xae:
		if d.f3 && !d.osz && d.reg() == 4 {
			in.Class, in.IClass = ClassPTWrite, IPtwrite
		}
	}
}
