// Package session turns a perf.data recording into resolved, ordered
// events: the pipeline under perfpt script, pprof and gcov.
//
// It replays the records the way perf's session and intel-pt code do:
// COMM, FORK and MMAP/MMAP2 go to the machine (convert/machine: threads,
// address spaces, DSOs and their symbols, as perf's machine.c), the thread
// on each CPU follows ITRACE_START and SWITCH, and Intel PT is decoded with
// convert/session/ptperf, which follows perf 6.1's decoder state by state.
// Samples are convert/sample's Sample, resolved through the machine.
//
// # Use
//
//	s, err := session.Open("perf.data", session.Options{Symfs: dir})
//	if err != nil { ... }
//	defer s.Close()
//	err = s.Run(session.Handler{
//		Sample: func(smp *sample.Sample) { ... },
//		Error:  func(e *sample.ErrorLine) { ... },
//		Block:  func(b *session.Block) { ... },
//	})
//
// Sample gets every sample perf script would print, in perf's order:
// ordinary samples (cpu-clock -g: IP, resolved callchain, period) and the
// samples synthesised from Intel PT according to Options.Itrace (nil means
// perf script's default: calls and trace begin/end branches, psb, cbr,
// errors): branches (IP, Addr, Flags: sample.Flag*), instructions (Period =
// instructions since the previous one), transactions (x), ptwrite (w), and
// the power events (p: psb, cbr, and mwait, pwre, exstop, pwrx when the
// config has pwr_evt), the synthesised events' payloads in Sample.Synth.
// IPLoc is the resolved
// IP; Res resolves the branch target and the source line on demand.
// Branch and instruction samples carry perf's IPC counts (InsnCnt, CycCnt:
// instructions and cycles since the previous sample of that kind that had
// them; 0 when perf would print no IPC): from CYC packets, or estimated
// from MTC and CBR when the recording has none, as perf does (itrace A:
// approximate IPC), when Options.IPC asks for them: chunks decoded in
// parallel (below) start their counts afresh, so recordings that can count
// cycles are then decoded sequentially.
//
// Error gets decoder errors as perf's PERF_RECORD_AUXTRACE_ERROR events
// (code, message, IP, time, cpu/pid/tid), and recorded AUXTRACE_ERRORs.
//
// Block gets the decoded PT flow, one call per straight-line run of
// instructions, per thread in execution order: Start and End are the first
// and last instruction addresses (contiguous; a run crossing into another
// mapping is split), NInsn their count, Flags the branch kinds of the last
// instruction (sample.FlagCall, FlagReturn, FlagConditional, ... or
// FlagTraceEnd when the trace stopped after it), To the next address
// executed (0 when unknown or the trace stopped). A run is delivered before
// the branch sample that ends it. Aggregate per basic block by counting
// (Start, End) pairs; NInsn gives the instruction count without decoding.
// Cycles is the number of cycles that CYC packets counted since the
// queue's previous Block, up to this one (the decoder reads a CYC packet
// before the instructions of the branch packet it precedes, so the cycles
// go to the first run walked after it, as perf attributes them for IPC):
// summed per block it gives cycles/count; it is 0 for every Block when the
// recording has no CYC packets, which Session.HasCycles tells beforehand
// (the cyc bit of the intel_pt config).
// Runs are delivered only while PT is decoded; Sample may be nil. With
// Handler.Blocks instead of Block the runs come in batches (up to 256, in
// the same order, handed over before any other callback), which costs
// less per run. Handler.Runs is the leanest delivery: 32-byte Runs written
// in place into batches of one thread (RunBatch), time and cycles as marks
// where they change; with Handler.LeanRuns only the range, the count and
// the branch kind (what gcov needs).
//
// The values passed to callbacks are reused after they return. Callbacks
// run on the goroutine that called Run, but for Segments (below).
//
// # Parallel decoding
//
// With Options.Workers > 1 a queue's trace is cut at PSBs into chunks that
// worker goroutines decode ahead (pt_par.go), each from a decoder started
// at its PSB as if the trace went on there; a chunk's output is used only
// where the decoder that reached that PSB from the start is in the same
// state (ptperf.Snap), else the chunk is decoded again in sequence. So the
// output is the sequential decode's, whatever the number of workers. This
// applies when every instruction is sampled and nothing else that keeps
// state across samples is asked for (--itrace=i0ns, i1i, with e: no
// branches, calls, power/PSB events, thread stacks, callchains, skips or
// Blocks), to per-thread queues of untimed recordings and, once every
// COMM/FORK/MMAP record has been processed, of timed ones (with an
// AUXTRACE index and no time range). Queues of untimed recordings are
// also decoded side by side. Handler.Runs alone (no samples, --itrace=e:
// what pprof and gcov ask for) decodes in chunks too, but for full runs of
// recordings with CYC packets (a run's cycles are not in the snapshot): a
// chunk's decoder fills its own run batches, handed over in order, and
// what it saw before its first run (the first walk, branch or trace end)
// resolves the run pending before the chunk. A thread's runs are the
// sequential decode's; only the batch boundaries may differ. The bare
// decode (--itrace=e: errors only) decodes in chunks too. Everything
// else decodes sequentially.
//
// # The edge-graph path
//
// Where no sample is made (Handler.Runs alone, or the bare decode), the
// walk follows each DSO's cache of straight-line runs as a graph of basic
// blocks (bulk.go, ptperf/bulk.go): TNT bits, direct branches, compressed
// returns and TIPs select the next block in one lookup each, many blocks
// per call, instead of one decoder state per branch. Its runs, errors and
// decoder states are the step-by-step walk's (TestBulkSameRuns,
// FuzzBulkSameRuns).
//
// Session.ParallelDecode says beforehand whether this can happen for a
// handler. The samples of chunks go to Handler.Sample on Run's goroutine, or, with
// Handler.Fork, to Segments on the workers (formatted there, emitted in
// order by Run's goroutine): the handler's own work then runs in
// parallel too.
//
// Machine exposes the replayed state (threads, maps, DSOs) for callers
// that resolve Block addresses themselves.
//
// Memory stays bounded: records stream from the mmapped file, AUX data is
// read in place, PT queues decode incrementally in time order, and the
// per-DSO instruction caches hold only code that was executed.
package session
