package session

import (
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/session/ptperf"
)

// threadStack is perf's struct thread_stack without call/return processing
// (thread_stack__event with callstack).
type threadStack struct {
	stack   []tsEntry
	traceNr uint64
}

type tsEntry struct {
	ret      uint64
	traceEnd bool
}

// stackEvent mirrors thread_stack__event.
func (t *Thread) stackEvent(flags uint32, from, to, insnLen, traceNr uint64, callstack bool) {
	ts := t.ts
	if ts == nil {
		ts = &threadStack{traceNr: traceNr}
		t.ts = ts
	}
	if traceNr != ts.traceNr {
		if ts.traceNr != 0 {
			ts.stack = ts.stack[:0]
		}
		ts.traceNr = traceNr
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
// trace number when no thread stack is wanted.
func (p *ptState) threadStackEvent(q *ptQueue, st *ptperf.State) {
	if q.thread == nil {
		return
	}
	if p.useThreadStack {
		q.thread.stackEvent(q.flags, st.FromIP, st.ToIP, uint64(st.InsnLen), st.TraceNr, p.callstack)
	} else if q.thread.ts != nil && q.thread.ts.traceNr != st.TraceNr {
		if q.thread.ts.traceNr != 0 {
			q.thread.ts.stack = q.thread.ts.stack[:0]
		}
		q.thread.ts.traceNr = st.TraceNr
	}
}
