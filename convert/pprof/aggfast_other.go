//go:build !amd64

package pprof

import "github.com/perfpt/perfpt/convert/session"

// fastRunsAsm is false: the assembly is amd64's.
const fastRunsAsm = false

// fastRuns is fastRunsGo: the assembly is amd64's.
func fastRuns(s *fastState, runs []session.Run) int { return fastRunsGo(s, runs) }
