package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// stackInvocations exercise --itrace=g (call chains from the thread stack)
// and l (last-branch stacks) on instruction samples, with their default
// sizes and small ones that cut the chain and the stack.
var stackInvocations = [][]string{
	{"--itrace=i100ig"},
	{"--itrace=i10ig8"},
	{"--itrace=i1000il", "-F", "+brstack"},
	{"--itrace=i100il4", "-F", "+brstacksym"},
	{"--itrace=i1000igl", "-F", "+brstack"},
	{"--itrace=i1000ipg"},
}

// stackInvocationsFull are compared too with PERFPT_FULL=1: branch samples
// (which get neither stack in perf), the smallest sizes, other field sets,
// and G/L (for other events' samples: none here) beside g/l.
var stackInvocationsFull = [][]string{
	{"--itrace=cgr"},
	{"--itrace=bl", "-F", "+brstack,+flags"},
	{"--itrace=i1000iglb", "-F", "+brstacksym,+flags"},
	{"--itrace=i100ig1l1", "-F", "+brstack"},
	{"--itrace=i100ig3"},
	{"--itrace=i100ig", "-F", "ip,sym,symoff,dso"},
	{"--itrace=i100il", "-F", "ip,sym,brstacksym,dso"},
	{"--itrace=i1000ig1024l1024", "-F", "+brstack"},
	{"--itrace=g"},
	{"--itrace=l", "-F", "+brstack"},
	{"--itrace=pl", "-F", "+brstack"},
	{"--itrace=i100igG"},
	{"--itrace=i100ilL", "-F", "+brstack"},
}

// stackPrograms: a threaded program, a dynamically linked one (PLT calls,
// recursion deeper than the default chain, siglongjmp out of a signal
// handler) and a static -O0 build of it; all programs with PERFPT_FULL=1.
var stackPrograms = func() []string {
	if os.Getenv("PERFPT_FULL") != "" {
		return allPrograms
	}
	return []string{"threads-static-O2", "mix-dyn-O2", "mix-static-O0"}
}()

// eachRecording records each program with opt (forkexec execs tiny) and
// hands the recording to check, in a subtest per program.
func eachRecording(t *testing.T, names []string, opt record.Options, check func(t *testing.T, data string)) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			prog, args := testprog.Path(t, name), []string(nil)
			switch {
			case strings.HasPrefix(name, "forkexec"):
				args = append(args, testprog.Path(t, "tiny"))
			case strings.HasPrefix(name, "hot"):
				args = append(args, "1") // one round: see deterministicProg
			}
			check(t, recordPT(t, prog, opt, args...))
		})
	}
}

func runStacks(t *testing.T, opt record.Options, invocations [][]string) {
	eachRecording(t, stackPrograms, opt, func(t *testing.T, data string) {
		for _, inv := range invocations {
			compare(t, data, inv...)
		}
	})
}

// perCPUTimed is what perfpt record --emulate writes by default: one
// emulated CPU running every thread, with context switches, TSC and MTC.
var perCPUTimed = record.Options{WriteOptions: record.WriteOptions{PerCPU: true,
	PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}}}

// TestPTStacks compares --itrace=g and l output with perf script's on
// per-CPU recordings with TSC and MTC (threads share the CPU, each with
// its own thread stack).
func TestPTStacks(t *testing.T) {
	inv := stackInvocations
	if os.Getenv("PERFPT_FULL") != "" {
		inv = append(append([][]string{}, inv...), stackInvocationsFull...)
	}
	runStacks(t, perCPUTimed, inv)
}

// TestPTStacksVariants compares on untimed recordings with one AUX stream
// per thread and on recordings without return compression (every return
// a TIP), where the thread stack sees the same calls through other
// packets.
func TestPTStacksVariants(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	inv := [][]string{{"--itrace=i100igl", "-F", "+brstack"}, {"--itrace=i10ig8l4", "-F", "+brstacksym", "--ns"}}
	t.Run("per-thread", func(t *testing.T) {
		runStacks(t, record.Options{}, inv)
	})
	t.Run("noretcomp", func(t *testing.T) {
		runStacks(t, record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{TSC: true, NoRetComp: true}}}, inv)
	})
}

// TestPTStacksTSX compares g and l on the committed PTWRITE/TSX
// recordings: transaction, ptwrite and psb/cbr samples get the stacks as
// instruction samples do, and the branch stack carries the in-transaction
// and abort flags (rtmroll: aborts that unwind calls made inside the
// transaction).
func TestPTStacksTSX(t *testing.T) {
	need(t, "perf")
	dir := filepath.Join("..", "..", "..", "testdata", "ptwtsx")
	symfs := "--symfs=" + filepath.Join(dir, "symfs")
	for _, name := range []string{"ptw-fup", "ptw-cyc", "tsx", "rtmroll"} {
		t.Run(name, func(t *testing.T) {
			data := filepath.Join(dir, name+".perf.data")
			if _, err := os.Stat(data); err != nil {
				t.Fatalf("committed fixture missing: %v", err)
			}
			compare(t, data, symfs, "--itrace=i1iwxgl16", "-F", "+brstacksym")
			compare(t, data, symfs, "--itrace=i1ixgl4", "-F", "+brstack,+flags")
			compare(t, data, symfs, "--itrace=wxpg3")
		})
	}
}

// TestPTStacksCorrupted damages the AUX data of untimed recordings (as
// TestPTCorrupted does): decode errors start new traces, which empty the
// thread stacks and the branch rings in perf.
func TestPTStacksCorrupted(t *testing.T) {
	names := []string{deterministicProg}
	if os.Getenv("PERFPT_FULL") != "" {
		names = append(names, "threads-dyn-O2", "mix-static-O0", "mix-dyn-O2")
	}
	eachRecording(t, names, record.Options{}, func(t *testing.T, data string) {
		// Bad packets, PADs (a flow mismatch), garbage TNTs.
		for _, c := range [...]struct{ fill, n, at100 int }{{0xff, 7, 50}, {0, 64, 30}, {0x55, 12, 70}} {
			bad := corrupt(t, data, byte(c.fill), c.n, float64(c.at100)/100)
			compare(t, bad, "--itrace=i100igl8e", "-F", "+brstack")
		}
	})
}
