package runner

import (
	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/session"
)

// fork lets the session's decode workers format the samples of the
// chunks they decode (Handler.Fork), each into a segment whose text is
// emitted in order; with runs, the segments take straight runs too
// (session.RunSegment), as Handler.IPRun does.
func fork(h *session.Handler, o script.Options, useCC *bool, emit func([]byte), runs bool, flt *machine.Filter) {
	if runs {
		h.Fork = func() session.Segment { return runSegment{newSegment(o, useCC, emit, flt)} }
		return
	}
	h.Fork = func() session.Segment { return newSegment(o, useCC, emit, flt) }
}
