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

// Insn is one decoded instruction as perf's walker reports it. Buf comes
// first so that a copy of an Insn (two 16-byte moves) stores it whole:
// the decoder reads it back with one 16-byte load right after the walker
// copied the instruction out of its cache, which stalled on store
// forwarding when Buf straddled two of the copy's stores.
type Insn struct {
	Buf    [16]byte
	Length int
	Rel    int32
	Op     Op
	Branch Branch
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
	// A table lookup: the session asks once per block.
	if int(o) < len(opFlags) {
		return opFlags[o]
	}
	return 0
}

// opFlags holds the perf sample flags of each operation.
var opFlags = [16]uint32{
	OpCall:    flagB | flagCall,
	OpRet:     flagB | flagRet,
	OpJcc:     flagB | flagCond,
	OpLoop:    flagB | flagCond,
	OpJmp:     flagB,
	OpIret:    flagB | flagRet | flagIntr,
	OpInt:     flagB | flagCall | flagIntr,
	OpSyscall: flagB | flagCall | flagSysret,
	OpSysret:  flagB | flagRet | flagSysret,
	OpVMEntry: flagB | flagCall | flagVMEntry,
}

// Perf sample flag bits (PERF_IP_FLAG_*).
const (
	flagB       = 1 << 0
	flagCall    = 1 << 1
	flagRet     = 1 << 2
	flagCond    = 1 << 3
	flagSysret  = 1 << 4
	flagIntr    = 1 << 6
	flagVMEntry = 1 << 11
)
