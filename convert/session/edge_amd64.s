#include "textflag.h"
#include "go_asm.h"

// aggInnerWalk is walkGo (edge_inner.go), block for block: see there for
// what it does. The compiler's version kept its state in memory; here the
// IP, the next record, the TNT bits, the instruction count and the flags
// live in registers.
//
// Registers: DI the aggInner, SI the records, R8 ip, R9 next, R10 tnt,
// R11 insns, R12 the flags (bit 0 pending, 2 sstate, 3 sampled,
// 4 tookBit, 5 notTaken); BX the record, CX its instruction count, DX the
// fall-through, R13 the target, R14 the target of a return or an indirect
// branch, AX scratch. last, lastIP, noProg, the counts (used, refills,
// walked, passed), the frames (aggInner.fr) and the decoder's stack (dstack) stay
// in the aggInner.
//
// A call, a return or a TIP is checked first, everything that could
// send it back to mid (then nothing is written), and then made: the
// frames (frame, which also makes its own checks first), then the rest
// (callok, cretok, tipok: CX says which), then the walk's count of the
// block (walked).

#define fPending 1
#define fSState 4
#define fSampled 8
#define fTookBit 16
#define fNotTaken 32
#define fTIPMode 64

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
	CMPL    aggInner_sstate(DI), $0
	JEQ     ntm
	ORQ     $fSState, R12

ntm:
	CMPL    aggInner_tipMode(DI), $0
	JEQ     loop
	ORQ     $fTIPMode, R12

loop:
	TESTQ   R9, R9
	JEQ     done
	MOVQ    R9, BX
	SHLQ    $6, BX                    // aggRec__size: 64
	ADDQ    SI, BX                    // the record
	// The bits ran out (tnt == 1<<63): the next TNT-8 or TIP.
	MOVQ    R10, AX
	SHLQ    $1, AX
	JEQ     refill

rec:
	MOVL    aggRec_epoch(BX), AX
	CMPL    AX, aggInner_ep(DI)
	JNE     done
	MOVL    aggRec_ft(BX), DX
	ADDQ    R8, DX                    // the fall-through
	MOVBLZX aggRec_kind(BX), AX
	CMPL    AX, $const_aggCond
	JNE     notcond
	// A conditional branch, walked: the block before went here (a
	// pending one is counted).
	TESTQ   $fPending, R12
	JEQ     cnopend
	MOVLQSX aggInner_last(DI), AX
	SHLQ    $6, AX
	ADDQ    SI, AX
	MOVL    aggRec_cnt(AX), CX
	ADDQ    CX, aggRec_insns(AX)

cnopend:
	MOVL    aggRec_cnt(BX), CX
	ADDQ    CX, R11
	MOVL    $0, aggInner_noProg(DI)
	MOVL    R9, aggInner_last(DI)
	MOVQ    R8, aggInner_lastIP(DI)
	SHLQ    $1, R10                   // the bit, in the carry
	JCS     ctaken
	// Not taken: counted when its successor is walked.
	ORQ     $(fSState|fTookBit|fPending|fNotTaken), R12
	MOVQ    DX, R8
	MOVLQSX (aggRec_next+0)(BX), R9
	JMP     loop

ctaken:
	// Taken: counted, a branch state passed (sampled: sstate is set).
	ANDQ    $~fPending, R12
	ORQ     $(fSState|fTookBit|fSampled), R12
	ADDQ    CX, aggRec_insns(BX)
	INCQ    aggInner_passed(DI)
	MOVLQSX aggRec_rel(BX), R13
	TESTQ   R13, R13
	JEQ     cft                       // (to the fall-through: not taken)
	INCQ    aggRec_taken(BX)
	ADDQ    R13, DX
	MOVQ    DX, R8
	MOVLQSX (aggRec_next+4)(BX), R9
	JMP     loop

cft:
	MOVQ    DX, R8
	MOVLQSX (aggRec_next+0)(BX), R9
	JMP     loop

notcond:
	CMPL    AX, $const_aggJump
	JEQ     jumpok
	CMPL    AX, $const_aggCall
	JEQ     loopchk
	CMPL    AX, $const_aggRet
	JEQ     cret
	JMP     done

