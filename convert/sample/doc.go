// Package sample is the sample model that the session hands to every
// emitter (perf script text, pprof, gcov): Event (perf's evsel), Sample
// (perf_sample with its resolved addr_location), Loc and Frame, the
// branch flags (PERF_IP_FLAG_*), branch stacks, the payloads of the
// events synthesised from Intel PT (Synth), decoder errors (ErrorLine)
// and the --itrace options (Itrace, ParseItrace) that say which events a
// trace decoder synthesises.
//
// It holds data and the rules that belong to the data (which events
// correlate their address with a symbol); printing lives in
// convert/script, address resolution in convert/machine.
package sample
