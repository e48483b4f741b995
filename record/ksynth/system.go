package ksynth

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/record/flow"
)

// Scheduler are the stand-in kernel's functions a system-wide recording
// walks to switch tasks (testdata/programs/kernel.S).
type Scheduler struct {
	Resched    uint64 // asm_sysvec_reschedule_ipi: the interrupt that preempts
	SchedOut   uint64 // __perf_event_task_sched_out: the switch-out record is written here
	SwitchTo   uint64 // __switch_to: where the stacks have been switched
	FinishTask uint64 // finish_task_switch: the switch-in record is written here
	RetFork    uint64 // ret_from_fork: where a new task starts
	DoIdle     uint64 // do_idle: the idle task's loop
}

func (k *Kernel) scheduler() (*Scheduler, error) {
	s := &Scheduler{}
	for _, f := range []struct {
		name string
		addr *uint64
	}{{"asm_sysvec_reschedule_ipi", &s.Resched}, {"__perf_event_task_sched_out", &s.SchedOut},
		{"__switch_to", &s.SwitchTo}, {"finish_task_switch", &s.FinishTask}, {"ret_from_fork", &s.RetFork},
		{"do_idle", &s.DoIdle}} {
		for _, sym := range k.Syms {
			if sym.Name == f.name {
				*f.addr = sym.Addr
			}
		}
		if *f.addr == 0 {
			return nil, fmt.Errorf("kernel: no %s for system-wide recordings", f.name)
		}
	}
	return s, nil
}

// SwitchRecord is a PERF_RECORD_SWITCH_CPU_WIDE of a system-wide
// recording: at Time on CPU, Task (an index into the threads, -1 for the
// idle task) is switched out (Out) or in, and Other is the task switched
// in or out with it.
type SwitchRecord struct {
	Time        uint64
	CPU         int
	Out         bool
	Task, Other int
}

// SystemOptions say how System schedules the threads.
type SystemOptions struct {
	CPUs int // virtual CPUs (at least 1)
	// Quantum ends a thread's turn after this many events even when no
	// other thread runs, so that a lone thread migrates too (0: only
	// when another thread runs).
	Quantum int
	Seed    uint32 // chooses the CPU of each turn
	// Start is the time the trace of every CPU starts, in the idle task.
	Start uint64
	// SwitchDelay is the time finish_task_switch takes after writing the
	// switch-in record: time enough for a timing packet, so that a
	// decoder reaches that record before the task's next __switch_to (a
	// turn lasts a microsecond at least on real machines; perf's
	// sync_switch stops decoding a CPU that meets the record after it).
	SwitchDelay uint64
	RngSeed     uint64 // the kernel's branch outcomes
}

// task is a thread's or an idle task's state between its turns.
type task struct {
	pos     uint64   // the next instruction
	pending uint64   // instructions retired since its last event
	stack   []uint64 // the kernel's near calls below the switch
	started bool     // it ran before (else it starts at ret_from_fork)
	idle    bool
}

// sysCPU is one CPU of System.
type sysCPU struct {
	flow *flow.Thread
	now  uint64
	cur  int // the thread running, -1: the idle task
	idle task
	mm   int // the process whose page tables the CPU has loaded (-1: none yet)
}

