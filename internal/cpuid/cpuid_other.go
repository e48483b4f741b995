//go:build !amd64

package cpuid

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32) { return 0, 0, 0, 0 }

func hasCPUID() bool { return false }
