package ptrace

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/perfpt/perfpt/record/flow"
	"golang.org/x/sys/unix"
)

// Mode selects how the tracer observes the flow.
type Mode int

const (
	// Fast stops only at conditional, indirect, return and syscall
	// instructions and computes their outcome (the default).
	Fast Mode = iota
	// Step single-steps every instruction.
	Step
)

func (m Mode) String() string {
	if m == Step {
		return "step"
	}
	return "fast"
}

// Options configure Run. The zero value traces in Fast mode with the
// environment, working directory and standard streams of the caller.
type Options struct {
	Mode   Mode
	Env    []string // nil: os.Environ()
	Dir    string
	Stdin  *os.File // nil: os.Stdin
	Stdout *os.File // nil: os.Stdout
	Stderr *os.File // nil: os.Stderr
	// KeepASLR leaves address-space layout randomisation on.
	KeepASLR bool
	// Pin runs the tracer and the command on one CPU (faster stepping).
	Pin bool
	// OnInsn, if set, is called with every retired instruction, in order
	// for each thread.
	OnInsn func(tid int, ip uint64)
	// MaxInsns stops the command (SIGKILL) after this many instructions
	// (0: no limit).
	MaxInsns uint64
	// ClockStart is the virtual clock's first value (see flow.Trace).
	ClockStart uint64
	// NoInterp turns off fast mode's interpreter of simple blocks.
	NoInterp bool
	// CPUID makes CPUID describe the CPU the tracer plays: the host's
	// answers, plus RTM and Intel PT (leaf 7 EBX bits 11 and 25) and
	// PTWRITE (leaf 0x14 EBX bit 4). Off, CPUID runs natively and reports
	// the host, which may lack them (programs that check will not use them;
	// glibc picks other string functions when RTM is reported).
	CPUID bool
}

// Stats count what the tracer did.
type Stats struct {
	Insns       uint64 // instructions retired
	Stops       uint64 // ptrace stops handled
	Breakpoints uint64 // breakpoints planted
	Signals     uint64 // signals delivered
	Interpreted uint64 // blocks the tracer ran itself (fast mode)
	Elapsed     time.Duration
}

// Result is the outcome of Run.
type Result struct {
	Trace *flow.Trace
	// Exit is the command's exit status; when Signal is non-zero it was
	// killed by that signal.
	Exit   int
	Signal syscall.Signal
	Stats  Stats
}

// ErrNotX86_64 is returned for a program that is an ELF file for another
// machine.
var ErrNotX86_64 = errors.New("not an x86-64 program")

// Run runs argv under ptrace until every traced process has exited and
// returns the observed flow. When ctx is cancelled, the command is killed
// and the flow so far is returned with ctx's error. The returned Result is
// non-nil whenever the command started, even with an error.
func Run(ctx context.Context, argv []string, opt Options) (*Result, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command to run")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("cannot run %s: %w", argv[0], unwrapExec(err))
	}
	if f, err := elf.Open(path); err == nil {
		m := f.Machine
		f.Close()
		if m != elf.EM_X86_64 {
			return nil, fmt.Errorf("%s: %w (ELF machine %v)", path, ErrNotX86_64, m)
		}
	}
	t := &tracer{opt: opt, threads: map[int]*thread{}, pids: map[int]bool{},
		tr: &flow.Trace{ClockStart: opt.ClockStart, Clock: opt.ClockStart}}
	t.clock = opt.ClockStart
	type out struct {
		res *Result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		// The thread that traces must be the one that forked; it is never
		// unlocked, so it exits with this goroutine and takes its personality
		// and affinity changes with it.
		runtime.LockOSThread()
		res, err := t.run(path, argv)
		ch <- out{res, err}
	}()
	select {
	case o := <-ch:
		return o.res, o.err
	case <-ctx.Done():
		t.killAll()
		o := <-ch
		return o.res, ctx.Err()
	}
}

func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		err = ee.Err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

type tracer struct {
	opt     Options
	tr      *flow.Trace
	threads map[int]*thread
	live    int
	root    int
	clock   uint64
	stats   Stats
	res     Result

	mu     sync.Mutex
	pids   map[int]bool
	killed bool

	err        error // first internal error: the command is killed
	closeLater []*addrSpace
}

func (t *tracer) killAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.killed = true
	for pid := range t.pids {
		unix.Kill(pid, unix.SIGKILL)
	}
}

