package gcov

import "testing"

// optRound15Programs were written in round 15, after its first -O2 rule
// (inlineReturn) and before any other, to measure the -O2 model on code
// it was not made for: a recursive-descent calculator with || helpers in
// loop conditions, a switch on the operator in a loop, recursion through
// three functions, goto error paths and a ternary chain (expr.c); an
// inventory with a do-while over fields, a lookup loop, a qsort callback,
// a switch grouping first letters, max and clamp helpers and a loop with
// continue (stock.c).
var optRound15Programs = []string{"expr", "stock"}

// TestOptRound15ProgramsO0 is TestUnseenProgramsO0 on optRound15Programs.
func TestOptRound15ProgramsO0(t *testing.T) { o0Agreement(t, optRound15Programs) }

// optRound15O2Floor and optRound15O3Floor keep optRound15Programs'
// agreement from getting worse.
var optRound15O2Floor = map[string][2]int{"expr": {89, 78}, "stock": {96, 93}}

var optRound15O3Floor = map[string][2]int{"expr": {90, 79}, "stock": {98, 94}}

// TestOptRound15ProgramsO2 is TestUnseenProgramsO2 on optRound15Programs.
func TestOptRound15ProgramsO2(t *testing.T) {
	optimizedAgreement(t, optRound15Programs, "-O2", optRound15O2Floor)
}

// TestOptRound15ProgramsO3 is TestUnseenProgramsO3 on optRound15Programs.
func TestOptRound15ProgramsO3(t *testing.T) {
	optimizedAgreement(t, optRound15Programs, "-O3", optRound15O3Floor)
}
