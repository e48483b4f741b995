package cli

import (
	"os"
	"testing"

	"github.com/perfpt/perfpt/record/testprog"
)

// TestMain removes what tests share for the whole process: the test
// programs and ptFile's trace.
func TestMain(m *testing.M) {
	code := m.Run()
	testprog.Cleanup()
	if ptFileDir != "" {
		os.RemoveAll(ptFileDir)
	}
	os.Exit(code)
}
