package ptxed

import (
	"testing"

	"github.com/perfpt/perfpt/internal/conformance"
)

// TestCorpus runs every ptxed case of the libipt conformance corpus with
// both decoders (each case's command lines, as run.py does) and compares
// stdout like diff -ub.
func TestCorpus(t *testing.T) {
	conformance.Run(t, "ptxed", Main)
}
