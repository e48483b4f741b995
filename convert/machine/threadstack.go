package machine

import (
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/perfdata"
)

// ThreadStack is perf's struct thread_stack without call/return processing
// (thread_stack__event with callstack), plus the last-branch ring that
// --itrace=l reads.
type ThreadStack struct {
	stack   []tsEntry
	traceNr uint64

	// br is the ring of the last branches (br_stack_rb): each branch is
	// written one slot below the previous one, wrapping from 0 to the
	// end, so that reading up from brPos gives the most recent first.
	// brNr entries are valid.
	br          []sample.BranchEntry
	brPos, brNr int

	// callstack says the stack was set up for calls (perf allocates
	// ts->stack only then); the idle task's per-CPU stacks count only so.
	callstack bool
	// cpus holds the idle task's stacks of CPUs 1 and up (index: CPU);
	// the thread's own stack is CPU 0's.
	cpus []*ThreadStack

	// Buffers of the stacks attached to the thread's samples.
	ips     []uint64
	frames  []sample.Frame
	brStack []sample.BranchEntry
}

type tsEntry struct {
	ret      uint64
	traceEnd bool
}

// stackEvent mirrors thread_stack__event without a branch ring.
func (t *Thread) stackEvent(flags uint32, from, to, insnLen, traceNr uint64, callstack bool) {
	t.StackEvent(0, flags, from, to, insnLen, traceNr, callstack, 0)
}

// idle says t is the idle task (perf's thread_stack__per_cpu): pid and
// tid 0 stand for one task per CPU, each with its own stack.
func (t *Thread) idle() bool { return t.TID == 0 && t.PID == 0 }

// Stack mirrors thread__stack: t's stack, or the idle task's stack of
// cpu (CPU 0 for a negative cpu) if it was set up for calls; nil if none.
func (t *Thread) Stack(cpu int32) *ThreadStack {
	ts := t.ts
	if ts == nil || !t.idle() {
		return ts
	}
	if cpu > 0 {
		if int(cpu) >= len(ts.cpus) {
			return nil
		}
		ts = ts.cpus[cpu]
	}
	if ts == nil || !ts.callstack {
		return nil
	}
	return ts
}

// newStack mirrors thread_stack__new and thread_stack__init: the stack
// of t (of cpu for the idle task), set up when it was not set up for
// calls yet (then the ring starts empty again).
func (t *Thread) newStack(cpu int32, callstack bool, brSz int) *ThreadStack {
	slot := &t.ts
	if t.idle() && cpu > 0 {
		if t.ts == nil {
			t.ts = &ThreadStack{}
		}
		if int(cpu) >= len(t.ts.cpus) {
			t.ts.cpus = append(t.ts.cpus, make([]*ThreadStack, int(cpu)+1-len(t.ts.cpus))...)
		}
		slot = &t.ts.cpus[cpu]
	}
	ts := *slot
	if ts == nil {
		ts = &ThreadStack{}
		*slot = ts
	}
	if !ts.callstack {
		ts.callstack = callstack
		if brSz > 0 {
			ts.br, ts.brNr = make([]sample.BranchEntry, brSz), 0
		}
	}
	return ts
}

// StackDepth mirrors thread_stack__depth: the depth of t's stack on cpu
// (callindent: the idle task has one per CPU), and whether t has a thread
// stack at all (thread->ts).
func (t *Thread) StackDepth(cpu int32) (int, bool) {
	if t.ts == nil {
		return 0, false
	}
	if ts := t.Stack(cpu); ts != nil {
		return len(ts.stack), true
	}
	return 0, true
}

// StackEvent mirrors thread_stack__event for the branch of a sample on
// cpu; brSz is the size of the last-branch ring (0: none).
func (t *Thread) StackEvent(cpu int32, flags uint32, from, to, insnLen, traceNr uint64, callstack bool, brSz int) {
	ts := t.Stack(cpu)
	if ts == nil {
		ts = t.newStack(cpu, callstack, brSz)
		ts.traceNr = traceNr
	}
	if traceNr != ts.traceNr {
		if ts.traceNr != 0 {
			ts.flush()
		}
		ts.traceNr = traceNr
	}
	if len(ts.br) != 0 {
		ts.addBranch(flags, from, to)
	}
	if !callstack {
		return
	}
	switch {
	case flags&sample.FlagCall != 0:
		if to == 0 {
			return
		}
		ret := from + insnLen
		if ret == to {
			return
		}
		ts.stack = append(ts.stack, tsEntry{ret, flags&sample.FlagTraceEnd != 0})
	case flags&sample.FlagTraceBegin != 0:
		ts.pop(to)
		for i := len(ts.stack); i > 0; {
			i--
			if ts.stack[i].traceEnd {
				ts.stack = ts.stack[:i]
			} else {
				break
			}
		}
	case flags&sample.FlagReturn != 0 && from != 0:
		ts.pop(to)
	}
}

