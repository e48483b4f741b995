// Package cpuid runs the CPUID instruction. It is a leaf of its own so that
// the native recorder (record/native), which reads the CPU's Intel PT
// capabilities, and the emulator (record/ptrace), which answers a traced
// program's CPUID, share it without one importing the other.
package cpuid

// Regs is one CPUID result.
type Regs struct{ EAX, EBX, ECX, EDX uint32 }

// Native executes CPUID leaf/subleaf on the current CPU; ok is false where
// there is no such instruction (other architectures).
func Native(leaf, sub uint32) (r Regs, ok bool) {
	if !hasCPUID() {
		return Regs{}, false
	}
	a, b, c, d := cpuid(leaf, sub)
	return Regs{a, b, c, d}, true
}