jumpok:
	// A direct jump, on its own path: the next record (linked), the loop
	// check and step (loopFails, loopStep), counted.
	MOVLQSX (aggRec_next+0)(BX), AX
	TESTQ   AX, AX
	JEQ     done
	MOVLQSX aggRec_rel(BX), R13
	ADDQ    DX, R13                   // the target
	MOVL    aggInner_noProg(DI), R14
	CMPL    R14, $1
	JHI     jchk
	INCL    aggInner_noProg(DI)
	TESTL   R14, R14
	JEQ     jstepped
	MOVQ    R13, aggInner_stuckIP(DI)
	MOVQ    $1, aggInner_stuckPrd(DI)
	MOVQ    $1, aggInner_stuckCnt(DI)

jstepped:
	TESTQ   $fPending, R12
	JEQ     jnopend
	MOVLQSX aggInner_last(DI), CX
	SHLQ    $6, CX
	ADDQ    SI, CX
	MOVL    aggRec_cnt(CX), R14
	ADDQ    R14, aggRec_insns(CX)
	ANDQ    $~fPending, R12

jnopend:
	MOVL    aggRec_cnt(BX), CX
	ADDQ    CX, R11
	INCQ    aggRec_taken(BX)
	JMP     counted

jchk:
	CMPQ    R14, aggInner_maxLoops(DI)
	JGT     done
	CMPQ    R13, aggInner_stuckIP(DI)
	JEQ     done
	INCL    aggInner_noProg(DI)
	DECQ    aggInner_stuckCnt(DI)
	JNE     jstepped
	MOVQ    aggInner_stuckPrd(DI), R14
	INCQ    R14
	MOVQ    R14, aggInner_stuckPrd(DI)
	MOVQ    R14, aggInner_stuckCnt(DI)
	MOVQ    R13, aggInner_stuckIP(DI)
	JMP     jstepped

loopchk:
	// A direct jump or call: loopFails (noProg > 1 and (noProg >
	// maxLoops or to == stuckIP)) stops the loop.
	MOVL    aggInner_noProg(DI), AX
	CMPL    AX, $1
	JLS     loopok
	CMPQ    AX, aggInner_maxLoops(DI)
	JGT     done
	MOVLQSX aggRec_rel(BX), R13
	ADDQ    DX, R13
	CMPQ    R13, aggInner_stuckIP(DI)
	JEQ     done

loopok:
	CMPB    aggRec_kind(BX), $const_aggCall
	JEQ     call

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
	MOVL    aggRec_cnt(BX), CX
	ADDQ    CX, R11
	MOVLQSX (aggRec_next+0)(BX), AX // the next record: next[0]
	MOVLQSX aggRec_rel(BX), R13
	ADDQ    DX, R13                   // the target
	CMPB    aggRec_kind(BX), $const_aggJump
	JEQ     uncond
	CMPB    aggRec_kind(BX), $const_aggCall
	JEQ     uncond
	JMP     indirect

uncond:
	// A direct jump or call: loopStep (R13 the target).
	MOVL    aggInner_noProg(DI), R14
	INCL    aggInner_noProg(DI)
	TESTL   R14, R14
	JEQ     stepped
	CMPL    R14, $1
	JNE     stepdec
	MOVQ    R13, aggInner_stuckIP(DI)
	MOVQ    $1, aggInner_stuckPrd(DI)
	MOVQ    $1, aggInner_stuckCnt(DI)
	JMP     stepped

stepdec:
	DECQ    aggInner_stuckCnt(DI)
	JNE     stepped
	MOVQ    aggInner_stuckPrd(DI), R14
	INCQ    R14
	MOVQ    R14, aggInner_stuckPrd(DI)
	MOVQ    R14, aggInner_stuckCnt(DI)
	MOVQ    R13, aggInner_stuckIP(DI)

stepped:
	CMPB    aggRec_kind(BX), $const_aggCall
	JEQ     called
	INCQ    aggRec_taken(BX)          // a jump
	JMP     counted

called:
	// A direct call: the callee's record is the call's.
	MOVBLZX aggRec_br(BX), AX
	ADDQ    AX, aggRec_taken(BX)
	MOVLQSX aggRec_call(BX), AX
	JMP     counted

