package record

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/record/flow"
	"github.com/perfpt/perfpt/record/ptrace"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testprog.Cleanup()
	os.Exit(code)
}

func needPerf(t testing.TB) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
}

func devnull(t testing.TB) *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// perfScript runs perf script on data and fails on decode errors.
func perfScript(t *testing.T, data string, args ...string) string {
	t.Helper()
	cmd := exec.Command("perf", append([]string{"script", "-i", data}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("perf script %v: %v\n%s", args, err, errb.String())
	}
	if s := errb.String(); strings.TrimSpace(s) != "" {
		t.Errorf("perf script %v stderr:\n%s", args, firstLines(s, 10))
	}
	if strings.Contains(out.String(), "trace error") {
		i := strings.Index(out.String(), "trace error")
		t.Errorf("perf script %v: decode errors: ...%s", args, firstLines(out.String()[max(0, i-100):], 3))
	}
	return out.String()
}

func firstLines(s string, n int) string {
	l := strings.SplitN(s, "\n", n+1)
	return strings.Join(l[:min(n, len(l))], "\n")
}

// perfInsns parses `perf script --itrace=i0ns -F tid,ip` per thread.
func perfInsns(out string) map[int][]uint64 {
	m := map[int][]uint64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		tid, err1 := strconv.Atoi(f[0])
		ip, err2 := strconv.ParseUint(f[1], 16, 64)
		if err1 == nil && err2 == nil {
			m[tid] = append(m[tid], ip)
		}
	}
	return m
}

// perfBranches parses `perf script --itrace=b -F tid,ip,addr` per thread.
func perfBranches(out string) map[int][][2]uint64 {
	m := map[int][][2]uint64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[2] != "=>" {
			continue
		}
		tid, _ := strconv.Atoi(f[0])
		from, _ := strconv.ParseUint(f[1], 16, 64)
		to, _ := strconv.ParseUint(f[3], 16, 64)
		m[tid] = append(m[tid], [2]uint64{from, to})
	}
	return m
}

// flowBranches lists the taken branches perf reports for a flow: every
// jump, call, return and taken conditional, and trace ends and starts
// around the kernel.
func flowBranches(th *flow.Thread) [][2]uint64 {
	var bs [][2]uint64
	for _, e := range th.Events {
		switch e.Kind {
		case flow.Begin:
			bs = append(bs, [2]uint64{0, e.To})
		case flow.Cond:
			if e.Taken {
				bs = append(bs, [2]uint64{e.From, e.To})
			}
		case flow.Jump, flow.Call, flow.IndJump, flow.IndCall, flow.Ret, flow.TxAbort:
			bs = append(bs, [2]uint64{e.From, e.To})
		case flow.Syscall, flow.Async, flow.End:
			bs = append(bs, [2]uint64{e.From, 0})
			if e.To != 0 {
				bs = append(bs, [2]uint64{0, e.To})
			}
		}
	}
	return bs
}

func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

var configs = []struct {
	name   string
	cfg    synth.Config
	perCPU bool
}{
	{"retcomp", synth.Config{}, false},
	{"noretcomp", synth.Config{NoRetComp: true}, false},
	{"tsc-psb512", synth.Config{TSC: true, PSBPeriod: 512}, false},
	{"tsc-mtc-cyc", synth.Config{TSC: true, MTC: true, MTCPeriod: 3, CYC: true}, false},
	{"percpu-tsc", synth.Config{TSC: true}, true},
	{"percpu-mtc-cyc-noretcomp", synth.Config{TSC: true, MTC: true, CYC: true, NoRetComp: true}, true},
}

// dropPreemptions removes from perf's branches the trace end and start at
// one IP that a per-CPU recording shows where a thread was switched out and
// back in, wherever the flow has no such pair.
func dropPreemptions(perf, flow [][2]uint64) [][2]uint64 {
	var out [][2]uint64
	j := 0
	for i := 0; i < len(perf); i++ {
		if i+1 < len(perf) && perf[i][1] == 0 && perf[i+1][0] == 0 && perf[i][0] == perf[i+1][1] &&
			!(j+1 < len(flow) && flow[j] == perf[i] && flow[j+1] == perf[i+1]) {
			i++
			continue
		}
		out = append(out, perf[i])
		j++
	}
	return out
}

