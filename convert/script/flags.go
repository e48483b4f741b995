package script

import "fmt"

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

const flagChars = "bcrosyiABExghDt"

var flagNames = []struct {
	flags uint32
	name  string
}{
	{FlagBranch | FlagCall, "call"},
	{FlagBranch | FlagReturn, "return"},
	{FlagBranch | FlagConditional, "jcc"},
	{FlagBranch, "jmp"},
	{FlagBranch | FlagCall | FlagInterrupt, "int"},
	{FlagBranch | FlagReturn | FlagInterrupt, "iret"},
	{FlagBranch | FlagCall | FlagSyscallRet, "syscall"},
	{FlagBranch | FlagReturn | FlagSyscallRet, "sysret"},
	{FlagBranch | FlagAsync, "async"},
	{FlagBranch | FlagCall | FlagAsync | FlagInterrupt, "hw int"},
	{FlagBranch | FlagTxAbort, "tx abrt"},
	{FlagBranch | FlagTraceBegin, "tr strt"},
	{FlagBranch | FlagTraceEnd, "tr end"},
	{FlagBranch | FlagCall | FlagVMEntry, "vmentry"},
	{FlagBranch | FlagCall | FlagVMExit, "vmexit"},
}

func flagName(f uint32) string {
	for _, n := range flagNames {
		if n.flags == f {
			return n.name
		}
	}
	return ""
}

// FlagsString mirrors perf_sample__sprintf_flags.
func FlagsString(flags uint32) string {
	const xf = FlagInTx | FlagIntrDisable | FlagIntrToggle
	xs := ""
	if flags&xf != 0 {
		xs = "("
		if flags&FlagInTx != 0 {
			xs += "x"
		}
		if flags&FlagIntrDisable != 0 {
			xs += "D"
		}
		if flags&FlagIntrToggle != 0 {
			xs += "t"
		}
		xs += ")"
	}
	if n := flagName(flags &^ xf); n != "" {
		return fmt.Sprintf("%-15s%6s", n, xs)
	}
	if flags&FlagTraceBegin != 0 {
		if n := flagName(flags &^ (xf | FlagTraceBegin)); n != "" {
			return fmt.Sprintf("tr strt %-7s%6s", n, xs)
		}
	}
	if flags&FlagTraceEnd != 0 {
		if n := flagName(flags &^ (xf | FlagTraceEnd)); n != "" {
			return fmt.Sprintf("tr end  %-7s%6s", n, xs)
		}
	}
	var b []byte
	f := flags
	for i := 0; i < 32; i, f = i+1, f>>1 {
		if f&1 == 0 {
			continue
		}
		if i < len(flagChars) {
			b = append(b, flagChars[i])
		} else {
			b = append(b, '?')
		}
	}
	return string(b)
}