indirect:
	// A return or an indirect branch to R14: the record that followed
	// there under the current node, from the cache (target).
	MOVL    $0, aggInner_noProg(DI)
	MOVBLZX aggRec_br(BX), AX
	ADDQ    AX, aggRec_taken(BX)
	MOVQ    R14, R13
	MOVQ    R9, AX
	MOVQ    $0x9e3779b97f4a7c15, R14
	IMULQ   R14, AX
	XORQ    R13, AX
	XORQ    const_frNC(DI), AX        // (the node and CPU: slots of their own)
	MOVQ    $0xbf58476d1ce4e5b9, R14
	IMULQ   R14, AX
	SHRQ    $(64-const_aggTargetBits), AX
	LEAQ    (AX)(AX*2), AX
	SHLQ    $3, AX                    // aggTarget__size: 24
	ADDQ    (aggInner_tgt+0)(DI), AX
	CMPL    aggTarget_src(AX), R9
	JNE     tmiss
	CMPQ    aggTarget_to(AX), R13
	JNE     tmiss
	MOVQ    aggTarget_nc(AX), R14
	CMPQ    R14, const_frNC(DI)
	JNE     tmiss
	MOVLQSX aggTarget_ri(AX), AX
	JMP     counted

tmiss:
	XORQ    AX, AX

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

call:
	// A direct call whose loop check passed: room on the decoder's
	// stack.
	CMPL    aggRec_rel(BX), $0
	JEQ     callfr
	MOVQ    (aggInner_dstack+8)(DI), AX
	CMPQ    AX, (aggInner_dstack+16)(DI)
	JAE     done

callfr:
	XORL    CX, CX                    // then callok
	MOVL    $const_aggCall, AX
	JMP     frame

callok:
	CMPL    aggRec_rel(BX), $0
	JEQ     walked

push:
	// The return address (DX) pushed on the decoder's stack.
	MOVQ    (aggInner_dstack+0)(DI), AX
	MOVQ    (aggInner_dstack+8)(DI), R13
	MOVQ    DX, (AX)(R13*8)           // the return address
	INCQ    R13
	MOVQ    R13, (aggInner_dstack+8)(DI)
	JMP     walked

cret:
	// A compressed return: a bit taken, the return address on the
	// decoder's stack.
	TESTQ   R10, R10
	JPL     done
	CMPL    aggInner_retComp(DI), $0
	JEQ     done
	MOVQ    (aggInner_dstack+8)(DI), AX
	TESTQ   AX, AX
	JEQ     done
	MOVQ    (aggInner_dstack+0)(DI), R14
	MOVQ    -8(R14)(AX*8), R14
	TESTQ   R14, R14
	JEQ     done
	MOVL    $1, CX                    // then cretok
	MOVL    $const_aggRet, AX
	JMP     frame

cretok:
	DECQ    (aggInner_dstack+8)(DI)
	MOVQ    R14, aggInner_retAddr(DI)
	MOVL    $1, aggInner_popped(DI)
	SHLQ    $1, R10
	ORQ     $(fSState|fTookBit), R12
	JMP     walked

frame:
	// frameMove for a move of kind AX (to R14 for a return) of record
	// BX (R9): its checks, then the move; then CX's continuation.
	MOVL    const_frMode(DI), R13
	CMPL    R13, $const_framesEdges
	JEQ     fedges
	CMPL    R13, $const_framesStack
	JEQ     fstack
	CMPL    AX, $const_aggInd         // framesNone: a jump only
	JEQ     fok
	JMP     done

fedges:
	// After: the node of the record's block, made.
	CMPQ    R9, (const_frCtx+8)(DI)
	JAE     done
	MOVQ    const_frCtx(DI), R13
	MOVL    (R13)(R9*4), R13
	TESTL   R13, R13
	JEQ     done
	INCQ    R13
	SHLQ    $32, R13
	DECQ    R13                       // nodeCPU(ctx-1, -1)
	MOVQ    R13, const_frNC(DI)
	CMPL    AX, $const_aggCall
	JNE     fok
	CMPQ    R13, aggRec_callNC(BX)
	JEQ     fok
	MOVQ    R13, aggRec_callNC(BX)
	MOVL    $0, aggRec_call(BX)
	JMP     fok

fstack:
	CMPL    AX, $const_aggCall
	JEQ     fscall
	CMPL    AX, $const_aggRet
	JNE     fok                       // a jump: nothing
	// Return: to the top frame, seen before.
	CMPL    const_frOverflow(DI), $0
	JNE     done
	MOVQ    (const_frStack+8)(DI), AX
	TESTQ   AX, AX
	JEQ     done
	MOVQ    const_frStack(DI), R13
	MOVLQSX -4(R13)(AX*4), R13        // the top
	IMULQ   $const_nodeSize, R13
	ADDQ    const_frNodes(DI), R13
	CMPQ    R14, const_nodeRet(R13)
	JNE     done
	DECQ    AX
	MOVQ    AX, (const_frStack+8)(DI)
	MOVL    const_frRoot(DI), R13
	TESTQ   AX, AX
	JEQ     froot
	MOVQ    const_frStack(DI), R13
	MOVL    -4(R13)(AX*4), R13