func (t *tracer) isKilled() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.killed
}

func (t *tracer) addPid(pid int) {
	t.mu.Lock()
	t.pids[pid] = true
	killed := t.killed
	t.mu.Unlock()
	if killed {
		unix.Kill(pid, unix.SIGKILL)
	}
}

// fail records an internal error and kills the command.
func (t *tracer) fail(err error) {
	if t.err == nil {
		t.err = err
	}
	t.killAll()
}

func (t *tracer) run(path string, argv []string) (*Result, error) {
	start := time.Now()
	if t.opt.Pin {
		var set unix.CPUSet
		set.Set(0)
		if err := unix.SchedGetaffinity(0, &set); err == nil {
			for c := 0; c < 1024; c++ {
				if set.IsSet(c) {
					set.Zero()
					set.Set(c)
					unix.SchedSetaffinity(0, &set)
					break
				}
			}
		}
	}
	if !t.opt.KeepASLR {
		const addrNoRandomize = 0x0040000
		old, _, _ := unix.RawSyscall(unix.SYS_PERSONALITY, 0xffffffff, 0, 0)
		unix.RawSyscall(unix.SYS_PERSONALITY, old|addrNoRandomize, 0, 0)
	}
	files := []uintptr{fd(t.opt.Stdin, os.Stdin), fd(t.opt.Stdout, os.Stdout), fd(t.opt.Stderr, os.Stderr)}
	env := t.opt.Env
	if env == nil {
		env = os.Environ()
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Dir: t.opt.Dir, Env: env, Files: files,
		Sys: &syscall.SysProcAttr{Ptrace: true, Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		return nil, fmt.Errorf("cannot run %s: %w", path, err)
	}
	t.root = pid
	t.addPid(pid)
	th := t.newThread(pid, pid)
	th.isRoot = true
	t.loop()
	t.stats.Elapsed = time.Since(start)
	t.tr.Clock = t.clock
	done := map[*addrSpace]bool{}
	for _, as := range t.closeLater {
		if !done[as] {
			done[as] = true
			as.close()
		}
	}
	res := t.res
	res.Trace = t.tr
	res.Stats = t.stats
	return &res, t.err
}

func fd(f, def *os.File) uintptr {
	if f == nil {
		f = def
	}
	return f.Fd()
}

// wNoThread (__WNOTHREAD) limits wait4 to the children and tracees of the
// calling thread, so that tracers on other threads of this process, and
// os/exec's children, are left alone.
const wNoThread = 0x20000000

func (t *tracer) loop() {
	for t.live > 0 {
		var ws unix.WaitStatus
		wpid, err := unix.Wait4(-1, &ws, unix.WALL|wNoThread, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if t.err == nil && err != unix.ECHILD {
				t.err = fmt.Errorf("wait: %w", err)
			}
			return
		}
		th := t.threads[wpid]
		if th == nil {
			// A new child whose first stop came before its parent's event.
			th = t.newThread(tgid(wpid), wpid)
		}
		t.stats.Stops++
		switch {
		case ws.Exited() || ws.Signaled():
			t.exited(th, ws)
		case ws.Stopped():
			if err := t.stopped(th, ws); err != nil && !t.isKilled() {
				t.fail(fmt.Errorf("thread %d: %w", th.tid, err))
				// Let it go on so that it can die.
				unix.PtraceCont(th.tid, 0)
			}
		}
		if t.opt.MaxInsns > 0 && t.stats.Insns >= t.opt.MaxInsns && !t.killed {
			t.fail(fmt.Errorf("stopped after %d instructions (limit)", t.stats.Insns))
		}
	}
}

// thread is the tracer's state for one traced thread.
type thread struct {
	pid, tid  int
	as        *addrSpace
	ft        *flow.Thread
	isRoot    bool
	started   bool
	waiting   bool // stopped before its parent's event told how to set it up
	ppid      int
	ptid      int
	insns     uint64 // retired since the last event
	notBefore uint64 // a new child begins after its fork record
	regs      unix.PtraceRegs

	// Step mode (and fast mode's stepped stretches).
	pend     insn
	pendOK   bool
	pendNr   uint64 // rax before a pending SYSCALL
	stepLeft int    // fast mode: instructions left to single-step
	execd    bool   // exec event seen; the next step stop is the new image's entry
	handler  bool   // a signal with a handler was injected; the next stop is its entry

	// restart is the address of a syscall interrupted by a signal that the
	// kernel may restart (0: none).
	restart uint64

	// tx is the RTM transaction in flight (nil: none); see special.go.
	tx *txState

	// Fast mode.
	blk   *block
	inSys bool
	sysIP uint64
	sysNr uint64
}

func (t *tracer) newThread(pid, tid int) *thread {
	th := &thread{pid: pid, tid: tid, ft: &flow.Thread{Pid: pid, Tid: tid}}
	t.threads[tid] = th
	t.tr.Threads = append(t.tr.Threads, th.ft)
	t.live++
	return th
}

func (t *tracer) fast(th *thread) bool { return !t.stepping(th) }

func (t *tracer) emit(th *thread, e flow.Event) {
	e.Insns = th.insns
	e.Time = max(t.clock, th.notBefore)
	th.insns = 0
	th.ft.Events = append(th.ft.Events, e)
}

func (t *tracer) retire(th *thread, ip uint64) {
	th.insns++
	t.stats.Insns++
	t.clock++
	if t.opt.OnInsn != nil {
		t.opt.OnInsn(th.tid, ip)
	}
}

// side records s at time at.
func (t *tracer) side(s flow.Side, at uint64) {
	s.Time = at
	t.tr.Side = append(t.tr.Side, s)
}

// kernel emits a syscall or signal event at the current time and lets the
// clock run for the stay in the kernel; it returns the time at which
// sideband from the syscall is stamped.
func (t *tracer) kernel(th *thread, e flow.Event) uint64 {
	t.emit(th, e)
	mid := t.clock + flow.KernelTicks/2
	t.clock += flow.KernelTicks
	th.ft.Events[len(th.ft.Events)-1].Back = t.clock
	return mid
}

// refreshMaps reports new executable mappings as sideband.
func (t *tracer) refreshMaps(th *thread, at uint64) error {
	fresh, err := th.as.refresh()
	if err != nil {
		return err
	}
	for _, m := range fresh {
		if m.name == "[vsyscall]" {
			continue
		}
		if m.name == "[vdso]" && t.tr.Vdso == nil {
			buf := make([]byte, m.end-m.start)
			if _, err := th.as.mem.ReadAt(buf, int64(m.start)); err == nil {
				for a, b := range th.as.bps {
					if a >= m.start && a < m.end {
						buf[a-m.start] = b
					}
				}
				t.tr.Vdso, t.tr.VdsoAddr = buf, m.start
			}
		}
		t.side(flow.Side{Kind: flow.Mmap, Pid: th.pid, Tid: th.tid, Addr: m.start, Len: m.end - m.start,
			Pgoff: m.pgoff, Prot: unix.PROT_READ | unix.PROT_EXEC, Flags: unix.MAP_PRIVATE,
			Maj: m.maj, Min: m.min, Ino: m.ino, Name: m.name}, at)
	}
	return nil
}

func (t *tracer) exited(th *thread, ws unix.WaitStatus) {
	if th.started && !th.waiting {
		switch {
		case th.inSys:
			t.retire(th, th.sysIP)
			t.kernel(th, flow.Event{Kind: flow.Syscall, From: th.sysIP, Len: 2})
		case t.stepping(th):
			if th.pendOK && th.pend.class == clSyscall && !th.handler {
				t.retire(th, th.pend.ip)
				t.kernel(th, flow.Event{Kind: flow.Syscall, From: th.pend.ip, Len: th.pend.len})
			} else {
				t.emit(th, flow.Event{Kind: flow.End, From: th.pend.ip})
			}
		default:
			var from uint64
			if th.blk != nil {
				from = th.blk.insns[0].ip
			}
			t.emit(th, flow.Event{Kind: flow.End, From: from})
		}
	}
	t.side(flow.Side{Kind: flow.Exit, Pid: th.pid, Tid: th.tid, PPid: th.ppid, PTid: th.ptid}, t.clock+flow.KernelTicks/2)
	if th.tid == t.root {
		if ws.Signaled() {
			t.res.Signal = ws.Signal()
			t.res.Exit = 128 + int(ws.Signal())
		} else {
			t.res.Exit = ws.ExitStatus()
		}
	}
	delete(t.threads, th.tid)
	t.live--
	t.mu.Lock()
	delete(t.pids, th.tid)
	t.mu.Unlock()
	if th.as != nil {
		t.closeLater = append(t.closeLater, th.as)
	}
}