// System lays out threads (already woven with the kernel's code, Weave) as
// a system-wide kernel+user recording of a machine of opt.CPUs CPUs would
// trace them (perf record -a): each CPU's trace runs all the time, from
// the idle task, in which every CPU starts (do_idle's hlt), to the
// threads' turns and back. A turn starts on a CPU chosen at random, as in
// synth.EncodeCPUs; the task running there (the idle task, or the thread
// whose turn ends) is interrupted by asm_sysvec_reschedule_ipi, which
// calls schedule: its switch-out record is written in
// __perf_event_task_sched_out, __switch_to_asm jumps to __switch_to on the
// next task's stack, whose return goes on where that task was switched
// out (or to ret_from_fork, for a thread's first turn), the switch-in
// record is written in finish_task_switch, and IRET returns to the task's
// code. A thread that ends is switched out where it stopped. It returns
// each CPU's flow (one "thread" per CPU, for synth.Encode) and the switch
// records.
func (k *Kernel) System(threads []*flow.Thread, opt SystemOptions) ([]*flow.Thread, []SwitchRecord, error) {
	sc, err := k.scheduler()
	if err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(opt.RngSeed, 0x7363686564))
	n := max(opt.CPUs, 1)
	cpus := make([]*sysCPU, n)
	var recs []SwitchRecord
	for i := range cpus {
		c := &sysCPU{flow: &flow.Thread{Pid: -1, Tid: -1}, now: opt.Start, cur: -1, mm: -1}
		c.idle = task{idle: true, started: true}
		c.flow.Events = append(c.flow.Events, flow.Event{Kind: flow.Begin, To: sc.DoIdle, Time: c.now})
		if err := k.runIdle(c, sc.DoIdle, nil, rng); err != nil {
			return nil, nil, err
		}
		cpus[i] = c
	}
	tasks := make([]task, len(threads))
	for _, th := range threads {
		for _, ev := range th.Events {
			switch ev.Kind {
			case flow.TxBegin, flow.TxCommit, flow.TxAbort:
				return nil, nil, errors.New("system-wide recordings do not emulate transactions")
			}
		}
	}
	items := sysItems(threads)
	rs := opt.Seed | 1
	pick := func() int {
		rs = rs*1664525 + 1013904223
		return int(rs>>16) % n
	}
	var last uint64 // when the last switch ended, on any CPU
	cur, cpu, inTurn := -1, 0, 0
	switchOn := func(c int, out, in int) error {
		x := cpus[c]
		t := max(x.now, last) + 1
		if err := k.contextSwitch(x, c, out, in, t, opt.SwitchDelay, tasks, threads, sc, rng, &recs); err != nil {
			return err
		}
		last = x.now
		return nil
	}
	for _, it := range items {
		th := threads[it.th]
		ev := th.Events[it.ev]
		if it.th != cur || opt.Quantum > 0 && inTurn >= opt.Quantum {
			next := pick()
			if it.th == cur && next == cpu {
				inTurn = 0
			} else {
				if cur >= 0 {
					if err := switchOn(cpu, cur, -1); err != nil {
						return nil, nil, err
					}
				}
				cur, cpu, inTurn = it.th, next, 0
				if err := switchOn(cpu, -1, cur); err != nil {
					return nil, nil, err
				}
			}
		}
		inTurn++
		x := cpus[cpu]
		switch ev.Kind {
		case flow.Begin:
			continue // (ret_from_fork's IRET went there)
		case flow.End:
			// The thread stops before From: it is switched out there.
			tasks[it.th].pos, tasks[it.th].pending = ev.From, ev.Insns
			if err := switchOn(cpu, cur, -1); err != nil {
				return nil, nil, err
			}
			cur = -1
			continue
		}
		// Every instruction takes insnTicks at least: decoders
		// estimate time so on the way back to user space.
		ev.Time = max(ev.Time, x.now+insnTicks*ev.Insns)
		x.now = ev.Time
		x.flow.Events = append(x.flow.Events, ev)
		tasks[it.th].pos, tasks[it.th].pending = ev.To, 0
	}
	if cur >= 0 {
		if err := switchOn(cpu, cur, -1); err != nil {
			return nil, nil, err
		}
	}
	out := make([]*flow.Thread, n)
	for i, c := range cpus {
		out[i] = c.flow
	}
	return out, recs, nil
}

