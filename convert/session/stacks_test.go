package session

import (
	"testing"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
)

const kstart = uint64(1) << 63

// BenchmarkAttachStacksOff measures the hook when neither g nor l is set.
func BenchmarkAttachStacksOff(b *testing.B) {
	p := &ptState{}
	var smp sample.Sample
	th := &machine.Thread{PID: 1, TID: 1}
	b.ReportAllocs()
	for b.Loop() {
		p.attachStacks(&smp, th, false)
	}
}

// BenchmarkStacksOn measures what g16 and l64 add to an instruction
// sample of a thread 12 calls deep (addresses without maps).
func BenchmarkStacksOn(b *testing.B) {
	m := machine.New(nil, "")
	th := m.FindNewThread(1, 1)
	call := uint32(sample.FlagBranch | sample.FlagCall)
	for i := uint64(0); i < 80; i++ {
		th.StackEvent(0, call, 0x1000+i*0x10, 0x2000+i*0x10, 5, 1, i < 12, 64)
	}
	ev := &sample.Event{}
	p := &ptState{s: &Session{m: m}, useThreadStack: true, instructionsEv: ev, kernelStart: kstart}
	p.opts.Callchain, p.opts.LastBranch, p.opts.CallchainSz, p.opts.LastBranchSz = true, true, 16, 64
	smp := sample.Sample{Ev: ev, IP: 0x5000}
	b.ReportAllocs()
	for b.Loop() {
		p.attachStacks(&smp, th, false)
	}
	if len(smp.Callchain) != 13 || len(smp.BranchStack) != 64 {
		b.Fatalf("%d frames, %d branches", len(smp.Callchain), len(smp.BranchStack))
	}
}
