package runner

import (
	"sync"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/script"
)

// segment formats the samples of a chunk of trace on a decode worker
// (session.Segment): a printer of its own keeps the text in memory, and
// Emit sends ranges of it to the output in order (straight into the
// run's printer, once the pipeline, if one runs, has printed what it
// holds).
type segment struct {
	p     *script.Printer
	useCC *bool // the run's callchain setting (fixed before decoding starts)
	emit  func([]byte)
	flt   *machine.Filter // -c, --dsos, -S (nil: none)
}

// newSegment returns a segment printing with fields and the output
// options of o (NameWidthFn must be safe to call from any goroutine).
func newSegment(o script.Options, useCC *bool, emit func([]byte), flt *machine.Filter) *segment {
	o.UseCallchain = *useCC
	if !flt.Active() {
		flt = nil
	}
	return &segment{p: script.NewPrinter(nil, o), useCC: useCC, emit: emit, flt: flt}
}

func (g *segment) Sample(s *sample.Sample) {
	if g.flt != nil && g.flt.Filtered(s.Comm, s.IP, &s.IPLoc) {
		return
	}
	g.p.SetUseCallchain(*g.useCC)
	g.p.Print(s)
}

// runSegment is a segment that prints straight runs (session.RunSegment)
// as the run's printer does (Handler.IPRun).
type runSegment struct{ *segment }

func (g runSegment) IPRunOK(ev *sample.Event) bool {
	g.p.SetUseCallchain(*g.useCC)
	return g.p.PrintsLines(ev)
}

func (g runSegment) IPRun(s *sample.Sample, ips []uint64) {
	g.p.SetUseCallchain(*g.useCC)
	g.p.PrintIPs(s, ips)
}

func (g *segment) Error(e *sample.ErrorLine) { g.p.PrintError(e) }
func (g *segment) Len() int                  { return len(g.p.Bytes()) }
func (g *segment) Emit(from, to int)         { g.emit(g.p.Bytes()[from:to]) }
func (g *segment) Reset()                    { g.p.Reset() }

// onceInt returns f's value, computed once, for any goroutine.
func onceInt(f func() int) func() int {
	var once sync.Once
	var v int
	return func() int {
		once.Do(func() { v = f() })
		return v
	}
}
