package ptperf

import "github.com/perfpt/perfpt/ptdecode/insn"

// Op is perf's instruction operation class (enum intel_pt_insn_op).
type Op uint8

// Operations.
const (
	OpOther Op = iota
	OpCall
	OpRet
	OpJcc
	OpJmp
	OpLoop
	OpIret
	OpInt
	OpSyscall
	OpSysret
	OpVMEntry
)

// Branch is perf's branch kind (enum intel_pt_insn_branch).
type Branch uint8

// Branch kinds.
const (
	BrNone Branch = iota
	BrIndirect
	BrConditional
	BrUnconditional
)

// Insn is one decoded instruction as perf's walker reports it.
type Insn struct {
	Op     Op
	Branch Branch
	Length int
	Rel    int32
	Buf    [16]byte
}

// Classify sets op, branch and rel of in from an instruction decoded by
// ptdecode/insn, as intel_pt_insn_decoder does.
func Classify(d *insn.Insn, in *Insn) {
	in.Length = int(d.Size)
	in.Rel = 0
	op, br := OpOther, BrNone
	switch d.IClass {
	case insn.ICallE8:
		op, br = OpCall, BrUnconditional
	case insn.ICall9A, insn.ICallFFr2, insn.ICallFFr3:
		op, br = OpCall, BrIndirect
	case insn.IInt, insn.IInt3, insn.IInto:
		op, br = OpInt, BrIndirect
	case insn.IIret:
		op, br = OpIret, BrIndirect
	case insn.IJmpE9, insn.IJmpEB:
		op, br = OpJmp, BrUnconditional
	case insn.IJmpEA, insn.IJmpFFr4, insn.IJmpFFr5:
		op, br = OpJmp, BrIndirect
	case insn.IJcc, insn.IJrCXZ:
		op, br = OpJcc, BrConditional
	case insn.ILoop, insn.ILoopE, insn.ILoopNE:
		op, br = OpLoop, BrConditional
	case insn.IRetC3, insn.IRetC2, insn.IRetCB, insn.IRetCA:
		op, br = OpRet, BrIndirect
	case insn.ISyscall, insn.ISysenter:
		op, br = OpSyscall, BrIndirect
	case insn.ISysret, insn.ISysexit:
		op, br = OpSysret, BrIndirect
	case insn.IVmlaunch, insn.IVmresume:
		op, br = OpVMEntry, BrIndirect
	}
	in.Op, in.Branch = op, br
	if br == BrConditional || br == BrUnconditional {
		in.Rel = int32(d.Disp)
	}
}

// Perf sample flags for an operation (intel_pt_insn_type).
func (o Op) Flags() uint32 {
	const (
		b       = 1 << 0
		call    = 1 << 1
		ret     = 1 << 2
		cond    = 1 << 3
		sysret  = 1 << 4
		intr    = 1 << 6
		vmentry = 1 << 11
	)
	switch o {
	case OpCall:
		return b | call
	case OpRet:
		return b | ret
	case OpJcc, OpLoop:
		return b | cond
	case OpJmp:
		return b
	case OpIret:
		return b | ret | intr
	case OpInt:
		return b | call | intr
	case OpSyscall:
		return b | call | sysret
	case OpSysret:
		return b | ret | sysret
	case OpVMEntry:
		return b | call | vmentry
	}
	return 0
}
