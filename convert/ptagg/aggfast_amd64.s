#include "textflag.h"
#include "go_asm.h"

// fastRuns is fastRunsGo (aggfast.go), run for run: see there for what it
// does. The compiler keeps that loop's state in memory (it spills and
// reloads it on every run); here it lives in registers.
//
// Registers: DI the fastState, SI the run, R9 the end of the runs, R10
// the records, R11 stackMoves, R12 the thread's nc, R13 the guess (cand);
// AX the record, CX the run's flags, DX the slot; BX and R8 scratch.
// s.cur, the stack, s.prev and s.slot stay in memory.

// func fastRuns(s *fastState, runs []Run) int
TEXT ·fastRuns(SB), NOSPLIT, $0-40
	MOVQ    s+0(FP), DI
	MOVQ    runs_base+8(FP), SI
	MOVQ    runs_len+16(FP), R9
	SHLQ    $5, R9              // const_runSize
	ADDQ    SI, R9
	MOVQ    (fastState_recs+0)(DI), R10
	MOVL    $const_stackMoves, R11
	MOVQ    fastState_nc(DI), R12
	MOVLQSX fastState_cand(DI), R13

loop:
	CMPQ    SI, R9
	JAE     done
	CMPQ    R13, (fastState_recs+8)(DI) // unsigned: a bad guess misses
	JAE     miss
	LEAQ    0(R13*8), AX
	LEAQ    (R10)(AX*8), AX     // blockRec__size: 64
	MOVQ    const_runStart(SI), BX
	CMPQ    BX, blockRec_start(AX)
	JNE     miss
	MOVQ    const_runEnd(SI), BX
	CMPQ    BX, blockRec_end(AX)
	JNE     miss
	CMPQ    R12, blockRec_nc(AX)
	JNE     miss

hit:
	// CX: Flags | Mark<<16.
	MOVL    const_runFlags(SI), CX
	MOVL    CX, BX
	ANDL    $const_stackFlags, BX
	BTL     BX, R11
	JCS     move
	MOVWLZX const_runFlags(SI), DX
	SHRL    $const_fTakenBit, DX // the slot: taken

count:
	// The run is taken: AX its record, CX its flags and mark, DX the
	// slot.
	MOVL    const_runNInsn(SI), BX
	ADDQ    BX, blockRec_insns(AX)
	BTL     $const_fTakenBit, CX
	ADCQ    $0, blockRec_branches(AX)
	TESTL   $(0xffff0000|const_fTraceEnd), CX
	JNZ     timed

counted:
	MOVL    R13, fastState_prev(DI)
	MOVQ    DX, fastState_slot(DI)
	MOVLQSX blockRec_succ(AX)(DX*4), R13
	ADDQ    $const_runSize, SI
	JMP     loop

timed:
	// runTime: the mark's time and cycles, the time since the thread's
	// last, a trace stop. R8 the time, BX scratch.
	MOVL    CX, BX
	SHRL    $16, BX
	JZ      unmarked
	CMPQ    BX, (fastState_marks+8)(DI)
	JA      unmarked            // not one of the batch's: none
	DECL    BX
	SHLQ    $4, BX              // const_markSize
	ADDQ    (fastState_marks+0)(DI), BX
	MOVQ    const_markCycles(BX), R8
	ADDQ    R8, blockRec_cycles(AX)
	MOVQ    const_markTime(BX), R8
	MOVQ    R8, fastState_tm(DI)

unmarked:
	MOVQ    fastState_tm(DI), R8
	TESTQ   R8, R8
	JZ      counted             // no time: nothing
	MOVQ    fastState_last(DI), BX
	CMPQ    R8, BX
	JEQ     stop
	TESTQ   BX, BX
	JZ      setlast
	CMPQ    R8, BX
	JBE     setlast
	SUBQ    BX, R8
	ADDQ    R8, blockRec_nanos(AX)
	MOVQ    fastState_tm(DI), R8

setlast:
	MOVQ    R8, fastState_last(DI)

stop:
	// A trace stop: the time until the thread's trace resumes is not its
	// own. The time is stale then: runs' loop takes the next run.
	TESTL   $const_fTraceEnd, CX
	JZ      counted
	MOVQ    $0, fastState_last(DI)
	MOVL    R13, fastState_prev(DI)
	MOVQ    DX, fastState_slot(DI)
	MOVLQSX blockRec_succ(AX)(DX*4), R13
	ADDQ    $const_runSize, SI
	JMP     done

move:
	// The stack may move (move's cases, in its order).
	TESTL   $const_fNoMove, CX
	JNZ     same
	TESTL   $const_fCall, CX
	JNZ     call
	TESTL   $const_fReturn, CX
	JNZ     ret

	// A jump (the only other kind that moves): one within the map of the
	// thread's last jump, or to nowhere, stays in the frame.
	MOVQ    const_runTo(SI), BX
	TESTQ   BX, BX
	JZ      same
	SUBQ    fastState_lo(DI), BX
	CMPQ    BX, fastState_span(DI)
	JAE     done
	MOVQ    const_runEnd(SI), BX
	SUBQ    fastState_lo(DI), BX
	CMPQ    BX, fastState_span(DI)
	JAE     done

same:
	XORL    DX, DX
	JMP     count

