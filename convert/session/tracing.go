package session

import (
	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/traceevent"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/tracing"
)

// setTracing reads the tracing data (the TRACING_DATA feature, or the
// pipe-mode record) and gives the tracepoint events their formats and, when
// unnamed, their names (perf's evsel__prepare_tracepoint_event). A damaged
// tracing data is kept as TracingErr; the events then print no trace field.
func (s *Session) setTracing(b []byte) {
	d, err := tracing.Parse(b)
	if err != nil {
		s.tracingErr = err
		return
	}
	s.tracing = d
	s.tp = traceevent.New(d, kernelSyms{s.m})
	for a, e := range s.events {
		s.setFormat(a, e)
	}
}

// TracingErr returns why the recording's tracing data could not be read
// (nil when it was, or there is none).
func (s *Session) TracingErr() error { return s.tracingErr }

// setFormat binds a tracepoint event to its format.
func (s *Session) setFormat(a *perfdata.Attr, e *sample.Event) {
	if s.tracing == nil || a.Type != perfdata.AttrTypeTracepoint {
		return
	}
	f := s.tracing.Event(int(a.Config))
	if f == nil {
		return
	}
	e.Format, e.Trace = f, s.tp
	if !a.Named {
		e.Name = f.System + ":" + f.Name
	}
}

// kernelSyms resolves %pS in trace output through the machine's kernel
// maps (perf's machine__resolve_kernel_addr, its libtraceevent function
// resolver).
type kernelSyms struct{ m *machine.Machine }

func (k kernelSyms) Resolve(addr uint64) (string, uint64, bool) {
	return k.m.ResolveKernelAddr(addr)
}
