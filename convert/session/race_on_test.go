//go:build race

package session_test

// raceOn: tests that run perf many times do fewer cases under -race.
const raceOn = true