froot:
	INCL    R13
	SHLQ    $32, R13
	MOVL    const_frCPU(DI), AX
	ORQ     AX, R13                   // nodeCPU(cur, cpu)
	MOVQ    R13, const_frNC(DI)
	JMP     fok

fscall:
	// CallTo: the node the record's last call entered (the current one
	// for a recursion folded into its own node).
	MOVQ    aggRec_callNC(BX), R13
	TESTQ   R13, R13
	JEQ     done
	MOVQ    (const_frStack+8)(DI), AX
	CMPQ    AX, (const_frStack+16)(DI)
	JAE     done
	MOVQ    R13, const_frNC(DI)
	MOVQ    const_frStack(DI), R13
	LEAQ    (R13)(AX*4), R13
	INCQ    AX
	MOVQ    AX, (const_frStack+8)(DI)
	CMPL    AX, const_frDepth(DI)
	JLE     fsdeep
	MOVL    AX, const_frDepth(DI)         // the most frames (Frames.Depth)

fsdeep:
	MOVQ    const_frNC(DI), AX
	SHRQ    $32, AX
	DECL    AX
	MOVL    AX, (R13)

fok:
	MOVL    CX, AX
	ANDL    $0xff, AX
	JEQ     callok
	CMPL    AX, $1
	JEQ     cretok
	CMPL    AX, $3
	JEQ     tmok
	JMP     tipok

refill:
	// In TIP mode: the TIP's target for the next return or indirect
	// branch (tmode). Else PADs, then a TNT-8 (a byte with bit 0 clear,
	// not 0x02) or a TIP, from more.
	TESTQ   $fTIPMode, R12
	JNE     tmode
	MOVQ    aggInner_used(DI), AX
	MOVQ    (aggInner_more+0)(DI), R13
	MOVQ    (aggInner_more+8)(DI), CX

pad:
	CMPQ    AX, CX
	JAE     done
	MOVBLZX (R13)(AX*1), DX
	TESTL   DX, DX
	JNE     byte
	INCQ    AX
	JMP     pad

byte:
	TESTL   $1, DX
	JNE     tip
	CMPL    DX, $2
	JEQ     done
	INCQ    AX
	MOVQ    AX, aggInner_used(DI)
	INCQ    aggInner_refills(DI)
	MOVL    aggInner_lastTNT(DI), R14
	MOVL    R14, aggInner_prevC(DI)
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

tip:
	// A TIP (c&0x1f == 0x0d: AX its offset k in more, R13 more, CX its
	// length, DX c) for the return or indirect branch of the record.
	MOVL    DX, R14
	ANDL    $0x1f, R14
	CMPL    R14, $0x0d
	JNE     done
	CMPL    aggInner_tipOK(DI), $0
	JEQ     done
	MOVL    aggRec_epoch(BX), R14
	CMPL    R14, aggInner_ep(DI)
	JNE     done
	CMPB    aggRec_kind(BX), $const_aggJump
	JB      done                      // (jumps, returns, calls, indirect branches)

tipk:
	SUBQ    AX, CX
	CMPQ    CX, $9
	JB      done                      // (ptperf.TIPTarget reads 8 bytes)
	MOVQ    DX, CX
	SHRQ    $5, CX
	SHLQ    $5, CX                    // 32 bytes an IP compression
	LEAQ    ·tipTab(SB), R14
	ADDQ    R14, CX
	CMPQ    0(CX), $0
	JEQ     done                      // suppressed or reserved
	MOVQ    1(R13)(AX*1), R13
	ANDQ    8(CX), R13                // the payload
	MOVQ    aggInner_tipIP(DI), R14
	ANDQ    16(CX), R14
	ORQ     R13, R14                  // the target
	BTQ     $47, R14
	JCC     nosext
	ORQ     24(CX), R14

nosext:
	// CX: the continuation (tipok) | c<<8 | size<<16 | k<<32; DX the
	// payload.
	MOVQ    0(CX), CX
	SHLQ    $16, CX
	SHLQ    $8, DX
	ORQ     DX, CX
	SHLQ    $32, AX
	ORQ     AX, CX
	ORQ     $2, CX
	MOVQ    R13, DX
	CMPB    aggRec_kind(BX), $const_aggRet
	JNE     tipind
	MOVL    $const_aggRet, AX
	JMP     frame

