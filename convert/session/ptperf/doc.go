// Package ptperf decodes Intel PT the way perf 6.1's intel-pt-decoder does,
// state by state, so that the samples perfpt synthesises from its states
// (branches, instructions, errors, transactions, PTWRITE, PSB, CBR and the
// other power events) match perf script's byte for byte: the same branch
// records, the same trace begin/end points, the same instruction counts,
// the same error codes at the same places and the same resynchronisation
// after them.
//
// Packets are read with ptdecode/packet; instructions are walked by the
// caller's Walker (which owns the process image), classified as perf
// classifies them (Classify).
//
// Cycles are counted as perf does (CYC packets, or an estimate from MTC and
// CBR without them) for IPC, and CYC packets refine timestamps.
//
// Not modelled: event trace (CFE/EVD), interrupt flag changes, PEBS-via-PT
// (BBP/BIP/BEP), emulated ptwrite, VMCS/VM time correlation and address
// filters.
package ptperf
