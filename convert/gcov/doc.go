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
// line; optimised code gets the same treatment, which does not reproduce
// gcov's -O2 output (gcov counts the source-level CFG before inlining and
// unrolling).
package gcov
