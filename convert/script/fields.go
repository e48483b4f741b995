package script

import (
	"errors"
	"fmt"
	"strings"

	"github.com/perfpt/perfpt/convert/sample"
)

// Field is a bit of perf script's output field set (enum perf_output_field).
type Field uint64

// The output fields, in perf's bit order.
const (
	FieldComm Field = 1 << iota
	FieldTID
	FieldPID
	FieldTime
	FieldCPU
	FieldEvent
	FieldTrace
	FieldIP
	FieldSym
	FieldDSO
	FieldAddr
	FieldSymOff
	FieldSrcline
	FieldPeriod
	FieldIregs
	FieldBrstack
	FieldBrstacksym
	FieldDataSrc
	FieldWeight
	FieldBPFOutput
	FieldCallindent
	FieldInsn
	FieldInsnLen
	FieldBrstackinsn
	FieldBrstackoff
	FieldSynth
	FieldPhysAddr
	FieldUregs
	FieldMetric
	FieldMisc
	FieldSrccode
	FieldIPC
	FieldTOD
	FieldDataPageSize
	FieldCodePageSize
	FieldInsLat
	FieldBrstackinsnlen
	// machine_pid and vcpu print nothing: perf_sample__fprintf_start
	// prints them ("VM:%5d ", "VCPU:%03d ") only for a sample with a
	// machine_pid, which perf script never delivers (evlist__parse_sample
	// sets it only under perf kvm's perf_guest; PT guest-sideband samples
	// have a guest cpumode and are filtered, as perfpt's guestSample and
	// guestAt do).
	FieldMachinePID
	FieldVCPU
)

var fieldNames = []string{
	"comm", "tid", "pid", "time", "cpu", "event", "trace", "ip", "sym", "dso",
	"addr", "symoff", "srcline", "period", "iregs", "brstack", "brstacksym",
	"data_src", "weight", "bpf-output", "callindent", "insn", "insnlen",
	"brstackinsn", "brstackoff", "synth", "phys_addr", "uregs", "metric",
	"misc", "srccode", "ipc", "tod", "data_page_size", "code_page_size",
	"ins_lat", "brstackinsnlen", "machine_pid", "vcpu",
}

// OutputType is perf script's output class of an event: the attr type for
// the fixed PMU types, Synth for PERF_TYPE_SYNTH, Other for the rest.
type OutputType int

// Output types (perf's output[] index).
const (
	TypeHardware OutputType = iota
	TypeSoftware
	TypeTracepoint
	TypeHWCache
	TypeRaw
	TypeBreakpoint
	TypeSynth
	TypeOther
	numTypes
)

// OutputTypeOf maps a perf_event_attr type to its output class.
func OutputTypeOf(attrType uint32) OutputType {
	if attrType == sample.PerfTypeSynth {
		return TypeSynth
	}
	if attrType < 6 {
		return OutputType(attrType)
	}
	return TypeOther
}

// typeNames are the output types as perf's -F warnings name them
// (event_type in builtin-script.c): the types it has no name for are
// "unknown".
var typeNames = [numTypes]string{"hardware", "software", "tracepoint", "hardware-cache", "unknown", "unknown", "unknown", "unknown"}

const commonFields = FieldComm | FieldTID | FieldCPU | FieldTime | FieldEvent | FieldIP | FieldSym | FieldSymOff | FieldDSO

// output is one entry of perf's output[] table.
type output struct {
	userSet        bool
	wildcardSet    bool
	fields         Field
	invalid        Field
	userSetFields  Field
	userUnsetField Field
}

// Fields is perf script's per-type output selection (-F), starting from
// perf's defaults.
type Fields struct {
	out [numTypes]output
	// Flags is set by the pseudo-field "flags" (-F+flags).
	Flags bool
	// gen counts changes, so that printers know when their per-event
	// plans are stale.
	gen uint64
	// branchAny: some event records every branch
	// (evlist__combined_branch_type has PERF_SAMPLE_BRANCH_ANY).
	branchAny bool
}

// SetBranchAny says whether the events' combined branch sample type has
// PERF_SAMPLE_BRANCH_ANY, which brstackinsn needs (CheckAttr).
func (f *Fields) SetBranchAny(v bool) { f.branchAny = v }

// DefaultFields returns perf's default selection.
func DefaultFields() *Fields {
	f := &Fields{}
	f.out[TypeHardware] = output{fields: commonFields | FieldPeriod, invalid: FieldTrace | FieldBPFOutput}
	f.out[TypeSoftware] = output{fields: commonFields | FieldPeriod | FieldBPFOutput, invalid: FieldTrace}
	f.out[TypeTracepoint] = output{fields: FieldComm | FieldTID | FieldCPU | FieldTime | FieldEvent | FieldTrace}
	f.out[TypeHWCache] = output{fields: commonFields | FieldPeriod, invalid: FieldTrace | FieldBPFOutput}
	f.out[TypeRaw] = output{fields: commonFields | FieldPeriod | FieldAddr | FieldDataSrc | FieldWeight |
		FieldPhysAddr | FieldDataPageSize | FieldCodePageSize | FieldInsLat, invalid: FieldTrace | FieldBPFOutput}
	f.out[TypeBreakpoint] = output{fields: commonFields | FieldPeriod, invalid: FieldTrace | FieldBPFOutput}
	f.out[TypeSynth] = output{fields: commonFields | FieldSynth, invalid: FieldTrace | FieldBPFOutput}
	f.out[TypeOther] = output{fields: commonFields | FieldPeriod, invalid: FieldTrace | FieldBPFOutput}
	return f
}