call:
	// The node of the call from End in frame cur (the edge index), pushed
	// if the stack has room. R8 the hash, then the edge; BX scratch.
	MOVQ    (fastState_stack+8)(DI), BX
	CMPQ    BX, $const_maxDepth
	JGE     done
	CMPQ    BX, (fastState_stack+16)(DI)
	JEQ     done
	MOVLQSX fastState_cur(DI), R8
	MOVQ    $const_hashMul1, BX
	IMULQ   BX, R8
	XORQ    const_runEnd(SI), R8
	MOVQ    $const_hashMul2, BX
	IMULQ   BX, R8
	MOVQ    CX, DX              // keep the flags
	MOVQ    fastState_eshift(DI), CX
	SHRQ    CX, R8
	MOVQ    DX, CX

probe:
	MOVQ    R8, BX
	SHLQ    $4, BX              // edge__size
	ADDQ    (fastState_edges+0)(DI), BX
	MOVQ    edge_site(BX), DX
	CMPQ    DX, const_runEnd(SI)
	JNE     next
	MOVL    edge_from(BX), DX
	DECL    DX
	CMPL    DX, fastState_cur(DI)
	JEQ     found
	INCL    DX

next:
	MOVL    edge_from(BX), DX
	TESTL   DX, DX
	JZ      done                // not in the index: runs' loop folds it
	INCQ    R8
	MOVQ    (fastState_edges+8)(DI), DX
	DECQ    DX
	ANDQ    DX, R8
	JMP     probe

found:
	// Push the node (BX's edge's to) and enter it.
	MOVLQSX edge_to(BX), R8
	MOVQ    (fastState_stack+8)(DI), BX
	MOVQ    (fastState_stack+0)(DI), DX
	MOVL    R8, (DX)(BX*4)
	INCQ    BX
	MOVQ    BX, (fastState_stack+8)(DI)
	JMP     enter

ret:
	// The innermost frame whose call returns to To (move's test); not
	// found, or calls beyond the depth: runs' loop.
	CMPL    fastState_overflow(DI), $0
	JNE     done
	MOVQ    (fastState_stack+8)(DI), BX

search:
	DECQ    BX
	JS      done
	MOVQ    (fastState_stack+0)(DI), DX
	MOVLQSX (DX)(BX*4), R8
	CMPQ    R8, (fastState_nodes+8)(DI)
	JAE     done
	IMULQ   $callNode__size, R8
	ADDQ    (fastState_nodes+0)(DI), R8
	MOVQ    callNode_ret(R8), DX
	CMPQ    DX, const_runTo(SI)
	JEQ     popped
	TESTQ   DX, DX
	JNZ     search
	MOVQ    const_runTo(SI), DX
	SUBQ    callNode_site(R8), DX
	JBE     search              // To <= site
	CMPQ    DX, $const_maxCallLen
	JA      search

popped:
	// The frame at BX returned: its node (R8) learns the return address
	// and the stack ends below it; the new top or the root is entered.
	MOVQ    const_runTo(SI), DX
	MOVQ    DX, callNode_ret(R8)
	MOVQ    BX, (fastState_stack+8)(DI)
	MOVLQSX fastState_root(DI), R8
	TESTQ   BX, BX
	JZ      enter
	MOVQ    (fastState_stack+0)(DI), DX
	MOVLQSX -4(DX)(BX*4), R8

enter:
	// R8 the frame after the run: the slot says whether it changed.
	XORL    DX, DX
	CMPL    R8, fastState_cur(DI)
	JEQ     count
	MOVL    $1, DX
	MOVL    R8, fastState_cur(DI)
	LEAQ    1(R8), R12          // nc: node+1 << 32 | cpu
	SHLQ    $32, R12
	MOVL    fastState_cpu(DI), BX
	ORQ     BX, R12
	JMP     count

miss:
	// The guess is wrong: the record from the index (recFind), learnt
	// as the successor of the thread's previous run (lookup); a new
	// one is runs' loop's to insert. R8 the slot index, DX its mask,
	// CX the record's index, AX the record.
	MOVQ    R12, R8
	MOVQ    $const_hashMul1, BX
	IMULQ   BX, R8
	XORQ    const_runStart(SI), R8
	MOVQ    $const_hashMul2, BX
	IMULQ   BX, R8
	MOVQ    fastState_rshift(DI), CX
	SHRQ    CX, R8
	MOVQ    (fastState_rslots+8)(DI), DX
	DECQ    DX

rprobe:
	MOVQ    (fastState_rslots+0)(DI), BX
	MOVLQSX (BX)(R8*4), CX
	TESTQ   CX, CX
	JZ      done
	CMPQ    CX, (fastState_recs+8)(DI)
	JAE     done
	MOVQ    CX, AX
	SHLQ    $6, AX
	ADDQ    R10, AX
	MOVQ    const_runStart(SI), BX
	CMPQ    BX, blockRec_start(AX)
	JNE     rnext
	CMPQ    R12, blockRec_nc(AX)
	JNE     rnext
	MOVQ    const_runEnd(SI), BX
	CMPQ    BX, blockRec_end(AX)
	JEQ     rfound

rnext:
	INCQ    R8
	ANDQ    DX, R8
	JMP     rprobe

rfound:
	MOVLQSX fastState_prev(DI), BX
	TESTQ   BX, BX
	JZ      rguess
	CMPQ    BX, (fastState_recs+8)(DI)
	JAE     rguess
	SHLQ    $6, BX
	ADDQ    R10, BX
	MOVQ    fastState_slot(DI), DX
	MOVL    CX, blockRec_succ(BX)(DX*4)

rguess:
	MOVQ    CX, R13
	JMP     hit

done:
	MOVQ    R12, fastState_nc(DI)
	MOVL    R13, fastState_cand(DI)
	SUBQ    runs_base+8(FP), SI
	SHRQ    $5, SI
	MOVQ    SI, ret+32(FP)
	RET
