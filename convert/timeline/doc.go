// Package timeline writes a recording as a timeline: every call of every
// thread as a slice over time, for Perfetto UI, chrome://tracing,
// speedscope or Firefox Profiler. It is perfpt timeline.
//
// # Formats
//
// Two writers take the same events (Writer): FXT, the Fuchsia trace format
// (fuchsia.dev, reference/tracing/trace-format; what magic-trace writes
// and Perfetto opens), and JSON, Chrome's Trace Event Format. Both build
// their records at the end of one buffer, with no allocation per event:
// strings are interned once (Strings) and each writer keeps its own
// encoding of them (a Fuchsia string-table index, a quoted JSON literal).
// Create picks the format by file name (.fxt, .json, optionally .gz).
// Package readback reads both back and checks them.
//
// # From Intel PT
//
// Convert opens the recording with convert/session and takes its runs
// (Handler.Runs, with RunStarts): per thread, a model of the call stack
// (thread.go) turns calls, returns, jumps, trace stops and starts into
// ops, which wait in the thread's clock until their time is known (emit.go)
// and then go through the output stage (output.go), which applies
// --min-duration, --max-depth and --time before the Writer.
//
//   - A call is a slice named by the symbol of its target (perf's name),
//     with the DSO and the source line ("src", file:line, when there is
//     debug information) as arguments; a return ends the frame whose call
//     it returns to (frames above it end as "unwind"). The End's category
//     says why a slice ended: return, unwind, tail, error, exec, end.
//   - A call begun before the trace (or before the last decode error) is
//     an inferred frame: a complete slice (category "inferred") from the
//     start of the thread's trace, each enclosing one starting 1 ns before
//     the one it encloses, written when it returns.
//   - Tail calls and PLT stubs (a jump out of the function) replace the
//     frame; a jump into a function further down the stack (longjmp)
//     unwinds to it.
//   - A syscall or an interrupt (a stop of the trace) is a slice of its
//     own until the trace resumes; resuming somewhere else (a signal
//     handler) begins a "signal" frame. In kernel traces, syscalls and
//     interrupts are calls with those categories.
//   - Decode errors are instants; the stack is rebuilt after them.
//   - Transactions are slices (category "transaction"), an abort marked by
//     an instant; CBR is a counter ("CPU frequency", MHz); PTWRITE and the
//     power events are instants.
//
// Timestamps come from the decoder (TSC, MTC and CYC, as perf computes
// them): the instructions between two timing points share the interval
// evenly, each event taking the time of its instruction; before a trace
// stop, whose time the runs do not carry, they take none. A recording
// without timestamps counts instructions. The recording's first time
// (minus a microsecond) is subtracted, so that viewers keep nanoseconds.
//
// # From sampled recordings
//
// Samples are instants on their thread's track, with the call stack as an
// argument; tracepoints are instants with their fields; context switches
// (SWITCH records, or sched:sched_switch samples) make a state track per
// thread: running on a CPU, runnable, sleeping.
//
// Memory stays bounded: the session streams, a thread's queue holds what
// happened since its last timing point (at most maxPending ops), and
// --min-duration's queue what happened within the minimum.
package timeline
