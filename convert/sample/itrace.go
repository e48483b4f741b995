package sample

import (
	"fmt"
	"strconv"
)

// PeriodType is the unit of an instruction sampling period.
type PeriodType int

// Period types (PERF_ITRACE_PERIOD_*).
const (
	PeriodInstructions PeriodType = iota
	PeriodTicks
	PeriodNanosecs
)

// Itrace holds perf's itrace_synth_opts: which events to synthesise from
// an instruction trace and how.
type Itrace struct {
	Set                         bool // --itrace given
	DontDecode                  bool // --no-itrace
	Instructions, Branches      bool
	Transactions, Ptwrites      bool
	PwrEvents, OtherEvents      bool
	IntrEvents, Errors          bool
	Calls, Returns              bool
	Callchain, AddCallchain     bool
	LastBranch, AddLastBranch   bool
	Log                         bool
	FLC, LLC, TLB, Mem, Remote  bool
	ApproxIPC, TimelessDecoding bool
	ThreadStack                 bool
	Quick                       int
	Period                      uint64
	PeriodType                  PeriodType
	CallchainSz, LastBranchSz   int
	InitialSkip                 uint64
	ErrorPlusFlags              uint32
	ErrorMinusFlags             uint32
	LogPlusFlags, LogMinusFlags uint32
}

// Defaults of auxtrace.c.
const (
	defaultPeriod       = 100000
	defaultCallchainSz  = 16
	defaultLastBranchSz = 64
	maxCallchainSz      = 1024
	maxLastBranchSz     = 1024
)

// Error and log flags of --itrace=e and d (AUXTRACE_ERR_FLG_*, AUXTRACE_LOG_FLG_*).
const (
	ErrFlagOverflow = 1 << ('o' - 'a')
	ErrFlagDataLost = 1 << ('l' - 'a')
)

// SetDefault mirrors itrace_synth_opts__set_default. perf script passes
// noSample=true: calls and branches sampled on every instruction period.
func (o *Itrace) SetDefault(noSample bool) {
	o.Branches, o.Transactions, o.Ptwrites, o.PwrEvents = true, true, true, true
	o.OtherEvents, o.IntrEvents, o.Errors = true, true, true
	o.FLC, o.LLC, o.TLB, o.Mem, o.Remote = true, true, true, true, true
	if noSample {
		o.PeriodType = PeriodInstructions
		o.Period = 1
		o.Calls = true
	} else {
		o.Instructions = true
		o.PeriodType = PeriodNanosecs
		o.Period = defaultPeriod
	}
	o.CallchainSz = defaultCallchainSz
	o.LastBranchSz = defaultLastBranchSz
	o.InitialSkip = 0
}

// ParseItrace parses an --itrace argument like itrace_do_parse_synth_opts;
// an empty string means the option was given without a value (perf's
// defaults for perf script).
func ParseItrace(s string) (*Itrace, error) {
	o := &Itrace{Set: true}
	if s == "" {
		o.SetDefault(true)
		return o, nil
	}
	bad := fmt.Errorf("Bad Instruction Tracing options '%s'", s)
	periodSet, typeSet := false, false
	p := 0
	skipSep := func() {
		for p < len(s) && (s[p] == ' ' || s[p] == ',') {
			p++
		}
	}
	num := func() (uint64, bool) {
		q := p
		for q < len(s) && s[q] >= '0' && s[q] <= '9' {
			q++
		}
		if q == p {
			return 0, false
		}
		v, err := strconv.ParseUint(s[p:q], 10, 64)
		if err != nil {
			v = ^uint64(0) // strtoull saturates
		}
		p = q
		return v, true
	}
	isDigit := func() bool { return p < len(s) && s[p] >= '0' && s[p] <= '9' }
	for p < len(s) {
		c := s[p]
		p++
		switch c {
		case 'i':
			o.Instructions = true
			skipSep()
			if isDigit() {
				o.Period, _ = num()
				periodSet = true
				skipSep()
				if p >= len(s) {
					goto out
				}
				u := s[p]
				p++
				switch u {
				case 'i':
					o.PeriodType, typeSet = PeriodInstructions, true
				case 't':
					o.PeriodType, typeSet = PeriodTicks, true
				case 'm', 'u', 'n':
					if u == 'm' {
						o.Period *= 1000
					}
					if u == 'm' || u == 'u' {
						o.Period *= 1000
					}
					if p >= len(s) || s[p] != 's' {
						return nil, bad
					}
					p++
					o.PeriodType, typeSet = PeriodNanosecs, true
				default:
					return nil, bad
				}
			}
		case 'b':
			o.Branches = true
		case 'x':
			o.Transactions = true
		case 'w':
			o.Ptwrites = true
		case 'p':
			o.PwrEvents = true
		case 'o':
			o.OtherEvents = true
		case 'I':
			o.IntrEvents = true
		case 'e':
			o.Errors = true
			if !flags(s, &p, &o.ErrorPlusFlags, &o.ErrorMinusFlags) {
				return nil, bad
			}
		case 'd':
			o.Log = true
			if !flags(s, &p, &o.LogPlusFlags, &o.LogMinusFlags) {
				return nil, bad
			}
		case 'c':
			o.Branches, o.Calls = true, true
		case 'r':
			o.Branches, o.Returns = true, true
		case 'g', 'G':
			if c == 'G' {
				o.AddCallchain = true
			} else {
				o.Callchain = true
			}
			o.CallchainSz = defaultCallchainSz
			skipSep()
			if isDigit() {
				v, _ := num()
				if v == 0 || v > maxCallchainSz {
					return nil, bad
				}
				o.CallchainSz = int(v)
			}
		case 'l', 'L':
			if c == 'L' {
				o.AddLastBranch = true
			} else {
				o.LastBranch = true
			}
			o.LastBranchSz = defaultLastBranchSz
			skipSep()
			if isDigit() {
				v, _ := num()
				if v == 0 || v > maxLastBranchSz {
					return nil, bad
				}
				o.LastBranchSz = int(v)
			}
		case 's':
			v, ok := num()
			if !ok {
				return nil, bad
			}
			o.InitialSkip = v
		case 'f':
			o.FLC = true
		case 'm':
			o.LLC = true
		case 't':
			o.TLB = true
		case 'a':
			o.Remote = true
		case 'M':
			o.Mem = true
		case 'q':
			o.Quick++
		case 'A':
			o.ApproxIPC = true
		case 'Z':
			o.TimelessDecoding = true
		case ' ', ',':
		default:
			return nil, bad
		}
	}
out:
	if o.Instructions {
		if !typeSet {
			o.PeriodType = PeriodNanosecs
		}
		if !periodSet {
			o.Period = defaultPeriod
		}
	}
	return o, nil
}

// flags parses the +x/-x letters that may follow 'e' and 'd'
// (auxtrace.c get_flags): letter c sets bit c-'a'; spaces are skipped.
func flags(s string, p *int, plus, minus *uint32) bool {
	for *p < len(s) {
		switch s[*p] {
		case '+', '-':
			dst := plus
			if s[*p] == '-' {
				dst = minus
			}
			*p++
			for *p < len(s) && s[*p] == ' ' {
				*p++
			}
			if *p >= len(s) || s[*p] < 'a' || s[*p] > 'z' {
				return false
			}
			*dst |= 1 << (s[*p] - 'a')
			*p++
		case ' ':
			*p++
		default:
			return true
		}
	}
	return true
}
