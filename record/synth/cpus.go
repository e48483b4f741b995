package synth

import (
	"fmt"

	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/record/flow"
)

// CPUSwitch is a context switch on one of the emulated CPUs of
// EncodeCPUs: at Time, on CPU, thread Out (an index into the threads, -1
// for the idle task) stops running and In (-1: idle) starts.
type CPUSwitch struct {
	Time    uint64
	CPU     int
	Out, In int
}

// Machine describes the emulated CPUs of EncodeCPUs.
type Machine struct {
	// CPUs is the number of virtual CPUs (at least 1).
	CPUs int
	// Quantum ends a thread's turn after this many events even when no
	// other thread runs (a scheduler tick), so that a lone thread
	// migrates too; 0 means turns end only when another thread runs.
	Quantum int
	// Seed chooses the CPU of each turn (a fixed pseudo-random sequence).
	Seed uint32
}

// EncodeCPUs encodes threads as a machine of m.CPUs CPUs runs them: the
// threads take turns in the order of their events' times, as in
// EncodeCPU, and each turn runs on a CPU chosen at random, so threads
// migrate. A turn that ends in user space is an interrupt (FUP, TIP.PGD)
// on its CPU, which then runs the idle task; the thread resumes with
// TIP.PGE at the same IP on the CPU of its next turn. Each CPU's trace is
// a Stream of its own, with its own return-compression stack and PSB
// period. The switches (to and from the idle task included) are returned
// for the PERF_RECORD_SWITCH_CPU_WIDE records. Timing must be on.
func EncodeCPUs(threads []*flow.Thread, cfg Config, m Machine) ([]*Stream, []CPUSwitch, error) {
	cfg.norm()
	n := max(m.CPUs, 1)
	encs := make([]*encoder, n)
	for i := range encs {
		encs[i] = &encoder{cfg: cfg, out: &Stream{Packets: map[packet.Kind]int{}}, split: true}
	}
	items := cpuItems(threads)
	states := make([]threadState, len(threads))
	rng := m.Seed | 1
	pick := func() int {
		rng = rng*1664525 + 1013904223
		return int(rng>>16) % n
	}
	cur, cpu, inTurn := -1, 0, 0
	var sw []CPUSwitch
	var last uint64 // the time of the last switch on any CPU
	streams := func() []*Stream {
		out := make([]*Stream, n)
		for i, e := range encs {
			out[i] = e.out
		}
		return out
	}
	for _, it := range items {
		if it.th != cur || m.Quantum > 0 && inTurn >= m.Quantum && !it.ret {
			next := pick()
			if it.th == cur && next == cpu {
				inTurn = 0 // the tick left the thread where it was
			} else {
				if cur >= 0 {
					e := encs[cpu]
					states[cur] = threadState{on: e.on, ip: e.ip, inTX: e.inTX}
					if e.on {
						if err := preempt(e); err != nil {
							return streams(), sw, err
						}
						states[cur] = threadState{preempted: true, ip: states[cur].ip, inTX: states[cur].inTX}
					}
					last = max(last, e.switchTime())
					sw = append(sw, CPUSwitch{Time: e.now, CPU: cpu, Out: cur, In: -1})
				}
				cur, cpu, inTurn = it.th, next, 0
				e := encs[cpu]
				// The turn starts after the one before ended, on
				// whichever CPU that was.
				if e.now < last {
					if err := e.advance(last); err != nil {
						return streams(), sw, err
					}
				}
				e.now++
				last = e.now
				sw = append(sw, CPUSwitch{Time: e.now, CPU: cpu, Out: -1, In: cur})
				if err := e.setProcess(threads[cur].Pid); err != nil {
					return streams(), sw, err
				}
				st := states[cur]
				e.on, e.ip, e.inTX = false, st.ip, st.inTX
				if st.preempted {
					if err := e.advance(e.now + 1); err != nil {
						return streams(), sw, err
					}
					if err := e.enable(st.ip); err != nil {
						return streams(), sw, err
					}
				}
			}
		}
		inTurn++
		e := encs[cpu]
		var err error
		if it.ret {
			if err = e.advance(it.t); err == nil {
				if e.now <= last {
					e.now = last + 1
				}
				err = e.enable(it.ev.To)
			}
		} else {
			if it.ev.Kind == flow.Begin && e.now <= last {
				e.now = last + 1
			}
			err = e.event(it.ev)
			e.ip = it.ev.To
		}
		if err != nil {
			return streams(), sw, fmt.Errorf("thread %d at %v: %w", it.th, it.ev, err)
		}
	}
	for _, e := range encs {
		if err := e.flushTNT(); err != nil {
			return streams(), sw, err
		}
		e.cut()
		e.out.Data = e.enc.Buf
	}
	return streams(), sw, nil
}

// preempt interrupts the thread running in user space on e's CPU: FUP
// with its IP, TIP.PGD.
func preempt(e *encoder) error {
	if err := e.endOverflow(); err != nil {
		return err
	}
	if err := e.flushTNT(); err != nil {
		return err
	}
	if err := e.cyc(); err != nil {
		return err
	}
	if err := e.putIP(packet.KindFUP, e.ip); err != nil {
		return err
	}
	if err := e.tip(packet.KindTIPPGD, 0, true); err != nil {
		return err
	}
	e.on = false
	return nil
}
