package session

import (
	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/traceevent"
	"github.com/perfpt/perfpt/internal/perfopt"
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

// ErrIncompatible is perf_session__open's refusal of a file whose header
// it cannot take (perf_session__read_header failing), with perf's status.
var ErrIncompatible = &perfopt.Exit{Msg: "incompatible file format (rerun with -v to learn more)", Status: 255}

// CheckTracepointFormats refuses, as perf does, a file (not a pipe) with a
// tracepoint event whose format the tracing data does not have (no
// TRACING_DATA, a damaged one, or none for its id): perf_session__read_header
// ends with evlist__prepare_tracepoint_events, which fails there, so
// perf script, perf report -D and --header-only all refuse the file
// (ErrIncompatible). A pipe's formats come later: there perf fails only
// when it prints such an event's trace field (the runner's check).
func (s *Session) CheckTracepointFormats() error {
	if s.f.Pipe || !missingFormat(s.f, s.tracing) {
		return nil
	}
	return ErrIncompatible
}

// CheckTracepointFormats is Session.CheckTracepointFormats for a file
// read without a session (perfpt header).
func CheckTracepointFormats(f *perfdata.File) error {
	if f.Pipe {
		return nil
	}
	var d *tracing.Data
	if b, ok := f.FeatureData(perfdata.FeatTracingData); ok {
		d, _ = tracing.Parse(b)
	}
	if missingFormat(f, d) {
		return ErrIncompatible
	}
	return nil
}

// missingFormat says whether a tracepoint event of f has no format in d
// (evsel__prepare_tracepoint_event failing).
func missingFormat(f *perfdata.File, d *tracing.Data) bool {
	for _, a := range f.Attrs {
		if a.Type == perfdata.AttrTypeTracepoint && (d == nil || d.Event(int(a.Config)) == nil) {
			return true
		}
	}
	return false
}

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
