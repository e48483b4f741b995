package gcov

import "testing"

// o0Round12Programs are round 11's programs in the forms that first showed
// -O0 differences: an outer while whose body starts with an inner while
// (operandwhile.c), a case that only breaks before the default of a switch
// in a loop (codesbreak.c), and a struct local of a for body passed by
// address and left by continue (errpathscope.c).
var o0Round12Programs = []string{"operandwhile", "codesbreak", "errpathscope"}

// TestRound12ProgramsO0 is TestUnseenProgramsO0 on o0Round12Programs.
func TestRound12ProgramsO0(t *testing.T) { o0Agreement(t, o0Round12Programs) }
