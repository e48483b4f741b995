//go:build !amd64

package ptagg

// fastRunsAsm is false: the assembly is amd64's.
const fastRunsAsm = false

// fastRuns is fastRunsGo: the assembly is amd64's.
func fastRuns(s *fastState, runs []Run) int { return fastRunsGo(s, runs) }
