#include "textflag.h"
#include "go_asm.h"

// The kernel of simd.go. Registers:
//   SI buffer, BX window offset B, R8 lim, DI out, R9 items written,
//   R10 room, DX tables;
//   Z14 the window's entry e (every byte), Z15..Z31 constants.
//
// func simdScan(buf *byte, pos, lim int, out *Item, max int, tab *simdTabT) (n, next int)
TEXT ·simdScan(SB), NOSPLIT, $0-64
	MOVQ buf+0(FP), SI
	MOVQ pos+8(FP), BX
	MOVQ lim+16(FP), R8
	MOVQ out+24(FP), DI
	MOVQ max+32(FP), R10
	MOVQ tab+40(FP), DX
	XORQ R9, R9

	VMOVDQU64 simdTabT_iota(DX), Z31
	VMOVDQU64 simdTabT_idhi(DX), Z30
	VMOVDQU64 (simdTabT_size+0)(DX), Z29
	VMOVDQU64 (simdTabT_size+128)(DX), Z28
	VMOVDQU64 (simdTabT_kind+0)(DX), Z27
	VMOVDQU64 (simdTabT_kind+128)(DX), Z26
	MOVL $1, AX
	VPBROADCASTB AX, Z25
	MOVL $2, AX
	VPBROADCASTB AX, Z24
	MOVL $0xa3, AX
	VPBROADCASTB AX, Z23
	MOVL $8, AX
	VPBROADCASTB AX, Z22
	MOVL $64, AX
	VPBROADCASTB AX, Z21
	VMOVDQU64 simdTabT_rep(DX), Z20
	VMOVDQU64 simdTabT_inc(DX), Z19
	VMOVDQU64 simdTabT_moff(DX), Z18
	MOVL $0xff, AX
	VPBROADCASTQ AX, Z17
	VMOVDQU64 simdTabT_ilo(DX), Z16
	VMOVDQU64 simdTabT_ihi(DX), Z15
	KMOVQ simdTabT_meta56(DX), K7

	// Windows are 64 bytes apart from pos rounded down.
	MOVQ BX, AX
	ANDQ $63, AX
	VPBROADCASTB AX, Z14
	SUBQ AX, BX

