package runner

import (
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/session"
)

// fork lets the session's decode workers format the samples of the
// chunks they decode (Handler.Fork), each into a segment whose text is
// emitted in order.
func fork(h *session.Handler, o script.Options, useCC *bool, emit func([]byte)) {
	h.Fork = func() session.Segment { return newSegment(o, useCC, emit) }
}
