// Package flow holds the control flow of a traced program as compact
// per-thread event streams: the branches that decide where each thread went
// (conditional outcomes, indirect targets, returns), the points where it
// left user space (syscalls) or was interrupted (signals), and the sideband
// (mappings, comm, fork, exit) in global time order.
//
// A Trace is what record/ptrace observes and what record/synth encodes as
// the Intel PT packets intel_pt//u hardware would have written. Direct jumps
// and calls are kept too: they carry no packet, but the return-compression
// stack needs the calls, and consumers can walk the flow without decoding.
package flow
