//go:build !race

package ptxed

const raceEnabled = false
