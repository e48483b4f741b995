package ptdump

import (
	"testing"

	"github.com/perfpt/perfpt/internal/conformance"
)

// TestCorpus runs every ptdump case of the libipt conformance corpus (see
// ../shared/conformance/libipt/README.md) through Main and compares stdout.
func TestCorpus(t *testing.T) {
	conformance.Run(t, "ptdump", Main)
}
