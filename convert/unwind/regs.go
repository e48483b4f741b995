package unwind

import "math/bits"

// DWARF register numbers of x86_64 (the System V psABI), which are also
// libunwind's UNW_X86_64_* numbers for the first 17.
const (
	RegRAX = iota
	RegRDX
	RegRCX
	RegRBX
	RegRSI
	RegRDI
	RegRBP
	RegRSP
	RegR8
	RegR9
	RegR10
	RegR11
	RegR12
	RegR13
	RegR14
	RegR15
	RegRIP // the return address column

	// NumRegs is libunwind's DWARF_NUM_PRESERVED_REGS: rules for higher
	// registers are errors.
	NumRegs
)

// perfRegOf maps DWARF numbers to perf's x86 register ids
// (arch/x86/include/uapi/asm/perf_regs.h; perf's libunwind__x86_reg_id).
var perfRegOf = [NumRegs]uint8{
	RegRAX: 0, RegRBX: 1, RegRCX: 2, RegRDX: 3, RegRSI: 4, RegRDI: 5,
	RegRBP: 6, RegRSP: 7, RegRIP: 8,
	RegR8: 16, RegR9: 17, RegR10: 18, RegR11: 19,
	RegR12: 20, RegR13: 21, RegR14: 22, RegR15: 23,
}

// Regs holds a sample's user registers by DWARF number.
type Regs struct {
	V     [NumRegs]uint64
	Valid uint32 // bit i: V[i] was sampled
}

// FromPerf fills r from a sample's REGS_USER values: vals holds one value
// for each bit set in mask (attr.sample_regs_user), in bit order, as
// perf_reg_value reads them. Missing values (a short vals) count as not
// sampled.
func (r *Regs) FromPerf(mask uint64, vals []uint64) {
	r.Valid = 0
	for d := 0; d < NumRegs; d++ {
		id := perfRegOf[d]
		if mask&(1<<id) == 0 {
			continue
		}
		i := bits.OnesCount64(mask & (1<<id - 1))
		if i < len(vals) {
			r.V[d] = vals[i]
			r.Valid |= 1 << d
		}
	}
}

// Has says whether DWARF register d was sampled.
func (r *Regs) Has(d int) bool { return d >= 0 && d < NumRegs && r.Valid&(1<<d) != 0 }
