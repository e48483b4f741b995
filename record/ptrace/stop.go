package ptrace

import (
	"encoding/binary"
	"fmt"

	"github.com/perfpt/perfpt/record/flow"
	"golang.org/x/sys/unix"
)

const traceOptions = unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK |
	unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_TRACESYSGOOD | unix.PTRACE_O_EXITKILL

// stopped handles one ptrace stop of th.
func (t *tracer) stopped(th *thread, ws unix.WaitStatus) error {
	sig := ws.StopSignal()
	if err := unix.PtraceGetRegs(th.tid, &th.regs); err != nil {
		return fmt.Errorf("get registers: %w", err)
	}
	rip := th.regs.Rip
	if ev := ws.TrapCause(); sig == unix.SIGTRAP && ev > 0 {
		return t.event(th, ev)
	}
	if th.isRoot && !th.started {
		// The stop after the first execve.
		if err := unix.PtraceSetOptions(th.tid, traceOptions); err != nil {
			return fmt.Errorf("set ptrace options: %w", err)
		}
		as, err := newAddrSpace(th.pid)
		if err != nil {
			return err
		}
		as.cpuid = t.opt.CPUID
		th.as = as
		t.side(flow.Side{Kind: flow.Comm, Pid: th.pid, Tid: th.tid, Name: comm(th.tid), Exec: true}, t.clock)
		if err := t.refreshMaps(th, t.clock); err != nil {
			return err
		}
		t.clock += flow.KernelTicks
		return t.begin(th, rip)
	}
	if !th.started {
		if th.as == nil {
			th.waiting = true // wait for the parent's event
			return nil
		}
		return t.begin(th, rip)
	}
	switch {
	case sig == unix.SIGTRAP|0x80:
		return t.syscallStop(th)
	case sig == unix.SIGTRAP && th.handler:
		th.handler = false
		t.async(th, th.pend.ip, rip)
		if t.opt.Mode == Step {
			th.stepLeft = 0
		}
		return t.resume(th, rip, 0)
	case sig == unix.SIGTRAP && th.execd:
		th.execd = false
		t.retire(th, th.pend.ip)
		t.kernel(th, flow.Event{Kind: flow.Syscall, From: th.pend.ip, To: rip, Len: th.pend.len})
		return t.resume(th, rip, 0)
	case sig == unix.SIGTRAP && t.stepping(th):
		return t.stepped(th, rip)
	case sig == unix.SIGTRAP && th.blk != nil && rip-1 == th.blk.last().ip:
		return t.breakpoint(th)
	}
	return t.signal(th, int(sig))
}

// begin starts a thread's flow at ip.
func (t *tracer) begin(th *thread, ip uint64) error {
	th.started = true
	th.waiting = false
	t.emit(th, flow.Event{Kind: flow.Begin, To: ip})
	return t.resume(th, ip, 0)
}

// resume lets th run from ip (its current RIP), delivering sig.
func (t *tracer) resume(th *thread, ip uint64, sig int) error {
	if sig != 0 && caught(th.tid, sig) {
		// Stepping into a handler stops at its first instruction.
		th.handler = true
		th.pend.ip = ip
		th.restart = 0
		return singleStep(th.tid, sig)
	}
	if sig != 0 && th.restart != 0 && ip == th.restart+2 {
		// An interrupted syscall that the kernel will restart (no handler
		// runs): its next entry stop tells.
		return syscallCont(th.tid, sig)
	}
	if t.fast(th) {
		blk, err := th.as.block(ip)
		if err != nil {
			return err
		}
		th.blk = blk
		switch last := blk.last(); {
		case last.class.emulated():
			if err := th.as.plant(last.ip); err != nil {
				return err
			}
		case last.class == clSyscall:
		default:
			// Rare instructions and over-long blocks are single-stepped.
			th.stepLeft = len(blk.insns)
			th.blk = nil
		}
		if th.stepLeft == 0 {
			return syscallCont(th.tid, sig)
		}
	}
	in, err := th.as.insn(ip)
	if err != nil {
		return err
	}
	if sig == 0 && t.inTracer(th, &in) {
		return t.runHere(th, &in)
	}
	if th.tx != nil {
		t.txJournal(th, &in)
	}
	th.pend, th.pendOK, th.pendNr = in, true, th.regs.Rax
	return singleStep(th.tid, sig)
}

// restarting says whether a syscall's return value asks the kernel to
// restart it (ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND,
// ERESTART_RESTARTBLOCK).
func restarting(rax uint64) bool {
	v := int64(rax)
	return v == -512 || v == -513 || v == -514 || v == -516
}