// TestPerfScriptAgrees records the test programs and checks that perf's own
// decoder prints exactly the instructions the tracer saw, thread by thread,
// and the same taken branches, for each packet configuration. For the
// single-threaded programs the fast tracer's flow must equal the
// single-step one.
func TestPerfScriptAgrees(t *testing.T) {
	needPerf(t)
	progs := []struct {
		name          string
		args          []string
		deterministic bool
	}{
		{"tiny", nil, true},
		{"mix-static-O2", nil, true},
		{"mix-static-O0", nil, true},
		{"mix-dyn-O0", nil, true},
		{"mix-dyn-O2", nil, true},
		{"threads-static-O2", nil, false},
		{"threads-dyn-O0", nil, false},
		{"forkexec-dyn-O2", []string{"tiny"}, false},
		{"forkexec-static-O0", []string{"tiny"}, false},
		{"forkexec-dyn-O0", []string{"-v", "tiny"}, false},
		{"crash", nil, true},
		{"hot-static-O2", []string{"-2"}, true},
	}
	dir := t.TempDir()
	var totalInsns, totalBranches int
	for _, p := range progs {
		t.Run(p.name, func(t *testing.T) {
			if testing.Short() && p.name != "tiny" && p.name != "mix-static-O2" {
				t.Skip("short")
			}
			argv := []string{testprog.Path(t, p.name)}
			for _, a := range p.args {
				if !strings.HasPrefix(a, "-") {
					a = testprog.Path(t, a)
				} else if a != "-v" {
					a = a[1:] // a literal argument
				}
				argv = append(argv, a)
			}
			null := devnull(t)
			ips := map[int][]uint64{}
			mode := ptrace.Fast
			if p.deterministic {
				mode = ptrace.Step
			}
			res, err := ptrace.Run(context.Background(), argv, ptrace.Options{Mode: mode, Pin: true, Stdout: null, Stderr: null,
				ClockStart: DefaultClockStart, OnInsn: func(tid int, ip uint64) { ips[tid] = append(ips[tid], ip) }})
			if err != nil {
				t.Fatal(err)
			}
			if p.deterministic {
				fast, err := ptrace.Run(context.Background(), argv, ptrace.Options{Mode: ptrace.Fast, Stdout: null, Stderr: null,
					ClockStart: DefaultClockStart})
				if err != nil {
					t.Fatal(err)
				}
				if d := flow.Equal(res.Trace, fast.Trace); d != "" {
					t.Errorf("fast flow differs from single-step flow: %s", d)
				}
				t.Logf("%d instructions: single-step %.0f/s, fast %.0f/s", res.Stats.Insns,
					float64(res.Stats.Insns)/res.Stats.Elapsed.Seconds(), float64(fast.Stats.Insns)/fast.Stats.Elapsed.Seconds())
			}
			for _, c := range configs {
				if c.perCPU && len(res.Trace.Threads) == 1 && p.name != "tiny" {
					continue // one thread: the same stream as per-thread
				}
				data := filepath.Join(dir, p.name+"-"+c.name+".data")
				if _, err := WriteTrace(data, res.Trace, WriteOptions{PT: c.cfg, BuildIDDir: "-", AuxBufSize: 16 << 10, PerCPU: c.perCPU}); err != nil {
					t.Fatal(err)
				}
				got := perfInsns(perfScript(t, data, "--itrace=i0ns", "-F", "tid,ip"))
				for tid, want := range ips {
					if g := got[tid]; !slicesEqual(g, want) {
						i := firstDiff(g, want)
						t.Errorf("%s: tid %d: perf prints %d instructions, tracer saw %d; first difference at %d: perf %x, tracer %x",
							c.name, tid, len(g), len(want), i, g[i:min(i+3, len(g))], want[i:min(i+3, len(want))])
					} else {
						totalInsns += len(g)
					}
				}
				if len(got) != len(ips) {
					t.Errorf("%s: perf shows %d threads, tracer %d", c.name, len(got), len(ips))
				}
				if c.cfg.TSC && !c.perCPU && len(res.Trace.Threads) == 1 {
					checkTimes(t, c.name, perfScript(t, data, "--itrace=i0ns", "-F", "time,ip", "--ns"), res.Trace.Threads[0], c.cfg.CYC)
				}
				gotB := perfBranches(perfScript(t, data, "--itrace=b", "-F", "tid,ip,addr"))
				for _, th := range res.Trace.Threads {
					want := flowBranches(th)
					g := gotB[th.Tid]
					if c.perCPU {
						g = dropPreemptions(g, want)
					}
					if !slicesEqual(g, want) {
						i := firstDiff(g, want)
						t.Errorf("%s: tid %d: perf prints %d branches, flow has %d; first difference at %d: perf %x, flow %x",
							c.name, th.Tid, len(g), len(want), i, g[i:min(i+3, len(g))], want[i:min(i+3, len(want))])
					} else {
						totalBranches += len(g)
					}
				}
			}
		})
	}
	t.Logf("perf script agreed on %d instructions and %d branches", totalInsns, totalBranches)
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var _ = fmt.Sprint

// checkTimes compares the time perf gives each instruction with the
// virtual clock (one tick per instruction, so instruction k of an event's
// n retired at Time-n+k): perf's times never decrease, never run ahead of
// the clock, and with CYC lag it by less than the instructions between two
// packets (with TSC alone, times only move at PSB+ and after syscalls).
func checkTimes(t *testing.T, name string, out string, th *flow.Thread, cyc bool) {
	t.Helper()
	var vt []uint64
	for _, e := range th.Events {
		for k := uint64(1); k <= e.Insns; k++ {
			vt = append(vt, e.Time-e.Insns+k)
		}
	}
	var prev uint64
	i, maxLag := 0, uint64(0)
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		sec, ns, ok := strings.Cut(strings.TrimSuffix(f[0], ":"), ".")
		s, err1 := strconv.ParseUint(sec, 10, 64)
		n, err2 := strconv.ParseUint(ns, 10, 64)
		if !ok || err1 != nil || err2 != nil || i >= len(vt) {
			t.Fatalf("%s: bad time line %q (instruction %d of %d)", name, line, i, len(vt))
		}
		pt := s*1e9 + n
		if pt < prev {
			t.Fatalf("%s: instruction %d: time goes back from %d to %d", name, i, prev, pt)
		}
		if pt > vt[i] {
			t.Fatalf("%s: instruction %d: perf time %d after the virtual clock %d", name, i, pt, vt[i])
		}
		maxLag = max(maxLag, vt[i]-pt)
		prev = pt
		i++
	}
	if i != len(vt) {
		t.Errorf("%s: %d timed instructions, want %d", name, i, len(vt))
	}
	if cyc && maxLag > 256 {
		t.Errorf("%s: perf's time lags the virtual clock by up to %d ticks", name, maxLag)
	}
	t.Logf("%s: perf's instruction times lag the virtual clock by at most %d ticks", name, maxLag)
}
