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
// Program.Report turns both into gcov's numbers. For a function built -O0
// it rebuilds the block graph gcc instrumented from the function's machine
// code (gccgraph.go: a block ends at each call that may not return, with a
// fake arc to the exit; the return block, fall-off blocks, goto and break
// blocks and switch dispatch as gcc 12 makes them; the copies of a
// scope's clobbers that jumps out of a scope of memory locals go through
// (tree-eh.cc's try/finally lowering); in C++ the exception
// arcs of .gcc_except_table's call sites into their landing pads, eh.go,
// for the calls gcc's front end had not found nothrow (calls.go), also
// those the final code has no call-site record for (their region's pad),
// the end of a temporary's lifetime after its destructor's call, and the
// cleanups of temporaries that live in memory: a block per temporary on
// the exception path of the calls in their lifetime, a call making one
// through its result pointer among them, and their clobbers after the
// full expression's last call, with no code).
// The trace gives each arc's count (jumps taken and not, calls that did not
// come back, landing-pad arrivals), and gcov's own rules (graphcount.go)
// give lines, '*' marks, exceptional blocks, branch and call records and
// blocks executed; functions starting on one line (C1/C2, D0/D2, template
// instances) get gcov's per-function sections. On the test programs
// every line's count and every call count are gcov's on every run, and
// the .gcov texts, plain, -b -c and -m, are gcov's for every C program
// and for the C++ programs shapes, stack, except, lambda and ledger;
// inventory, visitor, events and grid keep some -b -c records or
// blocks-executed figures of their own (TestUnseenProgramsO0's
// textAllowance; TestGccGraphShapes, over every C test set and the
// C++ programs among them: 836 of 1114 functions' graphs are gcc's,
// every C function's but four documented in knownShapeDiffs).
//
// FromRecording runs the whole pipeline on a perf.data file: the session
// (convert/session) decodes the Intel PT trace and delivers Blocks; an
// Aggregator maps each block to the ELF object it ran in (file offsets to
// virtual addresses) and feeds that object's Counts; objects without DWARF
// are skipped. The Report writes .gcov text (WriteText, gcov's stdout
// summary with WriteSummary), gcov JSON (WriteJSON, WriteJSONGz) and lcov
// (WriteLCOV).
//
// Optimised code (a compilation unit whose DW_AT_producer names -O1 or
// more) cannot be matched exactly: gcov counts gcc's CFG after early
// inlining and early optimisation, and the machine code is what the later
// passes made of it (tables for switches, cmov, rotated, peeled, unrolled
// and vectorised loops, duplicated tails); about 16% of gcov's lines with
// code leave no row in the traced binary's line table. For it the line
// model follows the line table's statements (optimized.go): an
// instruction belongs to the last is_stmt row at or before it (or its own
// row where jumps land), the statements of location views at its address
// are entered just before it, a line counts once per pass over a
// straight-line run, brace-only lines are not code, the declaration line
// counts the entries, a function's cold part counts as the function, and
// statements that left no row borrow a count from a neighbour
// (rowless.go). Where gcc's early passes (before the instrumentation) left
// no statement that the binary still has code for, the source decides,
// as gcc would: a constant assigned to a local scalar alone in a then
// branch is a PHI argument, `if (x < 0) x = -x;` and min/max idioms are
// one expression on the if's line, labels after the first of a run are
// one block; and gcc's implicit return gives a void function's closing
// brace the entries, a loop-carried declaration in the entry block the
// entry count, the declaration line of a function inlined after the
// instrumentation the inlined entries (rowless.go). The figures are in
// TestUnseenProgramsO2/O3 and TestFreshProgramsO2/O3 (programs written
// after this model, to measure it on code it was not tuned on). Function summaries of optimised code count
// the machine blocks (fnblocks.go).
//
// Cost: FromRecording has the decoder count edges (Handler.Agg with
// ptagg.Options.Edges: per thread, how often each block followed each
// other, counted by the session's edge-graph walk without making runs of
// the blocks) and builds the Counts from them at the end (AddEdges),
// resolving addresses with the maps the threads have then. On the five
// 120 M-instruction benchmark traces that halves the CPU of perfpt gcov -j 1
// against the lean run batches (Handler.Runs with LeanRuns, through
// Aggregator.Runs, whose fast path, threadCache.countRuns, costs about
// 2 ns per run: BenchmarkAggregatorRuns), with the same .gcov files; with
// more workers the chunks decoded ahead count their own edges, merged in
// order (ptagg.Agg.Merge).
// Handler.Block (in place, one call per run) costs more, and
// Handler.Blocks, which copies each Block into its batch, more still. The
// fixed cost is Load, which decodes every function with debug
// information, and the report over all of them:
// a few milliseconds for the test programs, about 300 ms for a generated
// 1.4 MB program of 3000 functions (BenchmarkLoadReportLarge: the graphs
// are rebuilt and counted), where it dominates a short recording.
package gcov
