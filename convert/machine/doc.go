// Package machine is the host a recording rebuilds, as perf's machine.c,
// thread.c, map.c and dso.c keep it: threads and their comms (a new thread
// is ":tid" until its COMM; maps are per process and not reset at exec, as
// in perf), address spaces from MMAP/MMAP2 with perf's overlap cutting, the
// kernel map, and the DSOs with their symbols, found through
// convert/symbol (perf's symbol choice, the build-id cache and --symfs;
// kallsyms for the kernel; [vdso] from our own vdso, as perf does).
//
// It resolves addresses to a map, DSO and symbol (Resolve, ResolveInto
// with a per-caller cache, ResolveRO for parallel decode workers, Callchain
// for a sample's callchain, Resolver for one sample's thread), answers
// source lines as perf's addr2line path does, and keeps each thread's call
// stack and last-branch ring (ThreadStack, perf's thread-stack.c) for the
// trace decoders. Each DSO has a slot (DecoderCache) where the session's
// decoder keeps its instruction cache without a lookup per block.
//
// The session (convert/session) feeds it the records in perf's order
// (ProcessComm, ProcessFork, ProcessMmap, AddBuildID); the emitters read
// it through Session.Machine.
package machine
