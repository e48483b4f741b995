// Package ptagg aggregates the decoded flow of Intel PT recordings per
// basic block, call stack and CPU: the counts perfpt pprof makes a
// profile of.
//
// An Agg takes the runs of the session's Handler.Runs (Runs), per thread
// in execution order, and keeps one record per distinct block (first and
// last instruction), call-tree node and CPU: the instructions executed,
// the taken branches at its end, the time estimate and the CYC cycles
// (see convert/pprof for what they mean). Records and Nodes give them
// out.
//
// Call stacks are rebuilt per thread from the call and return flags of
// the runs: a return pops to the frame whose call it returns to (so a
// trace that starts inside a call chain, or a return skipping frames,
// stays consistent), a jump from another object to the return address of
// a call made further up the stack (longjmp) resumes that frame, and
// recursion is folded at a repeated call site so that the call tree stays
// as large as the call graph (flat counts and the cumulative counts of
// directly recursive functions are unchanged). Stacks deeper than 1024
// calls are only counted.
//
// A run's record is found through the record that last followed the
// previous run's branch, taken or not, checked by key, else through a
// hash index: no map lookup per run. The runs that need nothing more (the
// guess holds, no mark, and the stack moves by a known call, a return to
// a frame on it, or not at all: most of them) go through fastRuns, in
// assembly on amd64 (aggfast_amd64.s, where the compiler's version kept
// its state in memory), checked against its Go version by TestFastRuns
// and FuzzFastRuns.
//
// A chunk of trace decoded ahead, whose threads' call stacks at its start
// are not known, is aggregated by an Agg of its own (Agg.NewChunk) and
// added to the Agg of the runs before it by Agg.Merge (chunk.go says how,
// and what Merge checks; TestChunkMerge compares it with the runs taken in
// sequence).
package ptagg
