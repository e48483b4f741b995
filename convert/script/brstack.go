package script

import (
	"strconv"

	"github.com/perfpt/perfpt/convert/sample"
)

// brstack mirrors perf_sample__fprintf_brstack (sym false) and
// perf_sample__fprintf_brstacksym (sym true) of perf 6.1: per entry
// " 0xFROM(dso)/0xTO(dso)" or "from_sym+0xoff(dso)/to_sym+0xoff(dso)",
// then the flags "/P/X/A/cycles/type ".
func (p *Printer) brstack(b []byte, s *sample.Sample, sym bool) []byte {
	dso := p.has(FieldDSO)
	var tmp sample.Loc
	for i := range s.BranchStack {
		e := &s.BranchStack[i]
		if sym {
			b = symName(b, branchLoc(s, i, 0, &tmp), true)
			if dso {
				b = appendParenDSO(b, branchLoc(s, i, 0, &tmp), p.o.PadDSO)
			}
			b = append(b, '/')
			b = symName(b, branchLoc(s, i, 1, &tmp), true)
			if dso {
				b = appendParenDSO(b, branchLoc(s, i, 1, &tmp), p.o.PadDSO)
			}
		} else {
			b = append(b, " 0x"...)
			b = strconv.AppendUint(b, e.From, 16)
			if dso {
				b = appendParenDSO(b, branchLoc(s, i, 0, &tmp), p.o.PadDSO)
			}
			b = append(b, "/0x"...)
			b = strconv.AppendUint(b, e.To, 16)
			if dso {
				b = appendParenDSO(b, branchLoc(s, i, 1, &tmp), p.o.PadDSO)
			}
		}
		b = appendBstackFlags(b, e)
	}
	return b
}

// brstackoff mirrors perf_sample__fprintf_brstackoff of perf 6.1: per
// entry " 0xFROM(dso)/0xTO(dso)" and the flags, each address as an offset
// in its map's DSO (map__map_ip) when it has a map whose DSO's symbols
// are not adjusted (dso->adjust_symbols: machine.Map.BranchOffset), else
// as it is.
func (p *Printer) brstackoff(b []byte, s *sample.Sample) []byte {
	dso := p.has(FieldDSO)
	var tmp sample.Loc
	for i := range s.BranchStack {
		e := &s.BranchStack[i]
		b = append(b, " 0x"...)
		l := branchLoc(s, i, 0, &tmp)
		b = strconv.AppendUint(b, dsoOffset(e.From, l), 16)
		if dso {
			b = appendParenDSO(b, l, p.o.PadDSO)
		}
		b = append(b, "/0x"...)
		l = branchLoc(s, i, 1, &tmp)
		b = strconv.AppendUint(b, dsoOffset(e.To, l), 16)
		if dso {
			b = appendParenDSO(b, l, p.o.PadDSO)
		}
		b = appendBstackFlags(b, e)
	}
	return b
}

// branchOffsetter is what a Loc's map knows of brstackoff's addresses
// (machine.Map implements it).
type branchOffsetter interface{ BranchOffset(addr uint64) uint64 }

// dsoOffset is brstackoff's address: the map's answer when l has a map,
// else addr.
func dsoOffset(addr uint64, l *sample.Loc) uint64 {
	if !l.HasMap {
		return addr
	}
	if o, ok := l.Ref.(branchOffsetter); ok {
		return o.BranchOffset(addr)
	}
	return l.Addr
}

// branchLoc returns the location of entry i's From (end 0) or To (end
// 1): pre-resolved, or asked of the Resolver (thread__find_symbol_fb),
// or none.
func branchLoc(s *sample.Sample, i, end int, tmp *sample.Loc) *sample.Loc {
	if k := 2*i + end; k < len(s.BranchLocs) {
		return &s.BranchLocs[k]
	}
	*tmp = sample.Loc{}
	if s.Res != nil {
		addr := s.BranchStack[i].From
		if end == 1 {
			addr = s.BranchStack[i].To
		}
		*tmp = s.Res.ResolveAddr(addr)
	}
	return tmp
}

func appendParenDSO(b []byte, l *sample.Loc, pad int) []byte {
	b = append(b, '(')
	b = dsoName(b, l, pad)
	return append(b, ')')
}

// appendBstackFlags mirrors print_bstack_flags: "/%c/%c/%c/%d/%s ".
func appendBstackFlags(b []byte, e *sample.BranchEntry) []byte {
	pred := byte('-')
	if e.Mispred || e.Predicted {
		pred = 'M'
		if e.Predicted {
			pred = 'P'
		}
	}
	tx, abort := byte('-'), byte('-')
	if e.InTx {
		tx = 'X'
	}
	if e.Abort {
		abort = 'A'
	}
	b = append(b, '/', pred, '/', tx, '/', abort, '/')
	b = strconv.AppendUint(b, uint64(e.Cycles), 10)
	b = append(b, '/')
	b = append(b, branchTypeName(e)...)
	return append(b, ' ')
}

// Branch type names of perf 6.1 (branch_type_name, branch_new_type_name).
var (
	branchTypeNames = [...]string{"N/A", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL",
		"SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", ""}
	branchNewTypeNames = [...]string{"FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1", "ARCH_2",
		"ARCH_3", "ARCH_4", "ARCH_5"}
)

const branchExtendABI = 15

// branchTypeName mirrors get_branch_type: "" for an unknown type; glibc
// prints a NULL name as "(null)".
func branchTypeName(e *sample.BranchEntry) string {
	switch {
	case e.Type == 0:
		return ""
	case e.Type == branchExtendABI:
		if int(e.NewType) < len(branchNewTypeNames) {
			return branchNewTypeNames[e.NewType]
		}
		return "(null)"
	case int(e.Type) < len(branchTypeNames):
		return branchTypeNames[e.Type]
	}
	return "(null)"
}
