package script

import (
	"fmt"

	"github.com/perfpt/perfpt/convert/sample"
)

const flagChars = "bcrosyiABExghDt"

var flagNames = []struct {
	flags uint32
	name  string
}{
	{sample.FlagBranch | sample.FlagCall, "call"},
	{sample.FlagBranch | sample.FlagReturn, "return"},
	{sample.FlagBranch | sample.FlagConditional, "jcc"},
	{sample.FlagBranch, "jmp"},
	{sample.FlagBranch | sample.FlagCall | sample.FlagInterrupt, "int"},
	{sample.FlagBranch | sample.FlagReturn | sample.FlagInterrupt, "iret"},
	{sample.FlagBranch | sample.FlagCall | sample.FlagSyscallRet, "syscall"},
	{sample.FlagBranch | sample.FlagReturn | sample.FlagSyscallRet, "sysret"},
	{sample.FlagBranch | sample.FlagAsync, "async"},
	{sample.FlagBranch | sample.FlagCall | sample.FlagAsync | sample.FlagInterrupt, "hw int"},
	{sample.FlagBranch | sample.FlagTxAbort, "tx abrt"},
	{sample.FlagBranch | sample.FlagTraceBegin, "tr strt"},
	{sample.FlagBranch | sample.FlagTraceEnd, "tr end"},
	{sample.FlagBranch | sample.FlagCall | sample.FlagVMEntry, "vmentry"},
	{sample.FlagBranch | sample.FlagCall | sample.FlagVMExit, "vmexit"},
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
	const xf = sample.FlagInTx | sample.FlagIntrDisable | sample.FlagIntrToggle
	xs := ""
	if flags&xf != 0 {
		xs = "("
		if flags&sample.FlagInTx != 0 {
			xs += "x"
		}
		if flags&sample.FlagIntrDisable != 0 {
			xs += "D"
		}
		if flags&sample.FlagIntrToggle != 0 {
			xs += "t"
		}
		xs += ")"
	}
	if n := flagName(flags &^ xf); n != "" {
		return fmt.Sprintf("%-15s%6s", n, xs)
	}
	if flags&sample.FlagTraceBegin != 0 {
		if n := flagName(flags &^ (xf | sample.FlagTraceBegin)); n != "" {
			return fmt.Sprintf("tr strt %-7s%6s", n, xs)
		}
	}
	if flags&sample.FlagTraceEnd != 0 {
		if n := flagName(flags &^ (xf | sample.FlagTraceEnd)); n != "" {
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
