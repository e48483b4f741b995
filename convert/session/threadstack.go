package session

import "github.com/perfpt/perfpt/convert/session/ptperf"

// threadStackEvent feeds a decoded branch to the thread stack of q's
// thread (intel_pt_sample's thread_stack__event call), or only tracks the
// trace number when no thread stack is wanted. The instruction length is
// the queue's (ptq->insn_len): 0 for asynchronous branches, so that an
// interrupt's return address is the interrupted IP.
// Small enough to inline: without g/l only threads that have a stack
// need the call.
func (p *ptState) threadStackEvent(q *ptQueue, st *ptperf.State) {
	if t := q.thread; t != nil && (p.useThreadStack || t.HasStack()) {
		p.stackEvent(q, st)
	}
}

func (p *ptState) stackEvent(q *ptQueue, st *ptperf.State) {
	if p.useThreadStack {
		brSz := 0
		if p.opts.LastBranch {
			brSz = p.opts.LastBranchSz
		}
		q.thread.StackEvent(q.cpu, q.flags, st.FromIP, st.ToIP, uint64(q.insnLen), st.TraceNr, p.callstack, brSz)
	} else if ts := q.thread.Stack(q.cpu); ts != nil {
		ts.SetTraceNr(st.TraceNr)
	}
}
