// Package pprof writes pprof profiles (github.com/google/pprof/profile) from
// perf.data recordings.
//
// From sampled recordings (cpu-clock, cycles or any event, with or without
// -g call chains) every sample is weighted like perf_data_converter does:
// two values per event, `<event>_sample/count` (1 per sample) and
// `<event>_event/count` (the sample's period). Branch stacks (LBR) add a
// `branches/count` value: each entry is a sample of 1 whose leaf is the
// branch target and whose caller is the branch source, so that pprof's
// graph shows the taken branches as weighted edges (the counts of perf
// report --branch-stack), labelled branch=predicted|mispredicted.
//
// From Intel PT recordings the values are exact counts,
// `instructions/count` and `branches/count` (taken branches), aggregated
// per basic block and call stack while the trace is decoded
// (convert/ptagg, from the session's Handler.Runs). When the trace has
// timestamps (TSC, MTC) a `time/nanoseconds` value estimates where the
// time went: each block gets the time from its thread's previous block to
// it, only while the trace runs (the gaps after a trace stop, in the
// untraced kernel or switched out, count for nothing). The timestamps
// advance in MTC steps, so the time of a step lands on the block that
// sees it. When the trace has CYC packets (Session.HasCycles) a
// `cycles/count` value sums the cycles the decoder counted per block
// (session.Block.Cycles). A block's branch, time and cycles go to its
// last instruction; its instructions are spread over all of them.
//
// With Options.Workers > 1 (-j; the default is 1, the cheapest in CPU)
// the session decodes chunks of the trace (cut at PSBs) on worker
// goroutines ahead of time, each counted into an aggregation of its own
// merged in order (or its runs delivered in order), so the aggregation,
// and every call stack, is the one decoder's, whatever the number of
// workers and wherever the chunks begin: a call made in one chunk and
// returned from in another is matched as in a sequential decode.
//
// Call stacks from PT are rebuilt per thread from the call and return
// flags of the decoded blocks (convert/ptagg says how: returns pop to the
// frame they return to, longjmps resume a frame up the stack, recursion is
// folded at a repeated call site). Caller locations are the call
// instructions. Options.Granularity makes one location per instruction
// (address, the default), source line or function.
//
// Locations carry their runtime address and mapping (file, offset, build
// id); functions and lines come from DWARF through convert/srcline,
// inlined frames included, and from the ELF symbol table where there is no
// debug information. Samples carry the labels pid, tid and comm, and cpu
// when the recording knows it: PT blocks are aggregated per CPU, so a
// thread that moved between CPUs has a sample per CPU it ran on, its call
// stack carried across the move. This differs from perf report on
// per-CPU traces on purpose: perf flushes a thread's call stack when it
// migrates (each CPU's trace is a separate trace_nr for
// thread_stack__event), so the callers of what ran before the move are
// lost and their children shares drop (main 5.31% in perf report,
// 8.56% here, on a migrating thread). A profile is not perf's output, and
// the lost callers are perf's artefact: the full stacks are kept
// (TestPerCPUStacks: the same stacks whatever the number of CPUs).
//
// Every profile passes profile.CheckValid before it is written. Write
// encodes and compresses faster than profile.Write (same format).
package pprof
