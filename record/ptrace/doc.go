// Package ptrace runs a command under ptrace and observes the exact
// user-space control flow of every thread it creates (threads, fork, vfork
// and exec followed; signals delivered and their handlers traced), as a
// flow.Trace.
//
// Two modes give the same flow. Step single-steps every instruction (about
// 33k instructions/s). Fast (the default) decodes the code from the
// process's memory with x86asm into blocks that end at the first conditional,
// indirect, return or syscall instruction (direct jumps and calls are
// followed), plants an INT3 on each such branch, lets the thread run to it,
// then emulates the branch (flags, registers, memory operands) to learn and
// apply its outcome; syscalls are observed with PTRACE_SYSCALL stops, and
// rare instructions (INT, UD2, far transfers) are single-stepped.
//
// Address-space layout randomisation is turned off for the command unless
// Options.KeepASLR is set, so two runs give the same addresses.
package ptrace
