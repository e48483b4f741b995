// Package traceevent prints tracepoint records as perf 6.1 prints them with
// its libtraceevent (tools/lib/traceevent, event-parse.c): each format's
// print fmt, parsed once by perfdata/tracing into an argument tree, is
// compiled here into a list of pieces (literal text and conversions, as
// libtraceevent's parse_args does) and evaluated per record without
// allocating beyond the output buffer.
//
//	tp := traceevent.New(data, resolver)   // data: *tracing.Data
//	buf = tp.Append(buf[:0], format, raw)  // raw: the sample's PERF_SAMPLE_RAW bytes
//
// Perf 6.1 as Debian ships it loads no libtraceevent plugins for perf
// script (checked with strace: it opens nothing under
// /usr/lib/traceevent/plugins), so the print fmt is what prints, for
// sched_switch too. Where libtraceevent cannot parse a format (an unknown
// helper such as jiffies_to_msecs, sizeof, a statement expression) it prints
// "[FAILED TO PARSE]" and every field raw; so does this package. Bad
// records (a dynamic field pointing outside the record, a field past its
// end) print what libtraceevent's bounds checks give, never panic.
package traceevent
