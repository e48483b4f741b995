package insn

// Mode is the execution mode an instruction is decoded in. The values follow
// libipt's enum pt_exec_mode.
type Mode uint8

const (
	ModeUnknown Mode = iota
	Mode16
	Mode32
	Mode64
)

var modeNames = [...]string{"unknown", "16-bit", "32-bit", "64-bit"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "invalid"
}

// Class is the coarse class of an instruction as far as control flow goes,
// like libipt's enum pt_insn_class.
type Class uint8

const (
	ClassUnknown   Class = iota // not decoded
	ClassOther                  // no change of control flow
	ClassCall                   // near call, direct or indirect
	ClassReturn                 // near return
	ClassJump                   // near unconditional jump, direct or indirect
	ClassCondJump               // jcc, loop*, jcxz
	ClassFarCall                // far call, int*, syscall, sysenter, vmcall
	ClassFarReturn              // far ret, iret, sysret, sysexit, vmlaunch/vmresume, uiret, erets/eretu
	ClassFarJump                // far jmp
	ClassPTWrite                // ptwrite
)

var classNames = [...]string{"unknown", "other", "call", "return", "jump", "cond jump",
	"far call", "far return", "far jump", "ptwrite"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "invalid"
}

// IClass is the detailed instruction class, like libipt's enum pti_inst:
// only the instructions that matter for trace decode are told apart.
type IClass uint8

const (
	IInvalid IClass = iota // any other instruction
	ICallE8
	ICall9A
	ICallFFr2
	ICallFFr3
	IInt
	IInt3
	IInt1
	IInto
	IIret
	IJmpE9
	IJmpEB
	IJmpEA
	IJmpFFr4
	IJmpFFr5
	IJmpAbs
	IJcc
	IJrCXZ
	ILoop
	ILoopE
	ILoopNE
	IMovCR3
	IRetC3
	IRetC2
	IRetCB
	IRetCA
	ISyscall
	ISysenter
	ISysexit
	ISysret
	IVmcall
	IVmlaunch
	IVmresume
	IVmptrld
	IUiret
	IErets
	IEretu
	IPtwrite
)

var iclassNames = [...]string{"other", "call rel", "call far ptr", "call r/m", "call far m",
	"int", "int3", "int1", "into", "iret", "jmp rel32", "jmp rel8", "jmp far ptr", "jmp r/m",
	"jmp far m", "jmpabs", "jcc", "jrcxz", "loop", "loope", "loopne", "mov cr3", "ret", "ret imm",
	"lret", "lret imm", "syscall", "sysenter", "sysexit", "sysret", "vmcall", "vmlaunch",
	"vmresume", "vmptrld", "uiret", "erets", "eretu", "ptwrite"}

func (c IClass) String() string {
	if int(c) < len(iclassNames) {
		return iclassNames[c]
	}
	return "invalid"
}

// IsBranch reports whether the instruction may change control flow.
func (i *Insn) IsBranch() bool {
	switch i.Class {
	case ClassCall, ClassReturn, ClassJump, ClassCondJump, ClassFarCall, ClassFarReturn, ClassFarJump:
		return true
	}
	return false
}

// IsFarBranch reports far transfers (they produce a FUP/TIP pair, bind PIP, VMCS, MODE.EXEC).
func (i *Insn) IsFarBranch() bool {
	return i.Class == ClassFarCall || i.Class == ClassFarReturn || i.Class == ClassFarJump
}

// ChangesCPL reports instructions that change the privilege level.
func (i *Insn) ChangesCPL() bool {
	switch i.IClass {
	case IInt, IInt3, IInt1, IInto, IIret, ISyscall, ISysenter, ISysexit, ISysret:
		return true
	}
	return false
}

// ChangesCR3 reports mov to cr3.
func (i *Insn) ChangesCR3() bool { return i.IClass == IMovCR3 }

// BindsToPIP reports instructions a PIP (paging) event binds to.
func (i *Insn) BindsToPIP() bool {
	switch i.IClass {
	case IMovCR3, IVmlaunch, IVmresume:
		return true
	}
	return i.IsFarBranch()
}

// BindsToVMCS reports instructions a VMCS event binds to.
func (i *Insn) BindsToVMCS() bool {
	switch i.IClass {
	case IVmptrld, IVmlaunch, IVmresume:
		return true
	}
	return i.IsFarBranch()
}

// IsIret reports the returns an event-trace iret event binds to.
func (i *Insn) IsIret() bool {
	switch i.IClass {
	case IIret, ISysret, ISysexit, IErets, IEretu:
		return true
	}
	return false
}

// IsVMEntry reports vmlaunch and vmresume.
func (i *Insn) IsVMEntry() bool { return i.IClass == IVmlaunch || i.IClass == IVmresume }

// IsUiret reports uiret.
func (i *Insn) IsUiret() bool { return i.IClass == IUiret }

// IsSwInt reports software interrupts.
func (i *Insn) IsSwInt() bool {
	switch i.IClass {
	case IInt, IInt3, IInt1, IInto:
		return true
	}
	return false
}

// IsSyscall reports syscall and sysenter.
func (i *Insn) IsSyscall() bool { return i.IClass == ISyscall || i.IClass == ISysenter }

// NextIP returns the address of the next instruction when it does not depend
// on trace: the fall-through IP for non-branches, or the target of a direct
// jump or call. ok is false for conditional and indirect branches, returns and
// far transfers (they need trace), and for jmpabs (it gets a TIP).
func (i *Insn) NextIP() (ip uint64, ok bool) {
	ip = i.IP + uint64(i.Size)
	switch i.Class {
	case ClassOther, ClassPTWrite:
		return ip, true
	case ClassJump:
		if i.IClass == IJmpAbs {
			return 0, false
		}
		fallthrough
	case ClassCall:
		if i.Direct {
			return ip + uint64(int64(i.Disp)), true
		}
	}
	return 0, false
}
