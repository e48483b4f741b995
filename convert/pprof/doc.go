// Package pprof writes pprof profiles (github.com/google/pprof/profile) from
// perf.data recordings.
//
// From sampled recordings (cpu-clock, cycles or any event, with or without
// -g call chains) every sample is weighted like perf_data_converter does:
// two values per event, `<event>_sample/count` (1 per sample) and
// `<event>_event/count` (the sample's period). From Intel PT recordings the
// values are exact counts, `instructions/count` and `branches/count`,
// aggregated per basic block while the trace is decoded, with the call
// stack each thread had at the time.
//
// Locations carry their runtime address and mapping (file, offset, build
// id); functions and lines come from DWARF through convert/srcline,
// inlined frames included, and from the ELF symbol table where there is no
// debug information. Samples carry the labels pid, tid and comm.
//
// Every profile passes profile.CheckValid before it is written.
package pprof
