package session

import "github.com/perfpt/perfpt/convert/script"

// attachStacks adds the call chain (--itrace=g) and last-branch stack
// (--itrace=l) that perf synthesises from the thread stack to a PT sample
// about to be delivered. Not implemented yet: samples carry neither.
func (p *ptState) attachStacks(smp *script.Sample, t *Thread, kernel bool) {}
