package gcov

import "testing"

// optRound13Programs were written in round 13, before its -O2 rules, to
// measure them on code they were not made for: helpers called inside
// statements and declarations, if-chains and else-if chains of constant
// returns, a switch on an enum whose cases only pick a value, case ranges
// (units.c); declarations initialised from inlined helpers, an else-if
// chain over character kinds, a switch with the default first, a loop
// condition calling a helper (rle.c); a switch of grouped month cases,
// leap years as an if-chain, a return of && operands over several lines
// with a call, a helper inlined into a loop (calendar.c).
var optRound13Programs = []string{"units", "rle", "calendar"}

// TestOptRound13ProgramsO0 is TestUnseenProgramsO0 on optRound13Programs.
func TestOptRound13ProgramsO0(t *testing.T) { o0Agreement(t, optRound13Programs) }

// optRound13O2Floor and optRound13O3Floor keep optRound13Programs'
// agreement from getting worse.
var optRound13O2Floor = map[string][2]int{"units": {97, 89}, "rle": {91, 81}, "calendar": {86, 73}}

var optRound13O3Floor = map[string][2]int{"units": {97, 88}, "rle": {93, 81}, "calendar": {88, 61}}

// TestOptRound13ProgramsO2 is TestUnseenProgramsO2 on optRound13Programs.
func TestOptRound13ProgramsO2(t *testing.T) {
	optimizedAgreement(t, optRound13Programs, "-O2", optRound13O2Floor)
}

// TestOptRound13ProgramsO3 is TestUnseenProgramsO3 on optRound13Programs.
func TestOptRound13ProgramsO3(t *testing.T) {
	optimizedAgreement(t, optRound13Programs, "-O3", optRound13O3Floor)
}
