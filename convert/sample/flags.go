package sample

// Branch flags of a sample (PERF_IP_FLAG_*).
const (
	FlagBranch      = 1 << 0
	FlagCall        = 1 << 1
	FlagReturn      = 1 << 2
	FlagConditional = 1 << 3
	FlagSyscallRet  = 1 << 4
	FlagAsync       = 1 << 5
	FlagInterrupt   = 1 << 6
	FlagTxAbort     = 1 << 7
	FlagTraceBegin  = 1 << 8
	FlagTraceEnd    = 1 << 9
	FlagInTx        = 1 << 10
	FlagVMEntry     = 1 << 11
	FlagVMExit      = 1 << 12
	FlagIntrDisable = 1 << 13
	FlagIntrToggle  = 1 << 14
)
