package flow

import (
	"cmp"
	"fmt"
)

// Kind says what an Event is.
type Kind uint8

// Event kinds. From is the address of the instruction concerned; To where
// the thread continued.
const (
	// Begin: the thread starts (or restarts) executing user code at To.
	Begin Kind = iota
	// Cond: a conditional branch (Jcc, LOOPcc, JrCXZ) at From; Taken says
	// which way it went; To is the next instruction executed.
	Cond
	// Jump: a direct unconditional jump From -> To (no packet).
	Jump
	// Call: a direct near call From -> To; the return address is From+Len.
	Call
	// IndJump: an indirect near jump From -> To.
	IndJump
	// IndCall: an indirect near call From -> To; returns to From+Len.
	IndCall
	// Ret: a near return From -> To.
	Ret
	// Syscall: a SYSCALL (or other user-to-kernel transfer) at From that
	// returned to user space at To (the next instruction, a signal handler,
	// the interrupted IP after rt_sigreturn, or a new image after execve).
	// To is 0 when the thread never came back (exit).
	Syscall
	// Async: an asynchronous event (signal delivery after a fault or from
	// outside) interrupted the thread before it executed From; it resumed
	// at To (a signal handler).
	Async
	// End: the thread's trace ends; nothing more is executed.
	End
	// PTWrite: a PTWRITE at From (retired) wrote Back as its payload; Taken
	// says the operand was 64-bit (else 32-bit). To is From+Len.
	PTWrite
	// TxBegin: an outermost XBEGIN at From (retired) started an RTM
	// transaction; To is From+Len. Nested XBEGINs are plain instructions.
	TxBegin
	// TxCommit: the outermost XEND at From (retired) committed the
	// transaction; To is From+Len.
	TxCommit
	// TxAbort: the transaction aborted at From, which did not retire (an
	// XABORT, or an instruction that aborts transactions, such as SYSCALL);
	// the thread continued at the fallback address To with the
	// architectural state of its XBEGIN.
	TxAbort
	// Interrupt: an asynchronous transfer (interrupt, exception) with
	// tracing on, before the instruction at From executed, to To: FUP
	// From, TIP To (kernel+user traces; user-only traces use Async).
	Interrupt
	// MovCR3: the kernel switched the CPU to the address space of process
	// Back (a MOV to CR3 in a context switch, kernel+user system-wide
	// traces): no instruction retires with it (Insns 0), and it is no
	// branch; a trace with PIP on says it in a PIP packet.
	MovCR3
)

var kindNames = [...]string{"begin", "cond", "jump", "call", "indjump", "indcall", "ret", "syscall", "async", "end",
	"ptwrite", "txbegin", "txcommit", "txabort", "interrupt", "movcr3"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// KernelTicks is the time the virtual clock gives to each stay in the
// kernel (syscall, signal delivery); sideband records from a syscall are
// stamped half-way through it.
const KernelTicks = 16

// Event is one step of a thread's flow. Insns counts the instructions the
// thread retired since the previous event, including the one at From when it
// retired (every kind but Begin, Async, End and TxAbort). Time is the virtual clock at
// the event (see Trace.Clock).
type Event struct {
	From, To uint64
	Insns    uint64
	Time     uint64
	// Back is, for Syscall and Async, the clock when the thread came back
	// to user space at To (time spent in the kernel); for PTWrite, the
	// payload.
	Back  uint64
	Kind  Kind
	Taken bool
	Len   uint8 // length of the instruction at From (0 for Begin/Async/End)
}

func (e Event) String() string {
	s := fmt.Sprintf("%s %#x->%#x n=%d", e.Kind, e.From, e.To, e.Insns)
	switch e.Kind {
	case Cond:
		if e.Taken {
			s += " T"
		} else {
			s += " N"
		}
	case PTWrite:
		s += fmt.Sprintf(" payload=%#x", e.Back)
	}
	return s
}

// Thread is one thread's flow.
type Thread struct {
	Pid, Tid int
	Events   []Event
}

// Insns returns the number of instructions the thread retired.
func (t *Thread) Insns() uint64 {
	var n uint64
	for _, e := range t.Events {
		n += e.Insns
	}
	return n
}

// RunOrder compares two events of a machine's threads in the order a CPU
// runs them: by time t, then thread index th, then position seq within
// the thread. It is the sort order of the synthesisers' event lists
// (record/synth's per-CPU stream, record/ksynth's system walk).
func RunOrder(t1 uint64, th1, seq1 int, t2 uint64, th2, seq2 int) int {
	return cmp.Or(cmp.Compare(t1, t2), cmp.Compare(th1, th2), cmp.Compare(seq1, seq2))
}

// SideKind says what a Side record is.
type SideKind uint8

// Sideband kinds, mirroring the perf records they become.
const (
	Mmap SideKind = iota // a new executable mapping (PERF_RECORD_MMAP2)
	Comm                 // a thread's name (PERF_RECORD_COMM; Exec after execve)
	Fork                 // a new process or thread (PERF_RECORD_FORK)
	Exit                 // a thread ended (PERF_RECORD_EXIT)
)

// Side is a sideband record: something perf learns from the kernel rather
// than from the trace.
type Side struct {
	Kind       SideKind
	Time       uint64
	Pid, Tid   int
	PPid, PTid int // Fork, Exit: the parent

	// Mmap.
	Addr, Len, Pgoff uint64
	Prot, Flags      uint32
	Maj, Min         uint32
	Ino, InoGen      uint64
	Name             string // Mmap: file name; Comm: the command name
	Exec             bool   // Comm: set by execve
}

// Trace is a whole recording.
type Trace struct {
	Threads []*Thread
	Side    []Side
	// Vdso is a copy of the [vdso] image of the traced processes (empty when
	// none was mapped), VdsoAddr where it was mapped.
	Vdso     []byte
	VdsoAddr uint64
	// Clock is the virtual clock: it advances by one per instruction retired
	// by any thread, in the order the tracer observed them, and starts at
	// ClockStart. Event and Side times are on it.
	ClockStart uint64
	Clock      uint64
}

// Thread returns the thread with the given tid, or nil.
func (tr *Trace) Thread(tid int) *Thread {
	for _, t := range tr.Threads {
		if t.Tid == tid {
			return t
		}
	}
	return nil
}
