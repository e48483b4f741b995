package synth

import (
	"fmt"
	"slices"

	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/record/flow"
)

// Switch is a context switch on the emulated CPU: at Time, thread Out (an
// index into the threads given to EncodeCPU, -1 for none) stops running
// and In starts.
type Switch struct {
	Time    uint64
	Out, In int
}

type cpuItem struct {
	t   uint64
	th  int
	seq int
	ev  *flow.Event
	ret bool // the return to user space of a Syscall or Async
}

type threadState struct {
	on, preempted, inTX bool
	ip                  uint64
}

// EncodeCPU encodes threads as one CPU's trace, as a per-CPU intel_pt
// recording of them all running on one CPU would hold: the threads take
// turns in the order of their events' times; a thread switched out while
// in user space is interrupted (FUP, TIP.PGD) and resumed later (TIP.PGE at
// the same IP). It also returns the context switches, for the
// PERF_RECORD_SWITCH_CPU_WIDE records. Timing should be on (perf needs
// timestamps to place the switches).
func EncodeCPU(threads []*flow.Thread, cfg Config) (*Stream, []Switch, error) {
	cfg.norm()
	e := &encoder{cfg: cfg, out: &Stream{Packets: map[packet.Kind]int{}}, split: true}
	items := cpuItems(threads)
	states := make([]threadState, len(threads))
	cur := -1
	var sw []Switch
	for _, it := range items {
		if it.th != cur {
			if cur >= 0 {
				states[cur] = threadState{on: e.on, ip: e.ip, inTX: e.inTX}
				if e.on {
					// Preempted in user space: an interrupt.
					if err := preempt(e); err != nil {
						return e.out, sw, err
					}
					states[cur] = threadState{preempted: true, ip: states[cur].ip, inTX: states[cur].inTX}
				}
			}
			// The switch happens one tick after the last packet (and
			// the decoder's estimate).
			sw = append(sw, Switch{Time: e.switchTime(), Out: cur, In: it.th})
			cur = it.th
			if err := e.setProcess(threads[cur].Pid); err != nil {
				return e.out, sw, err
			}
			st := states[cur]
			e.on, e.ip, e.inTX = false, st.ip, st.inTX
			if st.preempted {
				if err := e.advance(e.now + 1); err != nil {
					return e.out, sw, err
				}
				if err := e.enable(st.ip); err != nil {
					return e.out, sw, err
				}
			}
		}
		var err error
		if it.ret {
			if err = e.advance(it.t); err == nil {
				if e.now <= sw[len(sw)-1].Time {
					e.now = sw[len(sw)-1].Time + 1
				}
				err = e.enable(it.ev.To)
			}
		} else {
			if it.ev.Kind == flow.Begin && e.now <= sw[len(sw)-1].Time {
				e.now = sw[len(sw)-1].Time + 1
			}
			err = e.event(it.ev)
			e.ip = it.ev.To
		}
		if err != nil {
			return e.out, sw, fmt.Errorf("thread %d at %v: %w", it.th, it.ev, err)
		}
	}
	if err := e.flushTNT(); err != nil {
		return e.out, sw, err
	}
	e.cut()
	e.out.Data = e.enc.Buf
	return e.out, sw, nil
}

// cpuItems lists the threads' events, and the returns to user space of
// their syscalls and async events, in the order a CPU runs them.
func cpuItems(threads []*flow.Thread) []cpuItem {
	var items []cpuItem
	for i, th := range threads {
		for j := range th.Events {
			ev := &th.Events[j]
			items = append(items, cpuItem{t: ev.Time, th: i, seq: 2 * j, ev: ev})
			if (ev.Kind == flow.Syscall || ev.Kind == flow.Async) && ev.To != 0 {
				items = append(items, cpuItem{t: max(ev.Back, ev.Time), th: i, seq: 2*j + 1, ev: ev, ret: true})
			}
		}
	}
	slices.SortStableFunc(items, func(x, y cpuItem) int { return flow.RunOrder(x.t, x.th, x.seq, y.t, y.th, y.seq) })
	return items
}
