package session

import (
	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
)

// attachStacks adds the call chain (--itrace=g) and last-branch stack
// (--itrace=l) that perf synthesises from the thread stack to a PT sample
// about to be delivered. As intel_pt_prep_sample, every synthesised sample
// but a branch sample gets them (instructions, transactions, ptwrite, psb,
// cbr and the power events); branch samples (intel_pt_prep_b_sample) get
// neither.
func (p *ptState) attachStacks(smp *sample.Sample, t *machine.Thread, kernel bool) {
	if p.useThreadStack {
		p.addStacks(smp, t)
	}
}

// addStacks is attachStacks once a thread stack is kept.
func (p *ptState) addStacks(smp *sample.Sample, t *machine.Thread) {
	smp.BranchStack = nil
	if smp.Ev == p.branchesEv {
		return
	}
	ts := t.Stack(int32(smp.CPU)) // smp.CPU is the queue's cpu, -1 without one
	if p.opts.Callchain {
		smp.Callchain = p.s.m.StackCallchain(t, ts, p.opts.CallchainSz+1, smp.IP, p.kernelStart)
	}
	if p.opts.LastBranch {
		smp.BranchStack = ts.BranchSample(p.opts.LastBranchSz)
	}
}
