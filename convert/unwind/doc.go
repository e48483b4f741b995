// Package unwind unwinds user-space stacks from the registers and the
// stack dump a sample carries (perf record --call-graph dwarf), as perf
// 6.1 does with libunwind (util/unwind-libunwind-local.c over libunwind
// 1.6.2's x86_64 unwinder).
//
// It keeps elfutils' split between "where is the module and its CFI" and
// "step one frame":
//
//   - A Table is one DSO's call frame information: .eh_frame found through
//     .eh_frame_hdr's binary-search table, and .debug_frame (from the file
//     itself, its symbol file or its .gnu_debuglink file), parsed lazily
//     from the section bytes. Tables are immutable once loaded; a Cache
//     keeps them per build id (or path).
//   - An Unwinder steps frames: it reads registers from a Regs (perf's
//     sample registers mapped to DWARF numbers) and memory from the stack
//     dump, or, outside the dump, through a Space (the thread's maps and
//     the files behind them), finds each pc's Table through the Space and
//     applies the CFA and register rules, DWARF expressions included.
//
// Where libunwind and perf differ from the DWARF standard, the stepper
// follows them, and says so where it does: the caller pc is looked up at
// the return address minus one unless the frame stepped from is a signal
// frame (CIE augmentation "S"), reading the stack pointer gives the
// previous CFA, a missing FDE falls back to the PLT and frame-pointer
// heuristics of libunwind's unw_step, the stop rules are libunwind's (an
// undefined return address or rbp, an unchanged ip and CFA, a read
// outside every map), and a read inside a map that the file cannot
// satisfy gives 0 without failing (perf's access_dso_mem).
//
// Hostile input never panics, loops or allocates without bound: CFI and
// expression programs are read through bounds-checked cursors, the
// remember-state stack and the expression stack have fixed depths,
// expression branches are bounded by a step budget (libunwind has none:
// a backward DW_OP_skip hangs it), and an unwind is bounded by the
// caller's frame limit. Steady-state unwinding allocates nothing.
//
// # Why not delve's pkg/dwarf/frame and pkg/dwarf/op
//
// github.com/go-delve/delve v1.27.2 (MIT) is on the module proxy and its
// frame package parses CIEs and FDEs and interprets CFA programs, and op
// evaluates DWARF expressions. We evaluated them and wrote our own:
// frame.Parse parses a whole section eagerly into a slice of
// heap-allocated FDEs (no use of .eh_frame_hdr), its interpreter panics on
// a truncated instruction stream ("Could not read byte" in advanceloc,
// offset, restore), keeps rules in a map[uint64]DWRule allocated per
// frame, reads operands with binary.Read (reflection, allocation), and
// does not support 64-bit DWARF; op allocates a context, a bytes.Buffer
// and a stack per evaluation. None of that fits an unwinder that must not
// panic on hostile CFI and must not allocate per frame, and libunwind's
// own quirks (above) would have needed a rewrite of the interpreter anyway.
package unwind
