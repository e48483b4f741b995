package ptrace

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/record/flow"
	"github.com/perfpt/perfpt/record/testprog"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testprog.Cleanup()
	os.Exit(code)
}

func devnull(t testing.TB) *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// trace runs argv in mode and returns the result and the IPs per thread.
func trace(t testing.TB, mode Mode, argv ...string) (*Result, map[int][]uint64) {
	t.Helper()
	ips := map[int][]uint64{}
	null := devnull(t)
	res, err := Run(context.Background(), argv, Options{Mode: mode, Pin: true, Stdout: null, Stderr: null,
		OnInsn: func(tid int, ip uint64) { ips[tid] = append(ips[tid], ip) }})
	if err != nil {
		t.Fatalf("%s %v: %v", mode, argv, err)
	}
	return res, ips
}

// walk replays a thread's flow and checks it against the observed IPs: the
// events must account for every instruction.
func checkCounts(t *testing.T, th *flow.Thread, ips []uint64) {
	if n := th.Insns(); n != uint64(len(ips)) {
		t.Errorf("tid %d: events count %d instructions, %d observed", th.Tid, n, len(ips))
	}
}

func flowText(tr *flow.Trace) string {
	var b strings.Builder
	for i, th := range tr.Threads {
		fmt.Fprintf(&b, "thread %d\n", i)
		for _, e := range th.Events {
			fmt.Fprintf(&b, "%v t=%d\n", e, e.Time-tr.ClockStart)
		}
	}
	for _, s := range tr.Side {
		fmt.Fprintf(&b, "side %d t=%d %s %#x\n", s.Kind, s.Time-tr.ClockStart, s.Name, s.Addr)
	}
	return b.String()
}

func TestFastEqualsStep(t *testing.T) {
	progs := []struct {
		name string
		args []string
	}{
		// record's TestPerfScriptAgrees compares the other programs.
		{"tiny", nil},
		{"mix-static-O2", nil},
	}
	for _, p := range progs {
		t.Run(p.name, func(t *testing.T) {
			if testing.Short() && p.name != "tiny" {
				t.Skip("short")
			}
			argv := append([]string{testprog.Path(t, p.name)}, p.args...)
			step, stepIPs := trace(t, Step, argv...)
			fast, fastIPs := trace(t, Fast, argv...)
			t.Logf("step: %d insns in %v (%.0f/s); fast: %d insns in %v (%.0f/s)",
				step.Stats.Insns, step.Stats.Elapsed, float64(step.Stats.Insns)/step.Stats.Elapsed.Seconds(),
				fast.Stats.Insns, fast.Stats.Elapsed, float64(fast.Stats.Insns)/fast.Stats.Elapsed.Seconds())
			for _, th := range step.Trace.Threads {
				checkCounts(t, th, stepIPs[th.Tid])
			}
			if d := flow.Equal(step.Trace, fast.Trace); d != "" {
				if dir := os.Getenv("PERFPT_FLOW_DIFF"); dir != "" {
					os.WriteFile(dir+"/step.txt", []byte(flowText(step.Trace)), 0o644)
					os.WriteFile(dir+"/fast.txt", []byte(flowText(fast.Trace)), 0o644)
				}
				t.Errorf("fast flow differs from step flow: %s", d)
			}
			if len(stepIPs) != len(fastIPs) {
				t.Errorf("threads: step %d fast %d", len(stepIPs), len(fastIPs))
			}
			if step.Exit != fast.Exit {
				t.Errorf("exit: step %d fast %d", step.Exit, fast.Exit)
			}
		})
	}
}

// TestConcurrent runs tracers side by side in one process (as parallel
// tests do): each must see only its own command.
func TestConcurrent(t *testing.T) {
	path := testprog.Path(t, "tiny")
	null := devnull(t)
	errs := make(chan error, 4)
	counts := make(chan uint64, 4)
	for i := 0; i < 4; i++ {
		go func(mode Mode) {
			res, err := Run(context.Background(), []string{path}, Options{Mode: mode, Stdout: null})
			if err == nil {
				counts <- res.Stats.Insns
			}
			errs <- err
		}(Mode(i % 2))
	}
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	close(counts)
	for n := range counts {
		if n != 927 {
			t.Errorf("traced %d instructions, want 927", n)
		}
	}
}
