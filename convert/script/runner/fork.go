package runner

import (
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/session"
)

// fork will let the session's decode workers format the samples of the
// chunks they decode, once the session offers it (Handler.Fork).
func fork(h *session.Handler, o script.Options, useCC *bool, emit func([]byte)) {
	_, _, _, _ = h, o, useCC, emit
}
