package packet

import "golang.org/x/sys/cpu"

// useSIMD says whether Batch runs the AVX-512 kernel (simd_amd64.s): the
// CPU has AVX-512 F, BW and VBMI (VPERMB, VPERMI2B) and POPCNT. (laneLoop
// makes Batch run the lanes anyway, for the tests; GODEBUG=cpu.avx512vbmi=off
// turns the kernel off for a whole program, through x/sys/cpu, although the
// runtime warns that it does not know the name.)
var useSIMD = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI && cpu.X86.HasPOPCNT

// simdScan decodes packets from offset pos of the buffer at buf into the
// Items at out (room for max), window after window while the window's
// offset is at most lim, and returns how many and the offset of the
// packet after them; stop says that that packet is one it leaves to the
// general decoder (else it stopped for want of buffer or room). See
// simd.go.
//
//go:noescape
func simdScan(buf *byte, pos, lim int, out *Item, max int, tab *simdTabT) (n, next int, stop bool)
