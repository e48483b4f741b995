#include "textflag.h"
#include "go_asm.h"

// The kernel of simd.go, software-pipelined: each round computes a window
// while it writes the Items of the one before, whose packet count is then
// long known (the branches of its loop resolve early).
//
// Registers: SI buffer, DX tables, R8 the last window offset, R9 the Items
// counted, R10 room; BX the offset of the window computed, AX its address,
// R12 its packet count; R13, CX and DI the offset, packet count and first
// Item of the window to write.
// Z31 the identity on 64..127 (upper table of the permutations), Z30..Z27
// the lower halves of the size and kind tables, Z26 the entry e of the
// next window (every byte), Z10..Z17 constants (bytes 64, 2, 1, 8, and
// EMIT's); K6 says that the window computed stops at a packet left to
// Next, K7 picks bytes 5 and 6 of the Items' meta.
// A window is in one of two register sets: W0 (its bytes), SZ (sizes), KD
// (kinds), S (the packets' starts).

// DOUBLE moves the lanes n of S that have bit k set (lanes at OFF = 8k) on
// by next^(2^k) (Z8), then squares Z8.
#define DOUBLE(S, OFF) \
	KMOVQ (simdTabT_lanes+OFF)(DX), K1 \
	VPERMI2B Z31, Z8, K1, S \
	VPERMT2B Z31, Z8, Z8

// WINDOW computes the window at AX, BX into the set given, its packet
// count into R12, the next window's entry into Z26 and K6. Z0..Z9 are
// scratch.
#define WINDOW(W0, SZ, KD, S) \
	VMOVDQU8 (AX), W0 \
	VMOVDQU8 1(AX), Z0 \
	VMOVDQU8 2(AX), Z1 \
	VMOVDQU8 3(AX), Z2 \
	VMOVDQU8 4(AX), Z3 \
	VMOVDQA64 W0, SZ \
	VPERMI2B (simdTabT_size+64)(DX), Z30, SZ \
	VMOVDQA64 W0, Z4 \
	VPERMI2B (simdTabT_size+192)(DX), Z29, Z4 \
	VPMOVB2M W0, K1 \
	VMOVDQU8 Z4, K1, SZ \
	VMOVDQA64 W0, KD \
	VPERMI2B (simdTabT_kind+64)(DX), Z28, KD \
	VMOVDQA64 W0, Z4 \
	VPERMI2B (simdTabT_kind+192)(DX), Z27, Z4 \
	VMOVDQU8 Z4, K1, KD \
	VPANDD Z12, Z0, Z4 \
	VPANDD Z4, Z1, Z5 \
	VPANDD Z5, Z2, Z6 \
	VPANDD Z6, Z3, Z7 \
	VPADDB Z11, Z4, Z4 \
	VPADDB Z5, Z4, Z4 \
	VPADDB Z6, Z4, Z4 \
	VPTESTNMB Z7, Z7, K2 \
	VMOVDQU8.Z Z4, K2, Z4 \
	VPMOVB2M SZ, K3 \
	VMOVDQU8 Z4, K3, SZ \
	VPCMPEQB Z11, W0, K4 \
	VPCMPEQB simdTabT_ba3(DX), Z0, K4, K4 \
	VMOVDQU8 5(AX), Z4 \
	VMOVDQU8 6(AX), Z5 \
	VMOVDQU8 7(AX), Z6 \
	VPTERNLOGD $0xfe, Z6, Z5, Z4 \
	VPTERNLOGD $0xfe, Z3, Z2, Z4 \
	VPTESTNMB Z4, Z4, K3 \
	VPCMPUB $2, Z12, Z1, K3, K3 \
	KANDNQ K4, K3, K4 \
	VMOVDQU8 Z13, K4, SZ \
	VPADDB simdTabT_iota(DX), SZ, Z8 \
	VMOVDQA64 Z26, S \
	DOUBLE(S, 0) \
	DOUBLE(S, 8) \
	DOUBLE(S, 16) \
	DOUBLE(S, 24) \
	DOUBLE(S, 32) \
	DOUBLE(S, 40) \
	VMOVDQA64 Z26, Z9 \
	VPERMI2B Z31, Z8, Z9 \
	VPCMPUB $1, Z9, S, K2 \
	KMOVQ K2, R12 \
	POPCNTQ R12, R12 \
	VPCMPUB $1, Z10, Z9, K6 \
	VPSUBB Z10, Z9, Z26

// EMIT writes the Items of the window in the set given (offset R13, CX
// packets; W64 is the next 64 bytes) at DI, 8 at a time, and moves DI past
// them. Z0..Z4, Z8 and Z9 are scratch; L names the loop.
#define EMIT(W0, W64, SZ, KD, S, L) \
	VPBROADCASTQ R13, Z9 \
	VMOVDQU64 simdTabT_rep(DX), Z8 \
	MOVQ CX, R11 \
	MOVQ DI, AX \
