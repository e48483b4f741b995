// Package record records perf.data files: natively with perf_event_open
// (record/native), or emulated by tracing a program under ptrace
// (record/ptrace) and synthesising the Intel PT packets intel_pt//u hardware
// would have written (record/synth).
//
// # Making an emulated Intel PT recording
//
//	res, err := record.Emulate(ctx, []string{"./prog", "arg"}, record.Options{
//		Output: "perf.data",
//		// Trace: ptrace.Options{Mode: ptrace.Step} to single-step; Stdout, Stderr, Env, Dir,
//		// OnInsn (every retired instruction), KeepASLR.
//		WriteOptions: record.WriteOptions{
//			PT: synth.Config{TSC: true, MTC: true, CYC: true}, // or NoRetComp, PSBPeriod, PTW, FUPOnPTW
//			BuildIDDir: "-", // do not save the vdso (tests)
//		},
//	})
//
// The file has what perf record -e intel_pt//u --per-thread writes: the
// intel_pt and dummy:u attrs with one id per thread, AUXTRACE_INFO with all
// the intel_pt private fields, TIME_CONV, COMM (exec), MMAP2 for every
// executable mapping, FORK/EXIT, ITRACE_START, AUX and AUXTRACE (one AUX
// stream per thread, buffers cut at packet boundaries), FINISHED_ROUND, and
// the header features (build ids, auxtrace index, event desc, cmdline, ...).
// perf script decodes it exactly (see record_test.go).
//
// The traced program may use PTWRITE and RTM (XBEGIN, XEND, XABORT, XTEST)
// even on CPUs without them: the tracer performs them (see record/ptrace),
// and the trace has their PTW (with PT.PTW, intel_pt/ptw/u; PT.FUPOnPTW for
// fup_on_ptw) and MODE.TSX packets, which perf script shows with
// --itrace=w and --itrace=x.
//
// Time is virtual: one TSC tick (= one nanosecond of perf time) per
// instruction, plus flow.KernelTicks per syscall or signal, starting at
// DefaultClockStart. Addresses are those of a run without ASLR.
//
// The [vdso] image is saved in perf's build-id cache layout
// (<dir>/[vdso]/<build id>/vdso and <dir>/.build-id/xx/<rest>), dir being
// WriteOptions.BuildIDDir, $PERF_BUILDID_DIR or ~/.debug, and listed in the
// BUILD_ID feature under "[vdso]". perf 6.1 itself decodes [vdso] code from
// a copy of its own process's vdso, which is right on the recording kernel.
//
// WriteTrace writes a perf.data from any flow.Trace (for instance one
// observed once and written with several packet configurations).
//
// # Native recording
//
// record/native records with perf_event_open: native.Record for software
// events (kernel and user space, call chains) and native.RecordPT for
// intel_pt, each for the command and its children, one thread
// (native.Target.PerThread), all CPUs or some (AllCPUs, CPUs), and
// intel_pt in snapshot mode (SIGUSR2). perfpt record picks between them.
package record
