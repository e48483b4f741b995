package sample

// ErrorLine is a decoder error (PERF_RECORD_AUXTRACE_ERROR).
type ErrorLine struct {
	Type     uint32 // 1: instruction trace error
	Code     uint32
	CPU      int32
	PID, TID int32
	IP       uint64
	Time     uint64 // 0: printed as "time 0"
	HasTime  bool   // fmt >= 1
	Msg      string
}
