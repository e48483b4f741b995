package ptperf

import "github.com/perfpt/perfpt/ptdecode/perfinsn"

// Op is perf's instruction operation class (enum intel_pt_insn_op).
type Op = perfinsn.Op

// Operations.
const (
	OpOther   = perfinsn.OpOther
	OpCall    = perfinsn.OpCall
	OpRet     = perfinsn.OpRet
	OpJcc     = perfinsn.OpJcc
	OpJmp     = perfinsn.OpJmp
	OpLoop    = perfinsn.OpLoop
	OpIret    = perfinsn.OpIret
	OpInt     = perfinsn.OpInt
	OpSyscall = perfinsn.OpSyscall
	OpSysret  = perfinsn.OpSysret
	OpVMEntry = perfinsn.OpVMEntry
)

// Branch is perf's branch kind (enum intel_pt_insn_branch).
type Branch = perfinsn.Branch

// Branch kinds.
const (
	BrNone          = perfinsn.BrNone
	BrIndirect      = perfinsn.BrIndirect
	BrConditional   = perfinsn.BrConditional
	BrUnconditional = perfinsn.BrUnconditional
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

// Decode mirrors intel_pt_get_insn: in is the instruction at code as
// perf 6.1's decoder reads it in 64-bit (is64) or 32-bit code, with its
// bytes; false, with in zeroed, where perf's decoder refuses the bytes
// (its walk fails there: "Failed to get instruction"), which libipt and
// ptdecode/insn would decode.
func Decode(code []byte, is64 bool, in *Insn) bool {
	var pi perfinsn.Insn
	*in = Insn{}
	if !perfinsn.Decode(code, is64, &pi) {
		return false
	}
	in.Length, in.Op, in.Branch, in.Rel = pi.Len, pi.Op, pi.Branch, pi.Rel
	copy(in.Buf[:], code[:pi.Len])
	return true
}
