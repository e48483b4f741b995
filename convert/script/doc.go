// Package script prints what perf script 6.1 prints, byte for byte.
//
// Options holds perf script's output selection: the -F field sets per event
// type (ParseFields understands "ip,sym", "+flags,-dso" and "hw:ip"), the
// --itrace options (ParseItrace) and the flags such as --ns. A Printer
// writes one line (or a callchain block) per Sample, using perf's exact
// column widths, and error lines for decoder errors. Samples come from
// convert/session, which resolves symbols and DSOs through convert/symbol.
package script