// Of returns the fields printed for an output type.
func (f *Fields) Of(t OutputType) Field { return f.out[t].fields }

// Has reports whether type t prints field x.
func (f *Fields) Has(t OutputType, x Field) bool { return f.out[t].fields&x != 0 }

// UserSet reports whether -F changed the fields of type t.
func (f *Fields) UserSet(t OutputType) bool { return f.out[t].userSet }

// Demanded reports whether -F named type t and set none of its fields
// ("sw:"): perf_session__check_output_opt then wants an event of the
// type in the recording.
func (f *Fields) Demanded(t OutputType) bool { return f.out[t].userSet && !f.out[t].wildcardSet }

// TypeName is the name perf's messages give type t (event_type).
func TypeName(t OutputType) string { return typeNames[t] }

// UserSetField reports whether the user asked for field x of type t
// explicitly (with an untyped -F list or +field).
func (f *Fields) UserSetField(t OutputType, x Field) bool { return f.out[t].userSetFields&x != 0 }

// Remove drops a field from type t, as perf does for fields the event's
// sample_type lacks.
func (f *Fields) Remove(t OutputType, x Field) { f.gen++; f.out[t].fields &^= x }

// Add adds a field to type t (perf adds ip,sym,symoff,dso to tracepoints
// with callchains).
func (f *Fields) Add(t OutputType, x Field) { f.gen++; f.out[t].fields |= x }

// errBadMix is perf's refusal of an -F that mixes +field or -field with
// plain field names.
var errBadMix = errors.New("Cannot mix +-field with overridden fields")

// Parse applies one -F argument the way perf's parse_output_fields does,
// returning perf's warnings (printed by perf on stderr).
func (f *Fields) Parse(arg string) (warnings []string, err error) {
	f.gen++
	typ := -1
	tok := arg
	if i := strings.IndexByte(arg, ':'); i >= 0 {
		name := arg[:i]
		tok = arg[i+1:]
		switch name {
		case "hw":
			typ = int(TypeHardware)
		case "sw":
			typ = int(TypeSoftware)
		case "trace":
			typ = int(TypeTracepoint)
		case "raw":
			typ = int(TypeRaw)
		case "break":
			typ = int(TypeBreakpoint)
		case "synth":
			typ = int(TypeSynth)
		default:
			return nil, errors.New("Invalid event type in field string.")
		}
		if f.out[typ].userSet {
			warnings = append(warnings, fmt.Sprintf("Overriding previous field request for %s events.", typeNames[typ]))
		}
		if !strings.ContainsAny(tok, "+-") {
			f.out[typ].fields = 0
			f.out[typ].userSet = true
			f.out[typ].wildcardSet = false
		}
	} else {
		if arg == "" {
			return nil, errors.New("Cannot set fields to 'none' for all event types.")
		}
		if !strings.ContainsAny(arg, "+-") {
			for j := range f.out {
				if f.out[j].userSet {
					warnings = append(warnings, "Overriding previous field request for all events.")
					break
				}
			}
			for j := range f.out {
				f.out[j].fields = 0
				f.out[j].userSet = true
				f.out[j].wildcardSet = true
			}
		}
	}
	const (
		chDefault = iota
		chSet
		chAdd
		chRemove
	)
	change := chDefault
	for _, t := range strings.Split(tok, ",") {
		if t == "" {
			continue // strtok skips empty tokens
		}
		switch t[0] {
		case '+':
			if change == chSet {
				return warnings, errBadMix
			}
			change = chAdd
			t = t[1:]
		case '-':
			if change == chSet {
				return warnings, errBadMix
			}
			change = chRemove
			t = t[1:]
		default:
			if change != chSet && change != chDefault {
				return warnings, errBadMix
			}
			change = chSet
		}
		idx := -1
		for i, n := range fieldNames {
			if n == t {
				idx = i
				break
			}
		}
		if idx < 0 && t == "flags" {
			f.Flags = change != chRemove
			continue
		}
		if idx < 0 {
			return warnings, errors.New("Invalid field requested.")
		}
		bit := Field(1) << idx
		if typ == -1 {
			for j := range f.out {
				o := &f.out[j]
				if o.invalid&bit != 0 {
					warnings = append(warnings, fmt.Sprintf("'%s' not valid for %s events. Ignoring.", t, typeNames[j]))
					continue
				}
				if change == chRemove {
					o.fields &^= bit
					o.userSetFields &^= bit
					o.userUnsetField |= bit
				} else {
					o.fields |= bit
					o.userSetFields |= bit
					o.userUnsetField &^= bit
				}
				o.userSet = true
				o.wildcardSet = true
			}
		} else {
			o := &f.out[typ]
			if o.invalid&bit != 0 {
				return warnings, fmt.Errorf("'%s' not valid for %s events.", t, typeNames[typ])
			}
			if change == chRemove {
				o.fields &^= bit
			} else {
				o.fields |= bit
			}
			o.userSet = true
			o.wildcardSet = true
		}
	}
	return warnings, nil
}

