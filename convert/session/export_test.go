package session

// For the tests of package session_test (perf comparisons through the
// runner, which imports this package).
var (
	RecordPTOpt  = recordPTOpt
	RecordPTArgs = recordPTArgs
	CorruptAux   = corruptAux
)
