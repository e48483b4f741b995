// Package perftext prints perf.data files as text the way perf does:
// Dump lists every record like `perf report -D`, Header prints the header
// and feature sections like `perf report --header-only`.
package perftext
