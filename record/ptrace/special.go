package ptrace

import (
	"encoding/binary"
	"fmt"

	"github.com/perfpt/perfpt/internal/cpuid"
	"github.com/perfpt/perfpt/record/flow"
	"golang.org/x/arch/x86/x86asm"
	"golang.org/x/sys/unix"
)

// The tracer performs PTWRITE and the RTM instructions (XBEGIN, XEND,
// XABORT, XTEST) itself, as a CPU that has them would: this machine raises
// #UD on them. The CPU it plays never aborts a transaction on its own (no
// conflicts, no capacity limits), except at instructions that always abort
// one (SYSCALL, INT and other transfers to the kernel, which it takes as
// clOther), at signals (a fault inside the transaction is suppressed, other
// signals are delivered at the fallback address), and on XABORT.
//
// A transaction is single-stepped from its XBEGIN to its end, so that an
// abort can roll back what it did: the registers are those after the
// outermost XBEGIN (RIP aside), and memory is restored from a journal of
// the bytes that each instruction of the transaction may overwrite, saved
// before it runs: 64 bytes at each explicit memory operand (4 KiB for the
// XSAVE family), the 64 bytes below RSP (pushes, calls) and 64 bytes
// either side of RDI (string stores). Writes outside these (by other
// threads, or by the kernel) are not rolled back.

// maxRTMNest is the CPU's nesting limit (MAX_RTM_NEST_COUNT): an XBEGIN
// past it aborts.
const maxRTMNest = 7

// RTM abort status bits (EAX after an abort).
const (
	txAbortXABORT = 1 << 0 // abort by XABORT; bits 31:24 hold its operand
	txAbortNested = 1 << 5 // abort inside a nested transaction
)

// txState is a thread's transaction in flight.
type txState struct {
	depth    int
	fallback uint64          // the outermost XBEGIN's abort address
	regs     unix.PtraceRegs // registers after the outermost XBEGIN
	journal  []saved         // memory before each write, in order
}

type saved struct {
	addr uint64
	b    []byte
}

// stepping says whether th is single-stepped (Step mode, one of fast mode's
// stepped stretches, or a transaction).
func (t *tracer) stepping(th *thread) bool {
	return t.opt.Mode == Step || th.stepLeft > 0 || th.tx != nil
}

// special performs one of the instructions this CPU lacks on th's registers
// and memory (RIP at in.ip), retires it and emits its event; it returns
// where the thread goes on.
func (t *tracer) special(th *thread, in *insn) (uint64, error) {
	r := &th.regs
	next := in.next()
	switch in.class {
	case clPTW:
		v, err := t.ptwOperand(th, in)
		if err != nil {
			return 0, err
		}
		t.retire(th, in.ip)
		t.emit(th, flow.Event{Kind: flow.PTWrite, From: in.ip, To: next, Len: in.len, Back: v, Taken: in.inst.DataSize == 64})
	case clXBegin:
		if th.tx != nil {
			if th.tx.depth == maxRTMNest {
				return t.txAbort(th, in.ip, txAbortNested), nil
			}
			th.tx.depth++
			t.retire(th, in.ip)
			break
		}
		th.tx = &txState{depth: 1, fallback: in.target, regs: *r}
		th.tx.regs.Rip = next
		th.blk = nil
		t.retire(th, in.ip)
		t.emit(th, flow.Event{Kind: flow.TxBegin, From: in.ip, To: next, Len: in.len})
	case clXEnd:
		if th.tx == nil {
			return 0, &faultError{unix.SIGSEGV, "XEND outside a transaction (#GP)"}
		}
		t.retire(th, in.ip)
		if th.tx.depth--; th.tx.depth == 0 {
			th.tx = nil
			t.emit(th, flow.Event{Kind: flow.TxCommit, From: in.ip, To: next, Len: in.len})
		}
	case clXAbort:
		if th.tx == nil { // a NOP outside transactions
			t.retire(th, in.ip)
			break
		}
		imm, _ := in.inst.Args[0].(x86asm.Imm)
		status := uint32(imm&0xff)<<24 | txAbortXABORT
		if th.tx.depth > 1 {
			status |= txAbortNested
		}
		return t.txAbort(th, in.ip, status), nil
	case clXTest:
		r.Eflags &^= flagCF | flagPF | 1<<4 | flagZF | flagSF | flagOF
		if th.tx == nil {
			r.Eflags |= flagZF
		}
		t.retire(th, in.ip)
	case clCPUID:
		c := emulatedCPUID(uint32(r.Rax), uint32(r.Rcx))
		r.Rax, r.Rbx, r.Rcx, r.Rdx = uint64(c.EAX), uint64(c.EBX), uint64(c.ECX), uint64(c.EDX)
		t.retire(th, in.ip)
	default:
		return 0, fmt.Errorf("cannot perform %v at %#x", in.inst, in.ip)
	}
	return next, nil
}

// cpuid answers CPUID as the CPU the tracer plays (Options.CPUID).
func emulatedCPUID(leaf, sub uint32) cpuid.Regs {
	c, _ := cpuid.Native(leaf, sub)
	switch {
	case leaf == 0:
		c.EAX = max(c.EAX, 0x14) // leaf 0x14 exists
	case leaf == 7 && sub == 0:
		c.EBX |= 1<<11 | 1<<25 // RTM, Intel PT
	case leaf == 0x14 && sub == 0:
		c.EBX |= 1 << 4 // PTWRITE
	}
	return c
}

