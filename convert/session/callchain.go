package session

import (
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/perfdata"
)

// attachStacks adds the call chain (--itrace=g) and last-branch stack
// (--itrace=l) that perf synthesises from the thread stack to a PT sample
// about to be delivered. As intel_pt_prep_sample, every synthesised sample
// but a branch sample gets them (instructions, transactions, ptwrite, psb,
// cbr and the power events); branch samples (intel_pt_prep_b_sample) get
// neither.
func (p *ptState) attachStacks(smp *script.Sample, t *Thread, kernel bool) {
	if p.useThreadStack {
		p.addStacks(smp, t)
	}
}

// addStacks is attachStacks once a thread stack is kept.
func (p *ptState) addStacks(smp *script.Sample, t *Thread) {
	smp.BranchStack = nil
	if smp.Ev == p.branchesEv {
		return
	}
	ts := t.stackOf(int32(smp.CPU)) // smp.CPU is the queue's cpu, -1 without one
	if p.opts.Callchain {
		smp.Callchain = p.s.m.stackCallchain(t, ts, p.opts.CallchainSz+1, smp.IP, p.kernelStart)
	}
	if p.opts.LastBranch {
		smp.BranchStack = ts.brSample(p.opts.LastBranchSz)
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
func (ts *threadStack) stackIPs(out []uint64, sz int, ip, kernelStart uint64) []uint64 {
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

// brSample mirrors thread_stack__br_sample: the last sz branches of the
// ring, most recent first. ts may be nil.
func (ts *threadStack) brSample(sz int) []script.BranchEntry {
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

// stackCallchain is the resolved call chain of a PT sample at ip in
// thread t with thread stack ts, which may be nil (thread_stack__sample,
// then thread__resolve_callchain).
func (m *Machine) stackCallchain(t *Thread, ts *threadStack, sz int, ip, kernelStart uint64) []script.Frame {
	if ts == nil {
		var ips [2]uint64
		return m.callchain(t, ts.stackIPs(ips[:0], sz, ip, kernelStart), nil)
	}
	ts.ips = ts.stackIPs(ts.ips, sz, ip, kernelStart)
	ts.frames = m.callchain(t, ts.ips, ts.frames)
	return ts.frames
}
