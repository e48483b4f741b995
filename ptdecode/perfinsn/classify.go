package perfinsn

// Op is perf's operation class of an instruction (enum intel_pt_insn_op).
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

// Insn is an instruction as intel_pt_get_insn gives it: its length and
// intel_pt_insn_decoder's op, branch and displacement.
type Insn struct {
	Len    int
	Op     Op
	Branch Branch
	Rel    int32
}

// Decode mirrors intel_pt_get_insn of perf 6.1: the instruction at code
// decoded as perf's decoder decodes it (Len) and classified as
// intel_pt_insn_decoder classifies it, from its opcode bytes and ModRM
// whatever the mode. It returns false where perf's decoder refuses the
// bytes (perf's walk then fails: "Failed to get instruction").
func Decode(code []byte, is64 bool, in *Insn) bool {
	n := Len(code, is64)
	*in = Insn{Len: n}
	if n == 0 {
		return false
	}
	code = code[:n]
	i := opcodeAt(code, is64)
	if i >= n || isAVX(code, i, is64) {
		// insn_is_avx: VEX and EVEX instructions are never branches.
		return true
	}
	imm := i + 1 // the immediate of a one-byte opcode
	switch op := code[i]; {
	case op == 0x0f:
		if i+1 >= n {
			return true
		}
		imm = i + 2
		switch op2 := code[i+1]; {
		case op2 == 0x01:
			if i+2 < n && (code[i+2] == 0xc2 || code[i+2] == 0xc3) {
				in.Op, in.Branch = OpVMEntry, BrIndirect // vmlaunch, vmresume
			}
		case op2 == 0x05 || op2 == 0x34:
			in.Op, in.Branch = OpSyscall, BrIndirect // syscall, sysenter
		case op2 == 0x07 || op2 == 0x35:
			in.Op, in.Branch = OpSysret, BrIndirect // sysret, sysexit
		case op2 >= 0x80 && op2 <= 0x8f:
			in.Op, in.Branch = OpJcc, BrConditional
		}
	case op >= 0x70 && op <= 0x7f, op == 0xe3:
		in.Op, in.Branch = OpJcc, BrConditional
	case op == 0xc2 || op == 0xc3 || op == 0xca || op == 0xcb:
		in.Op, in.Branch = OpRet, BrIndirect
	case op == 0xcf:
		in.Op, in.Branch = OpIret, BrIndirect
	case op >= 0xcc && op <= 0xce:
		in.Op, in.Branch = OpInt, BrIndirect
	case op == 0xe8:
		in.Op, in.Branch = OpCall, BrUnconditional
	case op == 0x9a:
		in.Op, in.Branch = OpCall, BrIndirect
	case op >= 0xe0 && op <= 0xe2:
		in.Op, in.Branch = OpLoop, BrConditional
	case op == 0xe9 || op == 0xeb:
		in.Op, in.Branch = OpJmp, BrUnconditional
	case op == 0xea:
		in.Op, in.Branch = OpJmp, BrIndirect
	case op == 0xff:
		var ext byte
		if i+1 < n {
			ext = code[i+1] >> 3 & 7
		}
		switch ext {
		case 2, 3:
			in.Op, in.Branch = OpCall, BrIndirect
		case 4, 5:
			in.Op, in.Branch = OpJmp, BrIndirect
		}
	}
	if in.Branch == BrConditional || in.Branch == BrUnconditional {
		// insn->immediate: the bytes after the opcode, sign-extended.
		in.Rel = signed(code[min(imm, n):])
	}
	return true
}

// isAVX mirrors insn_is_avx: the opcode byte at i starts a VEX or EVEX
// prefix (in 32-bit code only when the next byte's top bits are 11;
// otherwise C4, C5 and 62 are LES, LDS and BOUND).
func isAVX(code []byte, i int, is64 bool) bool {
	switch code[i] {
	case 0xc4, 0xc5, 0x62:
		return is64 || i+1 < len(code) && code[i+1]&0xc0 == 0xc0
	}
	return false
}

// signed is the little-endian signed value of b (1, 2 or 4 bytes; 0
// otherwise, as perf's immediate of another size).
func signed(b []byte) int32 {
	switch len(b) {
	case 1:
		return int32(int8(b[0]))
	case 2:
		return int32(int16(uint16(b[0]) | uint16(b[1])<<8))
	case 4:
		return int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
	}
	return 0
}

// Flags mirrors intel_pt_insn_type: the perf sample flags of an
// operation.
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