tipind:
	CMPB    aggRec_kind(BX), $const_aggInd
	JNE     tipok                     // a direct jump or call: TIP mode
	CMPB    aggRec_isCall(BX), $0
	JEQ     tipjmp
	MOVQ    (aggInner_dstack+8)(DI), AX
	CMPQ    AX, (aggInner_dstack+16)(DI)
	JAE     done
	MOVL    $const_aggCall, AX
	JMP     frame

tipjmp:
	MOVQ    R14, AX
	SUBQ    aggInner_lo(DI), AX
	CMPQ    AX, aggInner_span(DI)
	JAE     done                      // another map: Agg.Jump
	CMPL    const_frMode(DI), $const_framesEdges
	JNE     fok                       // (frame moves nothing)
	MOVL    $const_aggInd, AX
	JMP     frame

tipok:
	// The packet read.
	MOVL    aggInner_lastTNT(DI), AX
	MOVL    AX, aggInner_prevC(DI)
	MOVQ    CX, AX
	SHRQ    $8, AX
	ANDL    $0xff, AX
	MOVL    AX, aggInner_lastTNT(DI)
	MOVQ    CX, AX
	SHRQ    $32, AX
	SHRQ    $16, CX
	ANDL    $0xff, CX
	ADDQ    CX, AX
	MOVQ    AX, aggInner_used(DI)
	INCQ    aggInner_refills(DI)
	MOVQ    DX, aggInner_tipPl(DI)
	MOVQ    R14, aggInner_tipIP(DI)
	MOVL    $1, aggInner_tips(DI)
	CMPB    aggRec_kind(BX), $const_aggRet
	JEQ     tiptaken
	CMPB    aggRec_kind(BX), $const_aggInd
	JEQ     tiptaken
	// Before a direct jump or call (walked as in walkTIP): TIP mode,
	// the target taken at the next return or indirect branch (tmode).
	// The decoder's Next took the sample time at the end of the bits.
	MOVQ    R14, aggInner_tipTo(DI)
	ORQ     $(fTIPMode|fSampled), R12
	ANDQ    $~fSState, R12
	JMP     rec

tmode:
	// TIP mode: direct jumps and calls walked, the target (tipTo) taken
	// at a return or indirect branch.
	MOVL    aggRec_epoch(BX), AX
	CMPL    AX, aggInner_ep(DI)
	JNE     done
	MOVBLZX aggRec_kind(BX), AX
	CMPL    AX, $const_aggJump
	JEQ     rec
	CMPL    AX, $const_aggCall
	JEQ     rec
	MOVQ    aggInner_tipTo(DI), R14
	MOVL    $3, CX                    // then tmok
	CMPL    AX, $const_aggInd
	JEQ     tipind
	CMPL    AX, $const_aggRet
	JNE     done
	MOVL    $const_aggRet, AX
	JMP     frame

tmok:
	ANDQ    $~fTIPMode, R12

tiptaken:
	// The target taken.
	ORQ     $fSState, R12
	MOVL    aggRec_ft(BX), DX
	ADDQ    R8, DX                    // the fall-through
	CMPB    aggRec_kind(BX), $const_aggRet
	JEQ     tipret
	CMPB    aggRec_isCall(BX), $0
	JEQ     walked
	JMP     push

tipret:
	// walkInsn pops at every return.
	MOVL    $1, aggInner_popped(DI)
	MOVQ    $0, aggInner_retAddr(DI)
	MOVQ    (aggInner_dstack+8)(DI), AX
	TESTQ   AX, AX
	JEQ     walked
	DECQ    AX
	MOVQ    AX, (aggInner_dstack+8)(DI)
	MOVQ    (aggInner_dstack+0)(DI), R13
	MOVQ    (R13)(AX*8), R13
	MOVQ    R13, aggInner_retAddr(DI)
	JMP     walked

done:
	MOVQ    R8, aggInner_ip(DI)
	MOVL    R9, aggInner_next(DI)
	MOVQ    R10, aggInner_tnt(DI)
	MOVQ    R11, aggInner_insns(DI)
	MOVQ    R12, AX
	ANDL    $fPending, AX
	MOVL    AX, aggInner_pending(DI)
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
	MOVQ    R12, AX
	SHRL    $6, AX
	ANDL    $1, AX
	MOVL    AX, aggInner_tipMode(DI)
	RET