// contextSwitch appends to CPU x's flow, from time t, the switch from task
// out to task in (thread indices, -1: the CPU's idle task): the interrupt
// where out is, its way into schedule up to __switch_to, and in's way back
// from there to where it was switched out.
func (k *Kernel) contextSwitch(x *sysCPU, cpu, out, in int, t, delay uint64, tasks []task, threads []*flow.Thread,
	sc *Scheduler, rng *rand.Rand, recs *[]SwitchRecord) error {
	of, inf := &x.idle, &x.idle
	if out >= 0 {
		of = &tasks[out]
	}
	if in >= 0 {
		inf = &tasks[in]
	}
	x.now = t
	x.flow.Events = append(x.flow.Events, flow.Event{Kind: flow.Interrupt, From: of.pos, To: sc.Resched, Insns: of.pending, Time: t})
	w := walkState{k: k, rng: rng, now: t, stack: of.stack, visits: map[uint64]int{}}
	var outTime uint64
	err := w.run(sc.Resched, func(ev *flow.Event) bool {
		if ev.Kind == flow.Call && ev.To == sc.SchedOut {
			outTime = ev.Time
		}
		return ev.Kind == flow.Jump && ev.To == sc.SwitchTo
	})
	if err != nil {
		return fmt.Errorf("cpu %d: switching out: %w", cpu, err)
	}
	x.flow.Events = append(x.flow.Events, w.evs...)
	of.stack = append([]uint64(nil), w.stack...)
	*recs = append(*recs, SwitchRecord{Time: outTime, CPU: cpu, Out: true, Task: out, Other: in})
	if in >= 0 && threads[in].Pid != x.mm {
		// switch_mm loads the next task's page tables (the idle task,
		// a kernel thread, keeps the last ones: lazy TLB).
		x.mm = threads[in].Pid
		x.flow.Events = append(x.flow.Events, flow.Event{Kind: flow.MovCR3, From: w.exit, Back: uint64(x.mm), Time: w.now})
	}

	if !inf.started {
		first := threads[in].Events[0]
		if first.Kind != flow.Begin {
			return fmt.Errorf("thread %d does not start with a begin event", threads[in].Tid)
		}
		inf.stack = []uint64{sc.RetFork}
		inf.started = true
		inf.pos = first.To
	}
	w = walkState{k: k, rng: rng, now: w.now, stack: inf.stack, visits: map[uint64]int{}}
	var inTime uint64
	w.far = true
	err = w.run(sc.SwitchTo, func(ev *flow.Event) bool {
		if ev.Kind == flow.Call && ev.To == sc.FinishTask && inTime == 0 {
			inTime = ev.Time
			w.now += delay
		}
		return false
	})
	if err != nil {
		return fmt.Errorf("cpu %d: switching in: %w", cpu, err)
	}
	x.flow.Events = append(x.flow.Events, w.evs...)
	x.flow.Events = append(x.flow.Events, flow.Event{Kind: flow.IndJump, From: w.exit, To: inf.pos, Len: w.exitLen, Insns: w.n, Time: w.now})
	*recs = append(*recs, SwitchRecord{Time: inTime, CPU: cpu, Task: in, Other: out})
	inf.stack = w.stack // what was below the switch (the idle task's do_idle)
	x.now = w.now
	if in < 0 {
		return k.runIdle(x, x.idle.pos, x.idle.stack, rng)
	}
	return nil
}

// runIdle walks the idle task of CPU x from ip (its stack below) to its
// hlt, where it waits to be interrupted.
func (k *Kernel) runIdle(x *sysCPU, ip uint64, stack []uint64, rng *rand.Rand) error {
	w := walkState{k: k, rng: rng, now: x.now, stack: stack, visits: map[uint64]int{}, halt: true}
	if err := w.run(ip, func(*flow.Event) bool { return false }); err != nil {
		return fmt.Errorf("idle: %w", err)
	}
	x.flow.Events = append(x.flow.Events, w.evs...)
	x.idle.pos, x.idle.pending, x.idle.stack = w.exit, w.n, append([]uint64(nil), w.stack...)
	x.now = w.now
	return nil
}

// insnTicks is the time an instruction takes on the clock of System's
// CPUs: two ticks, as perf's decoder estimates when it has no timing
// packet (intel_pt_est_timestamp: two cycles per instruction at the
// maximum non-turbo ratio, which is the emulation's CBR). With less, a
// decoder's estimate would run ahead of the switch records on the way
// back to user space.
const insnTicks = 2

