// Package tracing reads the tracing data that perf record stores for
// tracepoint and probe events (the HEADER_TRACING_DATA feature section in
// file mode, PERF_RECORD_HEADER_TRACING_DATA in pipe mode) and parses the
// ftrace format files it carries, as perf 6.1 (util/trace-event-read.c) and
// its libtraceevent (event-parse.c) do:
//
//	d, err := tracing.Parse(b)           // the section's bytes
//	f := d.Event(id)                     // by attr.config of a tracepoint
//	fmt.Println(f.System, f.Name, f.Fields, f.PrintFmt)
//
// A format's print fmt is parsed once into an argument tree (Arg) with
// libtraceevent's grammar, quirks included; package convert/traceevent
// evaluates it per record. A format whose fields or print fmt cannot be
// parsed keeps the error in Format.Err (libtraceevent's "failed" event:
// perf prints "[FAILED TO PARSE]" and the raw fields), and the other
// formats are read on. Bad framing of the section itself yields an *Error
// with the offset, wrapping ErrTruncated or ErrBadValue.
package tracing