// CheckAttr mirrors evsel__check_attr for the first event of an output
// type: default fields the event's samples cannot fill are dropped, and
// explicitly requested ones are an error (allowUserSet: the file has an
// AUXTRACE section, which lets addr, cpu and a few more through).
func (f *Fields) CheckAttr(e *sample.Event, allowUserSet bool) error {
	f.gen++
	t := OutputTypeOf(e.AttrType)
	o := &f.out[t]
	if e.AttrType == 1 && e.Config == 9 { // dummy
		return nil
	}
	check := func(bits uint64, msg string, x Field, allow bool) error {
		if o.fields&x == 0 || e.SampleType&bits != 0 {
			return nil
		}
		if o.userSetFields&x != 0 {
			if allow {
				return nil
			}
			return fmt.Errorf("Samples for '%s' event do not have %s attribute set. Cannot print '%s' field.", e.Name, msg, fieldNames[bitIndex(x)])
		}
		o.fields &^= x
		return nil
	}
	// evsel__check_attr, in its order.
	if err := check(sample.SampleIP, "IP", FieldIP, false); err != nil {
		return err
	}
	if err := check(sample.SampleAddr, "ADDR", FieldAddr, allowUserSet); err != nil {
		return err
	}
	if err := check(sample.SampleDataSrc, "DATA_SRC", FieldDataSrc, allowUserSet); err != nil {
		return err
	}
	if err := check(sample.SampleWeight|sample.SampleWeightStruct, "WEIGHT", FieldWeight, allowUserSet); err != nil {
		return err
	}
	if o.fields&FieldSym != 0 && e.SampleType&(sample.SampleIP|sample.SampleAddr) == 0 {
		return errors.New("Display of symbols requested but neither sample IP nor sample address\navailable. Hence, no addresses to convert to symbols.")
	}
	if o.fields&FieldSymOff != 0 && o.fields&FieldSym == 0 {
		return errors.New("Display of offsets requested but symbol is notselected.")
	}
	if o.fields&FieldDSO != 0 && e.SampleType&(sample.SampleIP|sample.SampleAddr) == 0 {
		return errors.New("Display of DSO requested but no address to convert.")
	}
	if o.fields&(FieldSrcline|FieldSrccode) != 0 && o.fields&FieldIP == 0 {
		return errors.New("Display of source line number requested but sample IP is not\nselected. Hence, no address to lookup the source line number.")
	}
	if o.fields&(FieldBrstackinsn|FieldBrstackinsnlen) != 0 && !allowUserSet && !f.branchAny {
		return errors.New("Display of branch stack assembler requested, but non all-branch filter set\nHint: run 'perf record -b ...'")
	}
	// perf checks pid and tid as one field, whose name output_field2str
	// does not find: ''.
	if o.fields&(FieldPID|FieldTID) != 0 && e.SampleType&sample.SampleTID == 0 {
		if o.userSetFields&(FieldPID|FieldTID) != 0 {
			return fmt.Errorf("Samples for '%s' event do not have TID attribute set. Cannot print '' field.", e.Name)
		}
		o.fields &^= FieldPID | FieldTID
	}
	for _, c := range []struct {
		bits  uint64
		msg   string
		x     Field
		allow bool
	}{
		{sample.SampleTime, "TIME", FieldTime, false},
		{sample.SampleCPU, "CPU", FieldCPU, allowUserSet},
		{sample.SampleRegsIntr, "IREGS", FieldIregs, allowUserSet},
		{sample.SampleRegsUser, "UREGS", FieldUregs, false},
		{sample.SamplePhysAddr, "PHYS_ADDR", FieldPhysAddr, allowUserSet},
		{sample.SampleDataPageSize, "DATA_PAGE_SIZE", FieldDataPageSize, false},
		{sample.SampleCodePageSize, "CODE_PAGE_SIZE", FieldCodePageSize, false},
		{sample.SampleWeightStruct, "WEIGHT_STRUCT", FieldInsLat, false},
	} {
		if err := check(c.bits, c.msg, c.x, c.allow); err != nil {
			return err
		}
	}
	return nil
}

func bitIndex(x Field) int {
	for i := 0; i < 64; i++ {
		if x&(1<<i) != 0 {
			return i
		}
	}
	return 0
}

// EnableCallchainFields mirrors process_attr: with callchains, ip and sym
// are printed unless the user removed them.
func (f *Fields) EnableCallchainFields(t OutputType) {
	f.gen++
	o := &f.out[t]
	if o.userUnsetField&FieldIP == 0 {
		o.fields |= FieldIP
	}
	if o.userUnsetField&FieldSym == 0 {
		o.fields |= FieldSym
	}
}
