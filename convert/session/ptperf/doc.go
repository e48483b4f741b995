// Package ptperf decodes Intel PT the way perf 6.1's intel-pt-decoder does,
// state by state, so that the samples perfpt synthesises from its states
// (branches, instructions, errors, PSB and CBR events) match perf script's
// byte for byte: the same branch records, the same trace begin/end points,
// the same instruction counts, the same error codes at the same places and
// the same resynchronisation after them.
//
// Packets are read with ptdecode/packet; instructions are walked by the
// caller's Walker (which owns the process image), classified as perf
// classifies them (Classify).
//
// Not modelled: TSX, PTWRITE, power events (other than CBR), event trace,
// PEBS-via-PT, VMCS/VM time correlation, CYC-based timing and the quick
// (hop/leap) modes.
package ptperf
