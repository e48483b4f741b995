// Package convert turns decoded traces into what people use: perf script
// text, pprof profiles and gcov coverage.
package convert