L: \
	VPERMB S, Z8, Z0 \
	VPADDB Z17, Z0, Z1 \
	VPERMI2B W64, W0, Z1 \
	VPADDB Z16, Z0, Z2 \
	VPERMI2B.Z KD, SZ, K7, Z2 \
	VPSRLQ $56, Z0, Z0 \
	VPADDQ Z9, Z0, Z0 \
	VPSLLQ $56, Z1, Z3 \
	VPTERNLOGQ $0xfe, Z3, Z2, Z0 \
	VMOVDQA64 Z1, Z4 \
	VPERMT2Q Z0, Z15, Z1 \
	VPERMT2Q Z0, Z14, Z4 \
	VMOVDQU64 Z1, (DI) \
	VMOVDQU64 Z4, 64(DI) \
	ADDQ $128, DI \
	VPADDB Z13, Z8, Z8 \
	SUBQ $8, R11 \
	JGT L \
	SHLQ $4, CX \
	LEAQ (AX)(CX*1), DI

// NEXT moves to the window after the one to write: to STOP if that one
// stops at a packet left to Next, to END if there is no buffer or room for
// the next; else AX is its address.
#define NEXT(STOP, END) \
	KORTESTQ K6, K6 \
	JNZ STOP \
	LEAQ 64(R13), BX \
	CMPQ BX, R8 \
	JGT END \
	MOVQ R10, AX \
	SUBQ R9, AX \
	CMPQ AX, $64 \
	JLT END \
	LEAQ (SI)(BX*1), AX

// DONE ends the round: the window computed is the one to write.
#define DONE \
	MOVQ R12, CX \
	ADDQ R12, R9 \
	MOVQ BX, R13

// func simdScan(buf *byte, pos, lim int, out *Item, max int, tab *simdTabT) (n, next int, stop bool)
TEXT ·simdScan(SB), NOSPLIT, $0-65
	MOVQ buf+0(FP), SI
	MOVQ pos+8(FP), BX
	MOVQ lim+16(FP), R8
	MOVQ out+24(FP), DI
	MOVQ max+32(FP), R10
	MOVQ tab+40(FP), DX
	XORQ R9, R9

	VMOVDQU64 simdTabT_idhi(DX), Z31
	VMOVDQU64 (simdTabT_size+0)(DX), Z30
	VMOVDQU64 (simdTabT_size+128)(DX), Z29
	VMOVDQU64 (simdTabT_kind+0)(DX), Z28
	VMOVDQU64 (simdTabT_kind+128)(DX), Z27
	VMOVDQU64 simdTabT_inc(DX), Z17
	VMOVDQU64 simdTabT_moff(DX), Z16
	VMOVDQU64 simdTabT_ilo(DX), Z15
	VMOVDQU64 simdTabT_ihi(DX), Z14
	VMOVDQU64 simdTabT_b8(DX), Z13
	VMOVDQU64 simdTabT_b1(DX), Z12
	VMOVDQU64 simdTabT_b2(DX), Z11
	VMOVDQU64 simdTabT_b64(DX), Z10
	KMOVQ simdTabT_meta56(DX), K7

	// Windows are 64 bytes apart from pos rounded down.
	MOVQ BX, AX
	ANDQ $63, AX
	VPBROADCASTB AX, Z26
	SUBQ AX, BX
	CMPQ BX, R8
	JGT none
	CMPQ R10, $64
	JLT none
	LEAQ (SI)(BX*1), AX
	WINDOW(Z25, Z24, Z23, Z22)
	DONE

loop:
	NEXT(stopA, endA)
	WINDOW(Z21, Z20, Z19, Z18)
	EMIT(Z25, Z21, Z24, Z23, Z22, emitA)
	DONE
	NEXT(stopB, endB)
	WINDOW(Z25, Z24, Z23, Z22)
	EMIT(Z21, Z25, Z20, Z19, Z18, emitB)
	DONE
	JMP loop

// The last window to write, moved to set A if in B: its 64 bytes after
// are loaded; R12 says whether it stops at a packet left to Next.
stopB:
	MOVL $1, R12
	JMP lastB

endB:
	XORL R12, R12

lastB:
	VMOVDQA64 Z21, Z25
	VMOVDQA64 Z20, Z24
	VMOVDQA64 Z19, Z23
	VMOVDQA64 Z18, Z22
	JMP lastA

stopA:
	MOVL $1, R12
	JMP lastA

endA:
	XORL R12, R12

lastA:
	VMOVDQU8 64(SI)(R13*1), Z5
	EMIT(Z25, Z5, Z24, Z23, Z22, emitLast)

last:
	TESTQ R12, R12
	JZ none

	// The packet left to Next is at X = e+64 (mod 256) in the window.
	MOVL $1, R11
	VMOVQ X26, AX
	ADDB $64, AL
	MOVBQZX AL, AX
	LEAQ (R13)(AX*1), BX
	JMP ret

none:
	// The next packet is at the entry of the window at BX.
	XORL R11, R11
	VMOVQ X26, AX
	MOVBQZX AL, AX
	ADDQ AX, BX

ret:
	VZEROUPPER
	MOVQ R9, n+48(FP)
	MOVQ BX, next+56(FP)
	MOVB R11, stop+64(FP)
	RET