// walkState walks the kernel's code, insnTicks per instruction.
type walkState struct {
	k      *Kernel
	rng    *rand.Rand
	now    uint64
	stack  []uint64
	visits map[uint64]int
	far    bool // stop at IRET/SYSRET (exit, exitLen: where)
	halt   bool // stop after hlt (exit: the next instruction)
	evs    []flow.Event
	exit   uint64
	n      uint64 // instructions since the last event
	// exitLen is the length of the IRET/SYSRET stopped at.
	exitLen uint8
}

// run walks from ip until stop says so after an event, or the walk
// reaches what w.far or w.halt ask for.
func (w *walkState) run(ip uint64, stop func(*flow.Event) bool) error {
	k := w.k
	w.stack = append([]uint64(nil), w.stack...)
	for range maxSteps {
		off := ip - k.Start
		if ip < k.Start || off >= uint64(len(k.Text)) {
			return fmt.Errorf("kernel walk left the text at %#x", ip)
		}
		var d insn.Insn
		if err := insn.Decode(&d, k.Text[off:], insn.Mode64); err != nil {
			return fmt.Errorf("kernel walk at %#x: %w", ip, err)
		}
		w.n++
		w.now += insnTicks
		next := ip + uint64(d.Size)
		ev := flow.Event{From: ip, Len: d.Size, Insns: w.n, Time: w.now}
		switch d.Class {
		case insn.ClassOther:
			if w.halt && d.Size == 1 && k.Text[off] == 0xf4 { // hlt
				w.exit = next
				return nil
			}
			ip = next
			continue
		case insn.ClassCondJump:
			w.visits[ip]++
			ev.Kind, ev.Taken = flow.Cond, w.visits[ip] <= 3 && w.rng.IntN(4) != 0
			ev.To = next
			if ev.Taken {
				ev.To = uint64(int64(next) + d.Disp)
			}
		case insn.ClassJump:
			if !d.Direct {
				return fmt.Errorf("kernel walk: indirect jump at %#x", ip)
			}
			ev.Kind, ev.To = flow.Jump, uint64(int64(next)+d.Disp)
		case insn.ClassCall:
			if !d.Direct {
				return fmt.Errorf("kernel walk: indirect call at %#x", ip)
			}
			ev.Kind, ev.To = flow.Call, uint64(int64(next)+d.Disp)
			w.stack = append(w.stack, next)
		case insn.ClassReturn:
			if len(w.stack) == 0 {
				return fmt.Errorf("kernel walk: return with an empty stack at %#x", ip)
			}
			ev.Kind, ev.To = flow.Ret, w.stack[len(w.stack)-1]
			w.stack = w.stack[:len(w.stack)-1]
		case insn.ClassFarReturn:
			if !w.far {
				return fmt.Errorf("kernel walk: IRET at %#x", ip)
			}
			w.exit, w.exitLen = ip, d.Size
			return nil
		default:
			return fmt.Errorf("kernel walk: %v at %#x", d.Class, ip)
		}
		w.evs = append(w.evs, ev)
		w.n = 0
		ip = ev.To
		if stop(&ev) {
			return nil
		}
	}
	return fmt.Errorf("kernel walk from %#x: not done after %d instructions", ip, maxSteps)
}

type sysItem struct {
	t      uint64
	th, ev int
}

// sysItems lists the threads' events in the order a machine runs them:
// by time, then thread, then order in the thread.
func sysItems(threads []*flow.Thread) []sysItem {
	var items []sysItem
	for i, th := range threads {
		for j := range th.Events {
			items = append(items, sysItem{th.Events[j].Time, i, j})
		}
	}
	slices.SortStableFunc(items, func(x, y sysItem) int { return flow.RunOrder(x.t, x.th, x.ev, y.t, y.th, y.ev) })
	return items
}
