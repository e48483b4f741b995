// Package gcov computes gcov-compatible line, branch, call and function
// coverage of a program from its executed control flow (an Intel PT trace)
// and its DWARF line table, with no instrumentation, and writes it as GCC
// 12's .gcov text, gcov's JSON intermediate format (format_version 1) and
// lcov tracefiles.
//
// The static side is a Program (Load): the decoded code of every function
// with debug information and, for each instruction, the source line gcov
// would give it (the prologue on the function's name line; a closing brace
// that holds only the epilogue is not a line with code, as with gcc 12 at
// -O0). The dynamic side is Counts: a decoder feeds it, per thread and in
// execution order, straight-line runs of instructions (Run), and it keeps
// only counts per distinct run and per run-to-run edge.
//
// Program.Report turns both into gcov's numbers: a line's count is the
// number of times control entered it from another line, where the return
// from a call counts as coming from the call's line, plus the backward
// jumps that stay on the line (loops entirely inside the line). Label-only
// lines (case X:, default:, name:) count the arrivals at the code after
// them; a switch line is one block (no '*'), and its -b branches are one per
// case target, as gcc's switch edges.
//
// FromRecording runs the whole pipeline on a perf.data file: the session
// (convert/session) decodes the Intel PT trace and delivers Blocks; an
// Aggregator maps each block to the ELF object it ran in (file offsets to
// virtual addresses) and feeds that object's Counts; objects without DWARF
// are skipped. The Report writes .gcov text (WriteText, gcov's stdout
// summary with WriteSummary), gcov JSON (WriteJSON, WriteJSONGz) and lcov
// (WriteLCOV).
//
// The rules are gcc 12's at -O0, where the tests find gcov's numbers on every
// line. Optimised code (a compilation unit whose DW_AT_producer names -O1 or
// more) cannot be matched exactly: gcov counts gcc's CFG before inlining,
// unrolling, vectorisation and if-conversion, and the machine code is what
// the trace shows. For it the line model follows the line table's
// statements (optimized.go): an instruction belongs to the last is_stmt row
// at or before it (or its own row where jumps land), the statements of
// location views at its address are entered just before it, a line counts
// once per pass over a straight-line run, brace-only lines are not code,
// the declaration line counts the entries, and statements that left no row
// borrow a count from a neighbour (rowless.go). On the test programs built
// -O2 (TestO2Agreement) 95% of lines agree with gcov on executed/never/no
// code and 76% on the exact count; call counts differ where gcc turned
// recursion into loops or folded calls at compile time.
//
// Function summaries count gcc's basic blocks at -O0 (fnblocks.go): the
// machine blocks, one block more after each call that may not return and
// for a return that falls into the epilogue, and a switch dispatch as one
// block; empty GIMPLE blocks (an empty else, a label before a jump) have no
// instructions and are missed. For optimised code the machine blocks are
// counted as they are.
//
// Cost: FromRecording takes the session's runs in lean batches
// (Handler.Runs with LeanRuns: 32-byte runs of one thread written in
// place, no times, cycles or successors), through Aggregator.Runs. Its
// fast path (threadCache.countRuns) is the same thread in the same
// segment of a tracked object, and one of the previous run's two inline
// successors again, with the thread's current run kept in a register:
// about 2 ns per run (BenchmarkAggregatorRuns). On a 27.5 M-instruction
// -O0 recording (5.85 M runs) the delivery costs about 7% of a bare decode
// and FromRecording about 1.12x (BenchmarkBareDecode, BenchmarkRunDelivery,
// BenchmarkFromRecording, interleaved). Handler.Block (in place, one call
// per run) costs more, and Handler.Blocks, which copies each Block into
// its batch, more still. The fixed cost is Load, which decodes every
// function with debug information, and the report over all of them:
// under a millisecond for the test programs, about 180 ms for a generated
// 1.4 MB program of 3000 functions, where it dominates a short recording.
package gcov