// async records that th was interrupted before from and resumed at to.
func (t *tracer) async(th *thread, from, to uint64) {
	evs := th.ft.Events
	if n := len(evs); n > 0 && th.insns == 0 && evs[n-1].Kind == flow.Syscall && evs[n-1].To == from {
		// Delivered on the way back from a syscall: the syscall returns
		// straight into the handler, as the hardware sees it.
		evs[n-1].To = to
		return
	}
	t.kernel(th, flow.Event{Kind: flow.Async, From: from, To: to})
}

// stepped handles the end of a single step of th.pend.
func (t *tracer) stepped(th *thread, rip uint64) error {
	in := th.pend
	if rip == in.ip && in.rep {
		if th.tx != nil {
			t.txJournal(th, &in)
		}
		return singleStep(th.tid, 0) // another iteration of the same instruction
	}
	if err := t.complete(th, &in, rip, th.pendNr); err != nil {
		return err
	}
	if th.stepLeft > 0 {
		th.stepLeft--
		if in.class.stops() {
			th.stepLeft = 0
		}
	}
	return t.resume(th, rip, 0)
}

// complete retires in, which went on to rip, and emits its event.
func (t *tracer) complete(th *thread, in *insn, rip, nr uint64) error {
	if in.class.special() {
		return nil // special retired it and emitted its event
	}
	t.retire(th, in.ip)
	switch in.class {
	case clPlain, clUnknown:
		return nil
	case clCond:
		t.emit(th, flow.Event{Kind: flow.Cond, From: in.ip, To: rip, Len: in.len, Taken: rip != in.next() || (in.target == in.next() && condTaken(in, &th.regs))})
	case clSyscall, clOther:
		at := t.kernel(th, flow.Event{Kind: flow.Syscall, From: in.ip, To: rip, Len: in.len})
		th.restart = 0
		if in.class == clSyscall && restarting(th.regs.Rax) {
			th.restart = in.ip
		}
		if in.class == clSyscall && mapsSyscall(nr) {
			return t.refreshMaps(th, at)
		}
	default:
		t.emit(th, flow.Event{Kind: in.class.kind(), From: in.ip, To: rip, Len: in.len})
	}
	return nil
}

// signal delivers sig, which stopped th at its current RIP.
func (t *tracer) signal(th *thread, sig int) error {
	rip := th.regs.Rip
	var si [128]byte
	if err := ptraceReq(unix.PTRACE_GETSIGINFO, th.tid, 0, uintptrOf(&si)); err != nil {
		// A group stop: carry on without stopping the group.
		return t.cont(th)
	}
	t.stats.Signals++
	if t.fast(th) && th.blk != nil {
		if err := t.retireBlock(th, rip, false); err != nil {
			return err
		}
	}
	if th.tx != nil {
		var err error
		if rip, sig, err = t.txSignal(th, sig, int32(binary.LittleEndian.Uint32(si[8:]))); err != nil {
			return err
		}
	}
	th.pend.ip = rip
	if sig == int(unix.SIGTRAP) {
		sig = 0 // our own trap that nobody handles; never forward it
	}
	return t.resume(th, rip, sig)
}

// cont resumes th the way it was running.
func (t *tracer) cont(th *thread) error {
	if t.stepping(th) {
		return singleStep(th.tid, 0)
	}
	return syscallCont(th.tid, 0)
}

// event handles a PTRACE_EVENT stop.
func (t *tracer) event(th *thread, ev int) error {
	switch ev {
	case unix.PTRACE_EVENT_CLONE, unix.PTRACE_EVENT_FORK, unix.PTRACE_EVENT_VFORK:
		msg, err := unix.PtraceGetEventMsg(th.tid)
		if err != nil {
			return err
		}
		ctid := int(msg)
		t.addPid(ctid)
		c := t.threads[ctid]
		if c == nil {
			c = t.newThread(tgid(ctid), ctid)
		}
		c.ppid, c.ptid = th.pid, th.tid
		if c.pid == th.pid || ev == unix.PTRACE_EVENT_VFORK {
			c.as = th.as
		} else {
			as, err := th.as.fork(c.pid)
			if err != nil {
				return err
			}
			c.as = as
		}
		at := t.clock + 1 + flow.KernelTicks/2 // during the parent's syscall
		t.side(flow.Side{Kind: flow.Fork, Pid: c.pid, Tid: c.tid, PPid: th.pid, PTid: th.tid}, at)
		c.notBefore = at + 1
		if c.waiting {
			if err := unix.PtraceGetRegs(c.tid, &c.regs); err != nil {
				return err
			}
			if err := t.begin(c, c.regs.Rip); err != nil {
				return err
			}
		}
	case unix.PTRACE_EVENT_EXEC:
		as, err := newAddrSpace(th.pid)
		if err != nil {
			return err
		}
		as.cpuid = t.opt.CPUID
		t.closeLater = append(t.closeLater, th.as)
		th.as = as
		th.blk = nil
		at := t.clock + 1 + flow.KernelTicks/2 // during execve
		t.side(flow.Side{Kind: flow.Comm, Pid: th.pid, Tid: th.tid, Name: comm(th.tid), Exec: true}, at)
		if err := t.refreshMaps(th, at); err != nil {
			return err
		}
		if !th.inSys {
			th.execd = true
		}
	}
	return t.cont(th)
}

