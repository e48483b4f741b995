package session

import (
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/session/ptperf"
)

// threadStack is perf's struct thread_stack without call/return processing
// (thread_stack__event with callstack), plus the last-branch ring that
// --itrace=l reads.
type threadStack struct {
	stack   []tsEntry
	traceNr uint64

	// br is the ring of the last branches (br_stack_rb): each branch is
	// written one slot below the previous one, wrapping from 0 to the
	// end, so that reading up from brPos gives the most recent first.
	// brNr entries are valid.
	br          []script.BranchEntry
	brPos, brNr int

	// callstack says the stack was set up for calls (perf allocates
	// ts->stack only then); the idle task's per-CPU stacks count only so.
	callstack bool
	// cpus holds the idle task's stacks of CPUs 1 and up (index: CPU);
	// the thread's own stack is CPU 0's.
	cpus []*threadStack

	// Buffers of the stacks attached to the thread's samples.
	ips     []uint64
	frames  []script.Frame
	brStack []script.BranchEntry
}

type tsEntry struct {
	ret      uint64
	traceEnd bool
}

// stackEvent mirrors thread_stack__event without a branch ring.
func (t *Thread) stackEvent(flags uint32, from, to, insnLen, traceNr uint64, callstack bool) {
	t.stackEventBr(0, flags, from, to, insnLen, traceNr, callstack, 0)
}

// idle says t is the idle task (perf's thread_stack__per_cpu): pid and
// tid 0 stand for one task per CPU, each with its own stack.
func (t *Thread) idle() bool { return t.TID == 0 && t.PID == 0 }

// stackOf mirrors thread__stack: t's stack, or the idle task's stack of
// cpu (CPU 0 for a negative cpu) if it was set up for calls; nil if none.
func (t *Thread) stackOf(cpu int32) *threadStack {
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
func (t *Thread) newStack(cpu int32, callstack bool, brSz int) *threadStack {
	slot := &t.ts
	if t.idle() && cpu > 0 {
		if t.ts == nil {
			t.ts = &threadStack{}
		}
		if int(cpu) >= len(t.ts.cpus) {
			t.ts.cpus = append(t.ts.cpus, make([]*threadStack, int(cpu)+1-len(t.ts.cpus))...)
		}
		slot = &t.ts.cpus[cpu]
	}
	ts := *slot
	if ts == nil {
		ts = &threadStack{}
		*slot = ts
	}
	if !ts.callstack {
		ts.callstack = callstack
		if brSz > 0 {
			ts.br, ts.brNr = make([]script.BranchEntry, brSz), 0
		}
	}
	return ts
}

// stackDepth mirrors thread_stack__depth: the depth of t's stack on cpu
// (callindent), and whether t has a thread stack at all (thread->ts).
func (t *Thread) stackDepth(cpu int32) (int, bool) {
	if t.ts == nil {
		return 0, false
	}
	if ts := t.stackOf(cpu); ts != nil {
		return len(ts.stack), true
	}
	return 0, true
}

// stackEventBr mirrors thread_stack__event for the branch of a sample on
// cpu; brSz is the size of the last-branch ring (0: none).
func (t *Thread) stackEventBr(cpu int32, flags uint32, from, to, insnLen, traceNr uint64, callstack bool, brSz int) {
	ts := t.stackOf(cpu)
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
	case flags&script.FlagCall != 0:
		if to == 0 {
			return
		}
		ret := from + insnLen
		if ret == to {
			return
		}
		ts.stack = append(ts.stack, tsEntry{ret, flags&script.FlagTraceEnd != 0})
	case flags&script.FlagTraceBegin != 0:
		ts.pop(to)
		for i := len(ts.stack); i > 0; {
			i--
			if ts.stack[i].traceEnd {
				ts.stack = ts.stack[:i]
			} else {
				break
			}
		}
	case flags&script.FlagReturn != 0 && from != 0:
		ts.pop(to)
	}
}

// flush mirrors __thread_stack__flush without a call/return processor:
// the stack and the branch ring are emptied.
func (ts *threadStack) flush() {
	ts.stack = ts.stack[:0]
	ts.brPos, ts.brNr = 0, 0
}

// addBranch mirrors thread_stack__update_br_stack (no mispredict
// information: perf's intel-pt.mispred-all is off by default).
func (ts *threadStack) addBranch(flags uint32, from, to uint64) {
	if ts.brPos == 0 {
		ts.brPos = len(ts.br)
	}
	ts.brPos--
	ts.br[ts.brPos] = script.BranchEntry{From: from, To: to,
		Abort: flags&script.FlagTxAbort != 0, InTx: flags&script.FlagInTx != 0}
	if ts.brNr < len(ts.br) {
		ts.brNr++
	}
}

func (ts *threadStack) pop(ret uint64) {
	for i := len(ts.stack); i > 0; {
		i--
		if ts.stack[i].ret == ret {
			ts.stack = ts.stack[:i]
			return
		}
	}
}

// threadStackEvent feeds a decoded branch to the thread stack of q's
// thread (intel_pt_sample's thread_stack__event call), or only tracks the
// trace number when no thread stack is wanted. The instruction length is
// the queue's (ptq->insn_len): 0 for asynchronous branches, so that an
// interrupt's return address is the interrupted IP.
// Small enough to inline: without g/l only threads that have a stack
// need the call.
func (p *ptState) threadStackEvent(q *ptQueue, st *ptperf.State) {
	if t := q.thread; t != nil && (p.useThreadStack || t.ts != nil) {
		p.stackEvent(q, st)
	}
}

func (p *ptState) stackEvent(q *ptQueue, st *ptperf.State) {
	if p.useThreadStack {
		brSz := 0
		if p.opts.LastBranch {
			brSz = p.opts.LastBranchSz
		}
		q.thread.stackEventBr(q.cpu, q.flags, st.FromIP, st.ToIP, uint64(q.insnLen), st.TraceNr, p.callstack, brSz)
	} else if ts := q.thread.stackOf(q.cpu); ts != nil && ts.traceNr != st.TraceNr {
		// thread_stack__set_trace_nr
		if ts.traceNr != 0 {
			ts.flush()
		}
		ts.traceNr = st.TraceNr
	}
}
