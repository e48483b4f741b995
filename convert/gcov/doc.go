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
// jumps that stay on the line (loops entirely inside the line).
package gcov