// syscallStop handles a fast-mode syscall entry or exit stop.
func (t *tracer) syscallStop(th *thread) error {
	rip := th.regs.Rip
	if !th.inSys && th.restart != 0 && rip == th.restart+2 {
		// The kernel restarted the interrupted syscall: user space was
		// given back the syscall instruction itself, which ran again.
		evs := th.ft.Events
		if n := len(evs); n > 0 && th.insns == 0 && evs[n-1].Kind == flow.Syscall && evs[n-1].From == th.restart {
			evs[n-1].To = th.restart
		}
		th.inSys, th.sysIP, th.sysNr = true, th.restart, th.regs.Orig_rax
		th.restart, th.blk = 0, nil
		return syscallCont(th.tid, 0)
	}
	if !th.inSys {
		if th.blk == nil || th.blk.last().class != clSyscall || th.blk.last().next() != rip {
			return fmt.Errorf("unexpected syscall entry at %#x", rip)
		}
		last := th.blk.last()
		if err := t.retireBlock(th, last.ip, false); err != nil {
			return err
		}
		th.inSys, th.sysIP, th.sysNr = true, last.ip, th.regs.Orig_rax
		th.blk = nil
		return syscallCont(th.tid, 0)
	}
	th.inSys = false
	t.retire(th, th.sysIP)
	at := t.kernel(th, flow.Event{Kind: flow.Syscall, From: th.sysIP, To: rip, Len: 2})
	th.restart = 0
	if restarting(th.regs.Rax) {
		th.restart = th.sysIP
	}
	if mapsSyscall(th.sysNr) {
		if err := t.refreshMaps(th, at); err != nil {
			return err
		}
	}
	return t.resume(th, rip, 0)
}

// breakpoint handles a fast-mode stop at the INT3 on the branch ending th's
// block: it retires the block, emulates the branch and goes on.
func (t *tracer) breakpoint(th *thread) error {
	last := th.blk.last()
	if err := t.retireBlock(th, last.ip, false); err != nil {
		return err
	}
	th.regs.Rip = last.ip
	to, err := t.emulate(th, &last)
	if f, ok := err.(*faultError); ok {
		return t.fault(th, &last, f)
	}
	if err != nil {
		return err
	}
	if err := t.complete(th, &last, to, 0); err != nil {
		return err
	}
	if t.opt.Mode == Fast && !t.opt.NoInterp && th.tx == nil {
		to = t.interpret(th, to)
	}
	th.regs.Rip = to
	if err := unix.PtraceSetRegs(th.tid, &th.regs); err != nil {
		return fmt.Errorf("set registers: %w", err)
	}
	return t.resume(th, to, 0)
}

// retireBlock retires th's block up to the instruction at ip (included when
// incl), emitting its direct jumps and calls.
func (t *tracer) retireBlock(th *thread, ip uint64, incl bool) error {
	for i := range th.blk.insns {
		in := &th.blk.insns[i]
		if in.ip == ip && !incl {
			return nil
		}
		t.retire(th, in.ip)
		switch in.class {
		case clJump:
			t.emit(th, flow.Event{Kind: flow.Jump, From: in.ip, To: in.target, Len: in.len})
		case clCall:
			t.emit(th, flow.Event{Kind: flow.Call, From: in.ip, To: in.target, Len: in.len})
		}
		if in.ip == ip {
			return nil
		}
	}
	return fmt.Errorf("thread left its block (at %#x, block at %#x)", ip, th.blk.insns[0].ip)
}
