package script

import "github.com/perfpt/perfpt/convert/sample"

// plan is what printing a sample of one event needs that does not change
// from sample to sample: worked out once per event, and again when the
// field selection or the callchain setting changes.
type plan struct {
	ev       *sample.Event
	gen      uint64 // the Fields generation it was made for
	f        Field
	opts     int  // ipOpts of the output type
	addrOpts int  // what addr prints after the address: sym, symoff, dso
	start    bool // some column of perf_sample__fprintf_start is printed
	commRaw  bool // comm printed unpadded (with callchains)
	bts      bool // printed by perf_sample__fprintf_bts
	btsAddr  bool // bts: " => addr" printed
	synth    bool // the synth payload is printed
	addrCorr bool // the address correlates with a symbol
	// line: nothing but the IP changes the line while the thread and
	// the symbol stay (see lineText).
	line bool
	// ipRun: Print prints the start, period and event name, then the IP
	// with its symbol (and offset) and DSO, nothing else (PrintIPs).
	ipRun bool
	name  string
}

// noPlan is the printer's last plan before it has one, and after its
// callchain setting changes: the plan of no event.
var noPlan plan

// planOf returns the plan of ev: the last one used while it is still
// good (the same event, and the field selection unchanged since: p.pl is
// set to noPlan when the callchain setting changes), else planFor's. It
// is inlined where each sample is printed: go build -gcflags=-m=2 gives
// it a cost of 79, under the budget of 80 (a local for p.pl costs 83).
func (p *Printer) planOf(ev *sample.Event) *plan {
	if p.pl.ev == ev && p.pl.gen == p.o.Fields.gen {
		return p.pl
	}
	return p.planFor(ev)
}

// planFor returns the plan of ev, making it when needed.
func (p *Printer) planFor(ev *sample.Event) *plan {
	if p.gen != p.o.Fields.gen || p.cc != p.o.UseCallchain {
		// Stale: start again, and forget the texts that were keyed on
		// the old plans.
		p.plans = p.plans[:0]
		p.gen, p.cc = p.o.Fields.gen, p.o.UseCallchain
		p.startText = startText{text: p.startText.text[:0]}
		p.lineText.pl = nil
	}
	for _, pl := range p.plans {
		if pl.ev == ev {
			p.pl = pl
			return pl
		}
	}
	t := OutputTypeOf(ev.AttrType)
	f := p.o.Fields.Of(t)
	pl := &plan{ev: ev, gen: p.gen, f: f}
	pl.opts = ipOpts(f)
	if f&FieldSym != 0 {
		pl.addrOpts |= optSym
		if f&FieldSymOff != 0 {
			pl.addrOpts |= optSymOff
		}
	}
	if f&FieldDSO != 0 {
		pl.addrOpts |= optDSO
	}
	pl.start = f&(FieldComm|FieldPID|FieldTID|FieldCPU|FieldMisc|FieldTOD|FieldTime) != 0
	pl.commRaw = f&FieldIP != 0 && ev.SampleType&sample.SampleCallchain != 0 && p.o.UseCallchain
	pl.bts = ev.IsBTS()
	pl.btsAddr = f&FieldAddr != 0 || (ev.SampleType&sample.SampleAddr != 0 && !p.o.Fields.UserSet(t))
	pl.synth = ev.AttrType == sample.PerfTypeSynth && f&FieldSynth != 0
	pl.addrCorr = ev.AddrCorrelatesSym()
	const lineFields = FieldComm | FieldTID | FieldPID | FieldCPU | FieldEvent | FieldIP | FieldSym | FieldDSO
	pl.line = f&FieldIP != 0 && f&^lineFields == 0 && !pl.bts && !pl.synth && !p.o.Fields.Flags
	pl.ipRun = f&FieldIP != 0 && f&^(lineFields|FieldTime|FieldPeriod|FieldSymOff) == 0 && !pl.bts && !pl.synth &&
		!p.o.Fields.Flags
	if f&FieldEvent != 0 {
		// evlist__max_name_len, asked at the first sample that prints
		// the event name, as perf does.
		if p.o.NameWidth == 0 && p.o.NameWidthFn != nil {
			p.o.NameWidth = p.o.NameWidthFn()
		}
		// evsel__name is never NULL for a sample's event (perf's
		// "[unknown]" is for none); a recording may name it "".
		b := padLeftStr(nil, ev.Name, p.o.NameWidth)
		pl.name = string(append(b, ':', ' '))
	}
	p.plans = append(p.plans, pl)
	p.pl = pl
	return pl
}

const (
	optIP = 1 << iota
	optSym
	optDSO
	optSymOff
	optSrcline
)

// ipOpts returns what sample__fprintf_sym prints for fields f.
func ipOpts(f Field) int {
	o := 0
	if f&FieldIP != 0 {
		o |= optIP
	}
	if f&FieldSym != 0 {
		o |= optSym
	}
	if f&FieldDSO != 0 {
		o |= optDSO
	}
	if f&FieldSymOff != 0 {
		o |= optSymOff
	}
	if f&FieldSrcline != 0 {
		o |= optSrcline
	}
	return o
}
