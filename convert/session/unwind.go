package session

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/unwind"
	"github.com/perfpt/perfpt/perfdata"
)

// userUnwind holds what unwinding --call-graph dwarf samples needs across
// samples: the stepper's scratch state, the DSOs' unwind tables and data
// files, and the count of unwinds that stopped early, by reason.
type userUnwind struct {
	u     unwind.Unwinder
	regs  unwind.Regs
	ips   []uint64
	space machine.ThreadSpace
	stops map[string]int
}

// unwindUser appends the user frames of a sample with REGS_USER and
// STACK_USER to out, as perf's thread__resolve_callchain_unwind and
// unwind_entry do. ok is false when perf's callchain resolution fails
// for the sample (it then prints the sample without a chain).
func (s *Session) unwindUser(t *machine.Thread, r *perfdata.RecordSample, out []sample.Frame) (_ []sample.Frame, ok bool) {
	if r.RegsUserABI == 0 || len(r.StackUser) == 0 || r.StackUserDynSize == 0 {
		// "Bail out if nothing was captured."
		return out, true
	}
	if !t.Maps.CanUnwind() {
		// unwind__get_entries without unwind ops: no entries at all.
		return out, true
	}
	uw := &s.unw
	uw.regs.FromPerf(r.Attr.SampleRegsUser, r.RegsUser)
	uw.space = s.m.Space(t)
	ips, stop, ok := uw.u.Unwind(&uw.regs, unwind.Stack{Data: r.StackUser, DynSize: r.StackUserDynSize},
		&uw.space, s.m.MaxDepth(), uw.ips[:0])
	uw.ips = ips
	if stop != nil {
		uw.count(stop)
	}
	if !ok {
		return out, false
	}
	for _, ip := range ips {
		out = s.m.AppendFrame(out, ip, s.m.ResolveMode(t, false, ip))
	}
	return out, true
}

func (uw *userUnwind) count(err error) {
	if uw.stops == nil {
		uw.stops = map[string]int{}
	}
	uw.stops[err.Error()]++
}

// UnwindWarnings returns one line for each reason DWARF unwinds stopped
// before the end of a stack, with how often (perf stops silently there;
// we count, and perfpt script says it with -v).
func (s *Session) UnwindWarnings() []string {
	var out []string
	for why, n := range s.unw.stops {
		out = append(out, fmt.Sprintf("Warning: %d DWARF unwinds stopped early: %s", n, why))
	}
	sort.Strings(out)
	return out
}

// afterBranchStack are the sample fields that follow the branch stack.
const afterBranchStack = perfdata.SampleFormatRegsUser | perfdata.SampleFormatStackUser |
	perfdata.SampleFormatWeight | perfdata.SampleFormatWeightStruct | perfdata.SampleFormatDataSrc |
	perfdata.SampleFormatTransaction | perfdata.SampleFormatRegsIntr | perfdata.SampleFormatPhysAddr |
	perfdata.SampleFormatCgroup | perfdata.SampleFormatDataPageSize | perfdata.SampleFormatCodePageSize |
	perfdata.SampleFormatAux

// lbrFirst returns the branch entry resolve_lbr_callchain_sample takes
// the first target from: entries[0], or nil. With an empty stack perf
// still reads entries[0].to (its callee branch has no nr check): the bytes
// that follow the branch stack, which for a sample ending with it in a
// perf.data file are the next record's. perf is plainly wrong there; we
// match it where those bytes are in the file.
func (s *Session) lbrFirst(r *perfdata.RecordSample) *perfdata.BranchEntry {
	if len(r.BranchStack) > 0 {
		return &r.BranchStack[0]
	}
	if r.Compressed || r.Attr.SampleType&afterBranchStack != 0 {
		return nil
	}
	var b [16]byte
	if n, _ := s.f.ReaderAt().ReadAt(b[:], r.Offset+int64(r.Size)); n < 16 {
		return nil
	}
	s.lbrGhost = perfdata.BranchEntry{From: binary.LittleEndian.Uint64(b[:]), To: binary.LittleEndian.Uint64(b[8:])}
	return &s.lbrGhost
}

// atoi is C's atoi: leading blanks, a sign, the digits up to the first
// other byte; 0 when there are none.
func atoi(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	n := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9' && n < 1<<30; i++ {
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}
