package ptagg

// Run is one straight-line run of instructions for the session's Handler.Runs: what a
// Block says, in 32 bytes, without the thread, time and cycles (those are
// in its RunBatch).
type Run struct {
	Start uint64 // first instruction
	End   uint64 // last instruction
	// To is the next address executed (0: unknown, or the trace stopped
	// after the run).
	To    uint64
	NInsn uint32
	// Flags are the branch kinds of the last instruction (sample.Flag*,
	// as Block.Flags: FlagBranch|FlagCall, FlagReturn, FlagConditional,
	// ..., FlagTraceEnd when the trace stopped after it; 0 when the run
	// ended without a branch: a run split at the end of a mapping, or
	// one cut by an asynchronous event), and RunTaken.
	Flags uint16
	// Mark, when not 0, is 1 + the index in RunBatch.Marks of the time
	// and cycles that apply from this run on.
	Mark uint16
}

// RunTaken is set in Run.Flags when the run's last instruction is a
// branch that was taken, as perf's branches samples count them: a
// conditional branch that jumped, or any other branch that went somewhere
// (To not 0).
const RunTaken = 1 << 15

// RunMark is a change of time, or cycles counted, within a RunBatch.
type RunMark struct {
	Time   uint64 // the time of the run and the following ones
	Cycles uint64 // the Block.Cycles of the run (this run's only)
}

// RunBatch is a batch of runs of one thread on one CPU, in execution order.
type RunBatch struct {
	PID, TID, CPU int32
	// Time is the time of the first run (0 in untimed recordings).
	Time  uint64
	Runs  []Run
	Marks []RunMark
}
