// Package perfdata reads and writes Linux perf.data files (file and pipe
// mode) as perf 6.x writes them: attributes, records, the AUX trace data and
// the header feature sections.
package perfdata
