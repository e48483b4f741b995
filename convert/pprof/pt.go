package pprof

import (
	"errors"

	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/convert/session"
)

// ErrPTUnsupported is returned for Intel PT recordings while the session
// does not deliver decoded blocks.
var ErrPTUnsupported = errors.New("pprof: Intel PT recordings are not supported yet")

func fromPT(s *session.Session, o Options) (*profile.Profile, error) {
	return nil, ErrPTUnsupported
}
