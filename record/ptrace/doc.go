// Package ptrace runs a command under ptrace and observes the exact
// user-space control flow of every thread it creates (threads, fork, vfork
// and exec followed; signals delivered and their handlers traced; syscalls
// the kernel restarts after a signal), as a flow.Trace.
//
// Two modes give the same flow. Step single-steps every instruction (about
// 33k instructions/s; a REP string instruction traps per iteration and is
// counted once). Fast (the default) decodes the code from the process's
// memory with x86asm into blocks that end at the first conditional,
// indirect, return or syscall instruction (direct jumps and calls are
// followed), plants an INT3 on each such branch, lets the thread run to it,
// then emulates the branch (flags, registers, memory operands) to learn and
// apply its outcome. After a branch it goes on executing the following
// blocks in the tracer itself while they hold only simple integer
// instructions (see interp.go), which saves most stops. Syscalls are seen
// with PTRACE_SYSCALL stops; rare instructions (INT, UD2, far transfers) and
// over-long blocks are single-stepped. On mix-dyn-O2 (115k instructions)
// fast mode runs about 20x faster than single-stepping.
//
// PTWRITE and RTM (XBEGIN, XEND, XABORT, XTEST), which this machine's CPU
// lacks (#UD), are performed by the tracer as on a CPU that has them, in
// both modes (special.go): PTWRITE's operand becomes a flow.PTWrite event;
// transactions never abort on their own, only on XABORT or an instruction
// that always aborts (SYSCALL, INT, ...), and are single-stepped so that an
// abort can restore the registers of the outermost XBEGIN and the memory
// the transaction wrote (a journal of each instruction's possible
// destinations), set EAX to the abort status and go on at the fallback
// address (flow.TxBegin, TxCommit, TxAbort). Signals inside a transaction
// abort it (faults it raised are suppressed, as RTM does); XEND outside one
// and PTWRITE of an unreadable operand raise SIGSEGV. With Options.CPUID,
// CPUID also reports RTM, Intel PT and PTWRITE, so that programs that check
// take those paths.
//
// Address-space layout randomisation is turned off for the command unless
// Options.KeepASLR is set, so two runs give the same addresses. The child is
// killed if the tracer dies (PTRACE_O_EXITKILL) or the context is
// cancelled; it is never left stopped.
//
// Not handled: a non-leader thread calling execve, programs that trace
// themselves or use INT3, code written at run time (the block cache is only
// dropped when mappings change), job-control stops (not forwarded), and,
// in transactions, aborts by signals, conflicts or capacity, and memory
// written by other threads or the kernel (not rolled back).
package ptrace
