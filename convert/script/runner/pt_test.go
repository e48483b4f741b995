package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/testprog"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testprog.Cleanup()
	os.Exit(code)
}

// recordPT records prog with the emulated intel_pt//u recorder.
func recordPT(t *testing.T, prog string, opt record.Options, args ...string) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), filepath.Base(prog)+".data")
	opt.Output = data
	opt.BuildIDDir = filepath.Join(t.TempDir(), "debug")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := record.Emulate(ctx, append([]string{prog}, args...), opt); err != nil {
		t.Skipf("emulated recording of %s failed: %v", prog, err)
	}
	return data
}

// ptInvocations are the perf script command lines of issue 6.
var ptInvocations = [][]string{
	{},
	{"--itrace=i0ns", "-F", "comm,tid,ip,sym,symoff,dso"},
	{"--itrace=b", "-F", "+flags,+addr"},
	{"--itrace=cr", "-F", "+callindent"},
}

func TestPTEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	for _, name := range []string{"tiny"} {
		prog := testprog.Path(t, name)
		data := recordPT(t, prog, record.Options{})
		t.Run(name, func(t *testing.T) {
			for _, inv := range ptInvocations {
				compare(t, data, inv...)
			}
		})
	}
}
