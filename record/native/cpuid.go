package native

import (
	"encoding/binary"
	"fmt"
	"os"

	"github.com/perfpt/perfpt/internal/cpuid"
)

// CPUID is one CPUID result.
type CPUID = cpuid.Regs

// CPUIDFunc returns CPUID leaf/subleaf; ok is false when it cannot be read.
type CPUIDFunc func(leaf, sub uint32) (r CPUID, ok bool)

// NativeCPUID executes CPUID on the current CPU (amd64 only).
func NativeCPUID(leaf, sub uint32) (CPUID, bool) { return cpuid.Native(leaf, sub) }

// DevCPUID returns a CPUIDFunc reading /dev/cpu/N/cpuid (the cpuid
// driver: a 16-byte pread at offset subleaf<<32|leaf; root only).
func DevCPUID(cpu int) CPUIDFunc {
	return func(leaf, sub uint32) (CPUID, bool) {
		f, err := os.Open(fmt.Sprintf("/dev/cpu/%d/cpuid", cpu))
		if err != nil {
			return CPUID{}, false
		}
		defer f.Close()
		var b [16]byte
		if n, err := f.ReadAt(b[:], int64(uint64(sub)<<32|uint64(leaf))); n != 16 || err != nil {
			return CPUID{}, false
		}
		le := binary.LittleEndian
		return CPUID{EAX: le.Uint32(b[0:]), EBX: le.Uint32(b[4:]), ECX: le.Uint32(b[8:]), EDX: le.Uint32(b[12:])}, true
	}
}

// TSCCTCRatio returns the TSC to core crystal clock ratio n/d as perf puts
// it in AUXTRACE_INFO: n from CPUID.15H:EBX, d from CPUID.15H:EAX, both 0
// when the CPU has no leaf 0x15 (its maximum basic leaf, CPUID.0:EAX, is
// below 0x15) or CPUID cannot be read. perf's decoder then cannot use MTC
// packets for timing.
func TSCCTCRatio(id CPUIDFunc) (n, d uint32) {
	if id == nil {
		id = NativeCPUID
	}
	l0, ok := id(0, 0)
	if !ok || l0.EAX < 0x15 {
		return 0, 0
	}
	l15, ok := id(0x15, 0)
	if !ok {
		return 0, 0
	}
	return l15.EBX, l15.EAX
}

// Vendor returns the CPU vendor string of leaf 0 ("GenuineIntel").
func Vendor(id CPUIDFunc) string {
	if id == nil {
		id = NativeCPUID
	}
	l0, ok := id(0, 0)
	if !ok {
		return ""
	}
	var b [12]byte
	binary.LittleEndian.PutUint32(b[0:], l0.EBX)
	binary.LittleEndian.PutUint32(b[4:], l0.EDX)
	binary.LittleEndian.PutUint32(b[8:], l0.ECX)
	return string(b[:])
}
