package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
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
		testprog.EmulateFailed(t, prog, err)
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

// allPrograms are the test programs recorded (forkexec execs tiny).
var allPrograms = []string{"tiny", "crash",
	"mix-static-O0", "mix-static-O2", "mix-dyn-O0", "mix-dyn-O2",
	"threads-static-O0", "threads-static-O2", "threads-dyn-O0", "threads-dyn-O2",
	"forkexec-static-O0", "forkexec-dyn-O2"}

// ptPrograms is what the tests record: six programs by default (to keep
// the package's tests short under -race), all with PERFPT_FULL=1.
var ptPrograms = func() []string {
	if os.Getenv("PERFPT_FULL") != "" {
		return allPrograms
	}
	return []string{"tiny", "crash", "mix-static-O0", "mix-dyn-O2", "threads-static-O2", "forkexec-static-O0"}
}()

func runPT(t *testing.T, opt record.Options, invocations [][]string) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	for _, name := range ptPrograms {
		t.Run(name, func(t *testing.T) {
			var args []string
			if strings.HasPrefix(name, "forkexec") {
				args = []string{testprog.Path(t, "tiny")}
			}
			data := recordPT(t, testprog.Path(t, name), opt, args...)
			for _, inv := range invocations {
				compare(t, data, inv...)
			}
		})
	}
}

// TestPTEmulated compares the invocations on untimed recordings.
func TestPTEmulated(t *testing.T) {
	runPT(t, record.Options{}, ptInvocations)
}

// TestPTTimed compares on recordings with TSC, and with TSC and MTC.
func TestPTTimed(t *testing.T) {
	inv := [][]string{{"--ns"}, {"--itrace=b", "-F", "+flags,+addr", "--ns"}, {"--itrace=i100i"}, {"--itrace=i0ns", "-F", "tid,ip,sym"}}
	t.Run("tsc", func(t *testing.T) {
		runPT(t, record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{TSC: true}}}, inv)
	})
	t.Run("mtc", func(t *testing.T) {
		runPT(t, record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}}}, inv)
	})
}

// TestPTSrcline compares srcline with perf's, whose source lines come
// from addr2line (binutils 2.40), byte for byte: convert/srcline answers
// as addr2line does (DWARF 5's first file, the symbol table's names and
// STT_FILE guesses for code without DWARF, bfd's row choices).
func TestPTSrcline(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	for _, name := range ptPrograms {
		t.Run(name, func(t *testing.T) {
			var args []string
			if strings.HasPrefix(name, "forkexec") {
				args = []string{testprog.Path(t, "tiny")}
			}
			data := recordPT(t, testprog.Path(t, name), record.Options{}, args...)
			compare(t, data, "--itrace=i100i", "-F", "ip,sym,srcline")
		})
	}
}

// TestPTLineFields compares field sets whose lines change only with the
// IP within a thread and a symbol (the printer reuses the previous line
// for them), on a threaded and a dynamically linked program.
func TestPTLineFields(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	for _, name := range []string{"threads-static-O2", "mix-dyn-O2"} {
		t.Run(name, func(t *testing.T) {
			data := recordPT(t, testprog.Path(t, name), record.Options{})
			compare(t, data, "--itrace=i0ns", "-F", "comm,pid,tid,cpu,event,ip,sym,dso")
			compare(t, data, "--itrace=i0ns", "-F", "ip,dso")
		})
	}
}
