package gcov

import "testing"

// optRound11Programs were written in round 11 for the -O2 line model,
// one construct each: conditions continued on the next line whose later
// operand calls an inlined function (operand.c); switches whose cases
// return constants, by compare tree, by table, after a case that does
// not return, with the default in the middle, on enumerators (codes.c);
// switches with cases that only break (breaks.c); error paths left by a
// goto that is the whole then branch of an if (errpath.c).
var optRound11Programs = []string{"operand", "codes", "breaks", "errpath"}

// optRound11O2Floor and optRound11O3Floor keep optRound11Programs'
// agreement from getting worse.
var optRound11O2Floor = map[string][2]int{"operand": {74, 55}, "codes": {97, 86}, "breaks": {98, 93}, "errpath": {92, 87}}

var optRound11O3Floor = map[string][2]int{"operand": {71, 50}, "codes": {72, 62}, "breaks": {87, 83}, "errpath": {92, 87}}

// TestOptRound11ProgramsO0 is TestUnseenProgramsO0 on optRound11Programs.
func TestOptRound11ProgramsO0(t *testing.T) { o0Agreement(t, optRound11Programs) }

// TestOptRound11ProgramsO2 is TestUnseenProgramsO2 on optRound11Programs.
func TestOptRound11ProgramsO2(t *testing.T) {
	optimizedAgreement(t, optRound11Programs, "-O2", optRound11O2Floor)
}

// TestOptRound11ProgramsO3 is TestUnseenProgramsO3 on optRound11Programs.
func TestOptRound11ProgramsO3(t *testing.T) {
	optimizedAgreement(t, optRound11Programs, "-O3", optRound11O3Floor)
}