// ptwOperand reads PTWRITE's 32- or 64-bit operand.
func (t *tracer) ptwOperand(th *thread, in *insn) (uint64, error) {
	m, ok := in.inst.Args[0].(x86asm.Mem)
	if !ok {
		return t.operand(th, in, in.inst.Args[0])
	}
	ea, err := t.ea(th, in, m)
	if err != nil {
		return 0, err
	}
	var b [8]byte
	if !th.as.accessible(ea, in.inst.DataSize/8, false) {
		return 0, &faultError{unix.SIGSEGV, fmt.Sprintf("PTWRITE reads %#x (#PF)", ea)}
	}
	if _, err := th.as.mem.ReadAt(b[:in.inst.DataSize/8], int64(ea)); err != nil {
		return 0, fmt.Errorf("PTWRITE at %#x: read %#x: %w", in.ip, ea, err)
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// faultError says that an instruction the tracer performs raises an
// exception instead of retiring.
type faultError struct {
	sig unix.Signal
	why string
}

func (e *faultError) Error() string { return e.why }

// fault makes in raise f as the CPU would: inside a transaction the
// exception aborts it and is not reported; otherwise th gets f's signal
// before in (a handler runs, or the thread dies).
func (t *tracer) fault(th *thread, in *insn, f *faultError) error {
	th.regs.Rip = in.ip
	ip, sig := in.ip, int(f.sig)
	if th.tx != nil {
		ip, sig = t.txAbort(th, in.ip, 0), 0
	}
	if err := unix.PtraceSetRegs(th.tid, &th.regs); err != nil {
		return fmt.Errorf("set registers: %w", err)
	}
	th.pend.ip = ip
	return t.resume(th, ip, sig)
}

// txSignal handles signal sig (si_code code) that stopped th inside a
// transaction, which it aborts at the current instruction: an exception
// the instruction raised (a fault, si_code > 0) is suppressed, as RTM
// does; any other signal is delivered after the abort, at the fallback
// address. It returns where th goes on and the signal to deliver.
func (t *tracer) txSignal(th *thread, sig int, code int32) (uint64, int, error) {
	to := t.txAbort(th, th.regs.Rip, 0)
	if err := unix.PtraceSetRegs(th.tid, &th.regs); err != nil {
		return 0, 0, fmt.Errorf("set registers: %w", err)
	}
	if code > 0 {
		sig = 0
	}
	return to, sig, nil
}

// txAbort aborts th's transaction at ip (which does not retire): memory and
// registers go back to the outermost XBEGIN's, EAX takes status, and the
// thread goes on at the fallback address, which it returns.
func (t *tracer) txAbort(th *thread, ip uint64, status uint32) uint64 {
	tx := th.tx
	for i := len(tx.journal) - 1; i >= 0; i-- {
		s := tx.journal[i]
		th.as.mem.WriteAt(s.b, int64(s.addr))
	}
	th.regs = tx.regs
	th.regs.Rax = uint64(status)
	th.regs.Rip = tx.fallback
	th.tx = nil
	t.emit(th, flow.Event{Kind: flow.TxAbort, From: ip, To: tx.fallback})
	return tx.fallback
}

// txJournal saves the memory that in may write, before it runs inside th's
// transaction.
func (t *tracer) txJournal(th *thread, in *insn) {
	n := uint64(64)
	switch in.inst.Op {
	case x86asm.FXSAVE, x86asm.FXSAVE64, x86asm.XSAVE, x86asm.XSAVE64, x86asm.XSAVEOPT, x86asm.XSAVEOPT64:
		n = 4096
	}
	for _, a := range in.inst.Args {
		if m, ok := a.(x86asm.Mem); ok {
			if ea, err := t.ea(th, in, m); err == nil {
				t.txSave(th, ea, n)
			}
		}
	}
	t.txSave(th, th.regs.Rsp-64, 64)
	if isString(in.inst.Op) {
		t.txSave(th, th.regs.Rdi-64, 128)
	}
}

// txSave journals the readable bytes of [addr, addr+n).
func (t *tracer) txSave(th *thread, addr, n uint64) {
	for n > 0 {
		k := min(n, pageSize-addr&(pageSize-1))
		b := make([]byte, k)
		if _, err := th.as.mem.ReadAt(b, int64(addr)); err == nil {
			th.tx.journal = append(th.tx.journal, saved{addr, b})
		}
		addr, n = addr+k, n-k
	}
}

// inTracer says whether the step path performs in itself rather than
// single-stepping it: the instructions this CPU lacks, and inside a
// transaction its branches (fast mode may have planted breakpoints on them)
// and the instructions that abort it.
func (t *tracer) inTracer(th *thread, in *insn) bool {
	if in.class.special() {
		return true
	}
	return th.tx != nil && (in.class.emulated() || in.class == clSyscall || in.class == clOther)
}

// runHere performs in (at th's RIP) in the tracer instead of stepping it,
// then resumes th.
func (t *tracer) runHere(th *thread, in *insn) error {
	th.regs.Rip = in.ip
	th.pend, th.pendOK = *in, false
	var to uint64
	if th.tx != nil && (in.class == clSyscall || in.class == clOther) {
		to = t.txAbort(th, in.ip, 0)
	} else {
		if th.tx != nil {
			t.txJournal(th, in)
		}
		var err error
		to, err = t.emulate(th, in)
		if f, ok := err.(*faultError); ok {
			return t.fault(th, in, f)
		}
		if err != nil {
			return err
		}
		if err := t.complete(th, in, to, 0); err != nil {
			return err
		}
	}
	if th.stepLeft > 0 {
		th.stepLeft--
		if in.class.stops() {
			th.stepLeft = 0
		}
	}
	th.regs.Rip = to
	if err := unix.PtraceSetRegs(th.tid, &th.regs); err != nil {
		return fmt.Errorf("set registers: %w", err)
	}
	return t.resume(th, to, 0)
}