// HasStack says t has a thread stack (perf's thread->ts).
func (t *Thread) HasStack() bool { return t.ts != nil }

// SetTraceNr mirrors thread_stack__set_trace_nr: a new trace number
// empties the stack.
func (ts *ThreadStack) SetTraceNr(nr uint64) {
	if ts.traceNr == nr {
		return
	}
	if ts.traceNr != 0 {
		ts.flush()
	}
	ts.traceNr = nr
}

// flush mirrors __thread_stack__flush without a call/return processor:
// the stack and the branch ring are emptied.
func (ts *ThreadStack) flush() {
	ts.stack = ts.stack[:0]
	ts.brPos, ts.brNr = 0, 0
}

// addBranch mirrors thread_stack__update_br_stack (no mispredict
// information: perf's intel-pt.mispred-all is off by default).
func (ts *ThreadStack) addBranch(flags uint32, from, to uint64) {
	if ts.brPos == 0 {
		ts.brPos = len(ts.br)
	}
	ts.brPos--
	ts.br[ts.brPos] = sample.BranchEntry{From: from, To: to,
		Abort: flags&sample.FlagTxAbort != 0, InTx: flags&sample.FlagInTx != 0}
	if ts.brNr < len(ts.br) {
		ts.brNr++
	}
}

func (ts *ThreadStack) pop(ret uint64) {
	for i := len(ts.stack); i > 0; {
		i--
		if ts.stack[i].ret == ret {
			ts.stack = ts.stack[:i]
			return
		}
	}
}

// callchainContext mirrors thread-stack.c's callchain_context.
func callchainContext(ip, kernelStart uint64) uint64 {
	if ip < kernelStart {
		return perfdata.CallchainUser
	}
	return perfdata.CallchainKernel
}

// stackIPs mirrors thread_stack__sample: the context of ip, ip, then the
// return addresses from the innermost out, with a context marker wherever
// the address space changes; sz bounds the entries, markers included
// (perf passes --itrace=g's size plus one). ts may be nil.
func (ts *ThreadStack) stackIPs(out []uint64, sz int, ip, kernelStart uint64) []uint64 {
	out = out[:0]
	if sz < 2 {
		return out
	}
	ctx := callchainContext(ip, kernelStart)
	out = append(out, ctx, ip)
	if ts == nil {
		return out
	}
	last := ctx
	for j := 1; len(out) < sz && j <= len(ts.stack); j++ {
		ip = ts.stack[len(ts.stack)-j].ret
		if ctx = callchainContext(ip, kernelStart); ctx != last {
			if len(out) >= sz-1 {
				break
			}
			out = append(out, ctx)
			last = ctx
		}
		out = append(out, ip)
	}
	return out
}

// BranchSample mirrors thread_stack__br_sample: the last sz branches of the
// ring, most recent first. ts may be nil.
func (ts *ThreadStack) BranchSample(sz int) []sample.BranchEntry {
	if ts == nil || ts.brNr == 0 {
		return nil
	}
	n := min(ts.brNr, sz)
	out := ts.brStack[:0]
	if k := len(ts.br) - ts.brPos; k >= n {
		out = append(out, ts.br[ts.brPos:ts.brPos+n]...)
	} else {
		out = append(out, ts.br[ts.brPos:]...)
		out = append(out, ts.br[:n-k]...)
	}
	ts.brStack = out
	return out
}

// StackCallchain is the resolved call chain of a PT sample at ip in
// thread t with thread stack ts, which may be nil (thread_stack__sample,
// then thread__resolve_callchain).
func (m *Machine) StackCallchain(t *Thread, ts *ThreadStack, sz int, ip, kernelStart uint64) []sample.Frame {
	if ts == nil {
		var ips [2]uint64
		return m.Callchain(t, ts.stackIPs(ips[:0], sz, ip, kernelStart), nil)
	}
	ts.ips = ts.stackIPs(ts.ips, sz, ip, kernelStart)
	ts.frames = m.Callchain(t, ts.ips, ts.frames)
	return ts.frames
}
