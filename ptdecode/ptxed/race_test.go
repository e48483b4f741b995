//go:build race

package ptxed

const raceEnabled = true
