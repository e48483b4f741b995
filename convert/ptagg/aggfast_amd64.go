package ptagg

import (
	"unsafe"
)

// fastRunsAsm says fastRuns is assembly, which the tests compare with
// fastRunsGo.
const fastRunsAsm = true

// fastRuns is fastRunsGo in assembly (aggfast_amd64.s).
//
//go:noescape
func fastRuns(s *fastState, runs []Run) int

// The assembly scales indexes by shifts: a blockRec is 64 bytes, a Run 32,
// an edge and a RunMark 16; RunTaken is bit fTakenBit (compile-time
// checks).
var (
	_ [unsafe.Sizeof(blockRec{}) - 64]byte
	_ [64 - unsafe.Sizeof(blockRec{})]byte
	_ [runSize - 32]byte
	_ [32 - runSize]byte
	_ [unsafe.Sizeof(edge{}) - 16]byte
	_ [16 - unsafe.Sizeof(edge{})]byte
	_ [markSize - 16]byte
	_ [16 - markSize]byte
	_ [RunTaken - 1<<fTakenBit]byte
	_ [1<<fTakenBit - RunTaken]byte
)