loop:
	CMPQ BX, R8
	JGT done
	MOVQ R10, AX
	SUBQ R9, AX
	CMPQ AX, $64
	JLT done
	LEAQ (SI)(BX*1), AX
	VMOVDQU8 (AX), Z0
	VMOVDQU8 1(AX), Z1
	VMOVDQU8 2(AX), Z2
	VMOVDQU8 3(AX), Z3
	VMOVDQU8 4(AX), Z4

	// Z5 size, Z6 kind, by first byte (two 128-byte tables, bit 7 picks).
	VMOVDQA64 Z0, Z5
	VPERMI2B (simdTabT_size+64)(DX), Z29, Z5
	VMOVDQA64 Z0, Z7
	VPERMI2B (simdTabT_size+192)(DX), Z28, Z7
	VPMOVB2M Z0, K1
	VMOVDQU8 Z7, K1, Z5
	VMOVDQA64 Z0, Z6
	VPERMI2B (simdTabT_kind+64)(DX), Z27, Z6
	VMOVDQA64 Z0, Z7
	VPERMI2B (simdTabT_kind+192)(DX), Z26, Z7
	VMOVDQU8 Z7, K1, Z6

	// CYC with extension bytes: 2 + the number of bytes 1..3 that all
	// continue (bit 0 set); a stop if bytes 1..4 all do.
	VPANDD Z25, Z1, Z7
	VPANDD Z7, Z2, Z8
	VPANDD Z8, Z3, Z9
	VPANDD Z9, Z4, Z10
	VPADDB Z24, Z7, Z7
	VPADDB Z8, Z7, Z7
	VPADDB Z9, Z7, Z7
	VPTESTNMB Z10, Z10, K2
	VMOVDQU8.Z Z7, K2, Z7
	VPMOVB2M Z5, K3
	VMOVDQU8 Z7, K3, Z5

	// TNT-64: 02 a3 and a payload (bytes 2..7) above 1, size 8.
	VPCMPEQB Z24, Z0, K4
	VPCMPEQB Z23, Z1, K4, K4
	VMOVDQU8 5(AX), Z8
	VMOVDQU8 6(AX), Z9
	VMOVDQU8 7(AX), Z10
	VPTERNLOGD $0xfe, Z10, Z9, Z8
	VPTERNLOGD $0xfe, Z4, Z3, Z8
	VPTESTNMB Z8, Z8, K5
	VPCMPUB $2, Z25, Z2, K5, K5
	KANDNQ K4, K5, K4
	VMOVDQU8 Z22, K4, Z5

	// Z7 = next (J1); Z8 = S, lane n the start of packet n from e; the
	// next^(2^k) alternate in Z7 and Z9.
	VPADDB Z31, Z5, Z7
	VMOVDQA64 Z14, Z8
	KMOVQ (simdTabT_lanes+0)(DX), K1
	VPERMI2B Z30, Z7, K1, Z8
	VMOVDQA64 Z7, Z9
	VPERMI2B Z30, Z7, Z9
	KMOVQ (simdTabT_lanes+8)(DX), K1
	VPERMI2B Z30, Z9, K1, Z8
	VMOVDQA64 Z9, Z7
	VPERMI2B Z30, Z9, Z7
	KMOVQ (simdTabT_lanes+16)(DX), K1
	VPERMI2B Z30, Z7, K1, Z8
	VMOVDQA64 Z7, Z9
	VPERMI2B Z30, Z7, Z9
	KMOVQ (simdTabT_lanes+24)(DX), K1
	VPERMI2B Z30, Z9, K1, Z8
	VMOVDQA64 Z9, Z7
	VPERMI2B Z30, Z9, Z7
	KMOVQ (simdTabT_lanes+32)(DX), K1
	VPERMI2B Z30, Z7, K1, Z8
	VMOVDQA64 Z7, Z9
	VPERMI2B Z30, Z7, Z9
	KMOVQ (simdTabT_lanes+40)(DX), K1
	VPERMI2B Z30, Z9, K1, Z8
	VMOVDQA64 Z9, Z7
	VPERMI2B Z30, Z9, Z7

	// Z13 = X = next^64(e); the packets are the lanes of S below X.
	VMOVDQA64 Z14, Z13
	VPERMI2B Z30, Z7, Z13
	VPCMPUB $1, Z13, Z8, K2
	KMOVQ K2, CX
	POPCNTQ CX, CX

	// The Items, 8 at a time (up to 7 more are written past them).
	VMOVDQU8 64(AX), Z1
	VPBROADCASTQ BX, Z2
	VMOVDQA64 Z20, Z3
	MOVQ CX, R11
	MOVQ DI, R12

emit:
	VPERMB Z8, Z3, Z4
	VPADDB Z19, Z4, Z9
	VPERMI2B Z1, Z0, Z9
	VPADDB Z18, Z4, Z10
	VPERMI2B.Z Z6, Z5, K7, Z10
	VPANDQ Z17, Z4, Z4
	VPADDQ Z2, Z4, Z4
	VPSLLQ $56, Z9, Z11
	VPTERNLOGQ $0xfe, Z11, Z10, Z4
	VMOVDQA64 Z16, Z11
	VPERMI2Q Z4, Z9, Z11
	VMOVDQA64 Z15, Z12
	VPERMI2Q Z4, Z9, Z12
	VMOVDQU64 Z11, (R12)
	VMOVDQU64 Z12, 64(R12)
	ADDQ $128, R12
	VPADDB Z22, Z3, Z3
	SUBQ $8, R11
	JGT emit

	ADDQ CX, R9
	SHLQ $4, CX
	ADDQ CX, DI
	VPCMPUB $1, Z21, Z13, K1
	KORTESTQ K1, K1
	JNZ stop
	VPSUBB Z21, Z13, Z14
	ADDQ $64, BX
	JMP loop

stop:
	VMOVQ X13, AX
	MOVBQZX AL, AX
	ADDQ AX, BX
	JMP ret

done:
	VMOVQ X14, AX
	MOVBQZX AL, AX
	ADDQ AX, BX

ret:
	VZEROUPPER
	MOVQ R9, n+48(FP)
	MOVQ BX, next+56(FP)
	RET
