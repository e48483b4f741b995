//go:build race

package flow

// raceEnabled: the race detector slows decoding ~10x; tests use less trace.
const raceEnabled = true
