// Package session turns a perf.data recording into resolved, ordered
// events: the shared pipeline under perfpt script, pprof and gcov.
//
// It replays the side-band records the way perf's session and machine code
// does (threads and comms from COMM/FORK/EXIT, address spaces from
// MMAP/MMAP2 with perf's overlap cutting, the kernel map and kallsyms, the
// thread on each CPU from SWITCH and ITRACE_START), resolves every address
// to a DSO and symbol through convert/symbol, and delivers events in perf's
// order.
//
// # Use
//
//	s, err := session.Open("perf.data", session.Options{Symfs: dir, Workers: 4})
//	if err != nil { ... }
//	defer s.Close()
//	err = s.Run(session.Handler{
//		// Ordinary samples (cpu-clock -g ...) and the samples synthesised
//		// from Intel PT (branches, instructions) as perf script sees
//		// them, with IP, callchain and branch target resolved.
//		Sample: func(smp *script.Sample) { ... },
//		// Decoder errors, as perf's PERF_RECORD_AUXTRACE_ERROR events.
//		Error: func(e *script.ErrorLine) { ... },
//		// Optional: the decoded PT flow, one call per run of sequential
//		// instructions ending in a branch (or a trace stop), in time
//		// order per thread. Aggregate per basic block without
//		// materialising instructions: Block.Start..Block.End are the
//		// first and last instruction addresses, NInsn the count.
//		Block: func(b *session.Block) { ... },
//	})
//
// Handler callbacks run on one goroutine, in perf's output order; the
// values they get are reused after the callback returns.
//
// Options.Itrace selects what is synthesised from PT data (perf's
// --itrace); nil means perf script's default.
//
// Memory stays bounded: records are streamed from the mmapped file, AUX
// data is read in place, and PT queues are decoded incrementally.
package session
