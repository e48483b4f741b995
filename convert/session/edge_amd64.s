#include "textflag.h"
#include "go_asm.h"

// aggInnerWalk is walkGo (edge_inner.go), block for block: see there for
// what it does. The compiler's version kept its state in memory; here the
// IP, the next record, the TNT bits, the instruction count and the flags
// live in registers.
//
// Registers: DI the aggInner, SI the records, R8 ip, R9 next, R10 tnt,
// R11 insns, R12 the flags (bit 0 pending, 1 noProg, 2 sstate, 3 sampled,
// 4 tookBit, 5 notTaken); BX the record, CX its instruction count, DX the
// fall-through, R13 the target, AX scratch. last, lastIP and the counts
// (used, refills, walked, passed) stay in the aggInner.

#define fPending 1
#define fNoProg 2
#define fSState 4
#define fSampled 8
#define fTookBit 16
#define fNotTaken 32

// func aggInnerWalk(s *aggInner)
TEXT ·aggInnerWalk(SB), NOSPLIT, $0-8
	MOVQ    s+0(FP), DI
	MOVQ    (aggInner_recs+0)(DI), SI
	MOVQ    aggInner_ip(DI), R8
	MOVLQSX aggInner_next(DI), R9
	MOVQ    aggInner_tnt(DI), R10
	MOVQ    aggInner_insns(DI), R11
	XORQ    R12, R12
	CMPL    aggInner_pending(DI), $0
	JEQ     np
	ORQ     $fPending, R12
np:
	CMPL    aggInner_noProg(DI), $0
	JEQ     nn
	ORQ     $fNoProg, R12
nn:
	CMPL    aggInner_sstate(DI), $0
	JEQ     loop
	ORQ     $fSState, R12

loop:
	TESTQ   R9, R9
	JEQ     done
	// The bits ran out (tnt == 1<<63): the next TNT-8.
	MOVQ    R10, AX
	SHLQ    $1, AX
	JEQ     refill

rec:
	MOVQ    R9, BX
	SHLQ    $6, BX                    // aggRec__size: 64
	ADDQ    SI, BX
	MOVL    aggRec_epoch(BX), AX
	CMPL    AX, aggInner_ep(DI)
	JNE     done
	MOVL    aggRec_ft(BX), DX
	ADDQ    R8, DX                    // the fall-through
	MOVBLZX aggRec_kind(BX), AX
	CMPL    AX, $const_aggCond
	JEQ     walked
	CMPL    AX, $const_aggJump
	JNE     done
	TESTQ   $fNoProg, R12
	JNE     done
	CMPL    (aggRec_next+0)(BX), $0
	JEQ     done

walked:
	// The block before went here: a pending one is counted.
	TESTQ   $fPending, R12
	JEQ     nopend
	MOVLQSX aggInner_last(DI), AX
	SHLQ    $6, AX
	ADDQ    SI, AX
	MOVL    aggRec_cnt(AX), CX
	ADDQ    CX, aggRec_insns(AX)
	ANDQ    $~fPending, R12

nopend:
	INCQ    aggInner_walked(DI)
	MOVL    aggRec_cnt(BX), CX
	ADDQ    CX, R11
	MOVLQSX (aggRec_next+0)(BX), AX // the next record: next[0]
	MOVLQSX aggRec_rel(BX), R13
	ADDQ    DX, R13                   // the target
	CMPB    aggRec_kind(BX), $const_aggCond
	JNE     jump
	ANDQ    $~fNoProg, R12
	ORQ     $(fSState|fTookBit), R12
	SHLQ    $1, R10                   // the bit, in the carry
	JCS     taken
	// Not taken: counted when its successor is walked.
	ORQ     $(fPending|fNotTaken), R12
	MOVL    R9, aggInner_last(DI)
	MOVQ    R8, aggInner_lastIP(DI)
	MOVQ    DX, R8
	MOVQ    AX, R9
	JMP     loop

taken:
	CMPQ    R13, DX
	JEQ     counted
	INCQ    aggRec_taken(BX)
	MOVLQSX (aggRec_next+4)(BX), AX // next[1]
	JMP     counted

jump:
	ORQ     $fNoProg, R12
	INCQ    aggRec_taken(BX)

counted:
	ADDQ    CX, aggRec_insns(BX)
	INCQ    aggInner_passed(DI)
	// sampled |= sstate
	MOVQ    R12, CX
	ANDQ    $fSState, CX
	SHLQ    $1, CX
	ORQ     CX, R12
	MOVL    R9, aggInner_last(DI)
	MOVQ    R8, aggInner_lastIP(DI)
	MOVQ    R13, R8
	MOVQ    AX, R9
	JMP     loop

refill:
	// PADs, then a TNT-8 (a byte with bit 0 clear, not 0x02), from more.
	MOVQ    aggInner_used(DI), AX
	MOVQ    (aggInner_more+0)(DI), BX
	MOVQ    (aggInner_more+8)(DI), CX

pad:
	CMPQ    AX, CX
	JAE     done
	MOVBLZX (BX)(AX*1), DX
	TESTL   DX, DX
	JNE     byte
	INCQ    AX
	JMP     pad

byte:
	TESTL   $1, DX
	JNE     done
	CMPL    DX, $2
	JEQ     done
	INCQ    AX
	MOVQ    AX, aggInner_used(DI)
	INCQ    aggInner_refills(DI)
	MOVL    DX, aggInner_lastTNT(DI)
	// tnt = payload<<(64-n) | 1<<(63-n), n the payload's bits: the
	// stop bit of c>>1 is bit n.
	SHRL    $1, DX
	BSRL    DX, CX                    // n (>= 1)
	BTRL    CX, DX                    // the payload
	NEGL    CX
	ADDL    $64, CX                   // 64-n
	SHLQ    CX, DX
	MOVQ    $1, AX
	SHLQ    CX, AX
	SHRQ    $1, AX                    // 1<<(63-n)
	ORQ     AX, DX
	MOVQ    DX, R10
	ORQ     $fSampled, R12
	ANDQ    $~fSState, R12
	JMP     rec

done:
	MOVQ    R8, aggInner_ip(DI)
	MOVL    R9, aggInner_next(DI)
	MOVQ    R10, aggInner_tnt(DI)
	MOVQ    R11, aggInner_insns(DI)
	MOVQ    R12, AX
	ANDL    $fPending, AX
	MOVL    AX, aggInner_pending(DI)
	MOVQ    R12, AX
	SHRL    $1, AX
	ANDL    $1, AX
	MOVL    AX, aggInner_noProg(DI)
	MOVQ    R12, AX
	SHRL    $2, AX
	ANDL    $1, AX
	MOVL    AX, aggInner_sstate(DI)
	MOVQ    R12, AX
	SHRL    $3, AX
	ANDL    $1, AX
	MOVL    AX, aggInner_sampled(DI)
	MOVQ    R12, AX
	SHRL    $4, AX
	ANDL    $1, AX
	MOVL    AX, aggInner_tookBit(DI)
	MOVQ    R12, AX
	SHRL    $5, AX
	ANDL    $1, AX
	MOVL    AX, aggInner_notTaken(DI)
	RET
