package gcov

import (
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/session"
)

// BranchItrace is the --itrace selection under which SampleBlocks rebuilds
// blocks: every branch, nothing else.
func BranchItrace() *script.Itrace {
	it, err := script.ParseItrace("b")
	if err != nil {
		panic(err)
	}
	return it
}

// SampleBlocks rebuilds decoded blocks from PT branch samples (perf's
// --itrace=b): a branch sample's IP is the last instruction of a block and
// its Addr the first of the next one; "tr strt" samples (IP 0) open a block,
// "tr end" ones (Addr 0) close it. NInsn is left 0. It returns the Sample
// handler to give the session; it calls emit once per block, per thread in
// execution order, reusing the Block value.
func SampleBlocks(emit func(*session.Block)) func(*script.Sample) {
	start := map[int32]uint64{} // per thread: first instruction of the open block, 0 if none
	var b session.Block
	return func(s *script.Sample) {
		if s.Ev == nil || s.Ev.Name != "branches" && !s.Ev.IsBTS() {
			return
		}
		from, to := s.IP, s.Addr
		if from != 0 {
			if st := start[s.TID]; st != 0 && st <= from && from-st < 1<<20 {
				b = session.Block{PID: s.PID, TID: s.TID, CPU: int32(s.CPU), Time: s.Time,
					Start: st, End: from, Flags: s.Flags, To: to}
				emit(&b)
			}
		}
		start[s.TID] = to
	}
}
