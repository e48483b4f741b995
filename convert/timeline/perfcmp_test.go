package timeline

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/ksynth"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testprog.Cleanup()
	os.Exit(code)
}

// flowEvent is one call, return, trace stop, trace start or decode error
// of a thread, as perf script --itrace=cre prints it and as the timeline
// shows it.
type flowEvent struct {
	kind string // call, return, tr end, tr strt, error
	name string // callee; function returning; syscall/interrupt; error code
	t    uint64 // perf's time, or the timeline's (base added)
	ip   string // perf: where the trace started or stopped
	// since is, on a thread's first event in perf's output, the time of
	// the trace start before it, which the sequence leaves out: a timing
	// point the timeline may place the event at.
	since uint64
}

func (e flowEvent) String() string { return e.kind + " " + e.name }

var (
	perfLine  = regexp.MustCompile(`^\s*(\d+)\s+(?:(\d+)\.(\d+):\s+)?(.*?)\s+([0-9a-f]+) (.*) =>\s+([0-9a-f]+) (.*)$`)
	perfError = regexp.MustCompile(`instruction trace error type \d+ (?:time (\d+)\.(\d+) )?cpu -?\d+ pid -?\d+ tid (-?\d+) ip (?:0x)?[0-9a-f]+ code (\d+)`)
)

func parseNs(sec, frac string) uint64 {
	s, _ := strconv.ParseUint(sec, 10, 64)
	f, _ := strconv.ParseUint((frac + "000000000")[:9], 10, 64)
	return s*1e9 + f
}

// perfFlow runs perf script --itrace=cre on data and returns each
// thread's events. A trace start that does not follow a trace stop (a
// thread's first, or after an error) is left out: the timeline has no gap
// to end there.
func perfFlow(t *testing.T, data string, timed bool) map[int64][]flowEvent {
	t.Helper()
	fields := "tid,flags,ip,sym,addr"
	if timed {
		fields = "tid,time,flags,ip,sym,addr"
	}
	cmd := exec.Command("perf", "script", "-i", data, "--itrace=cre", "-F", fields, "--ns")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("perf script: %v\n%s", err, stderr.String())
	}
	flows := map[int64][]flowEvent{}
	// lastStart: the IP and time of each thread's last trace start, while
	// no event came after it.
	type start struct {
		ip string
		t  uint64
	}
	lastStart := map[int64]start{}
	firstStart := map[int64]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := perfError.FindStringSubmatch(line); m != nil {
			tid, _ := strconv.ParseInt(m[3], 10, 64)
			var tm uint64
			if m[1] != "" {
				tm = parseNs(m[1], m[2])
			}
			flows[tid] = append(flows[tid], flowEvent{kind: "error", name: m[4], t: tm})
			continue
		}
		m := perfLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("perf script line not understood: %q", line)
		}
		tid, _ := strconv.ParseInt(m[1], 10, 64)
		var tm uint64
		if m[2] != "" {
			tm = parseNs(m[2], m[3])
		}
		flags := strings.TrimSpace(strings.ReplaceAll(m[4], "(x)", ""))
		from, to := m[6], m[8]
		var e flowEvent
		switch {
		case strings.HasPrefix(flags, "tr strt"):
			lastStart[tid] = start{m[7], tm}
			fl := flows[tid]
			if len(fl) == 0 {
				firstStart[tid] = tm
			}
			if len(fl) == 0 || fl[len(fl)-1].kind != "tr end" {
				continue
			}
			e = flowEvent{kind: "tr strt", t: tm, ip: m[7]}
		case strings.HasPrefix(flags, "tr end"):
			// A stop right where the trace started, at the same time,
			// executed nothing: the decoded runs (and the timeline) see
			// one gap. (The same place at another time is a loop.)
			if st, ok := lastStart[tid]; ok && st.ip == m[5] && st.t == tm && !strings.Contains(flags, "syscall") {
				delete(lastStart, tid)
				if fl := flows[tid]; len(fl) > 0 && fl[len(fl)-1].kind == "tr strt" {
					flows[tid] = fl[:len(fl)-1]
				}
				continue
			}
			kind := "interrupt"
			if strings.Contains(flags, "syscall") {
				kind = "syscall"
			}
			e = flowEvent{kind: "tr end", name: kind, t: tm, ip: m[5]}
		case flags == "call" || flags == "syscall" || flags == "hw int" || flags == "int":
			e = flowEvent{kind: "call", name: to, t: tm}
		case flags == "return" || flags == "sysret" || flags == "iret":
			e = flowEvent{kind: "return", name: from, t: tm}
		default:
			t.Fatalf("perf script flags %q not expected in %q", flags, line)
		}
		if e.kind != "tr strt" {
			delete(lastStart, tid)
		}
		flows[tid] = append(flows[tid], e)
	}
	for tid, fl := range flows {
		if ts, ok := firstStart[tid]; ok && len(fl) > 0 {
			fl[0].since = ts
		}
	}
	return flows
}

// timelineFlow reads a timeline back (checking it) and returns each
// thread's calls, returns, trace gaps and errors.
func timelineFlow(t *testing.T, path string, base uint64) map[int64][]flowEvent {
	t.Helper()
	evs, _ := readChecked(t, path)
	flows := map[int64][]flowEvent{}
	gap := map[string]bool{"syscall": true, "interrupt": true}
	for _, e := range evs {
		var f flowEvent
		switch {
		case e.Phase == 'B' && (e.Cat == "call" || gap[e.Cat] && e.Name != e.Cat):
			// (A syscall or an interrupt the trace follows into the
			// kernel is a call there.)
			f = flowEvent{kind: "call", name: e.Name, t: e.Ts}
		case e.Phase == 'B' && gap[e.Cat] && e.Name == e.Cat:
			f = flowEvent{kind: "tr end", name: e.Name, t: e.Ts}
		case e.Phase == 'E' && gap[e.Cat] && e.Name == e.Cat:
			f = flowEvent{kind: "tr strt", t: e.Ts}
		case e.Phase == 'E' && e.Cat == "return":
			f = flowEvent{kind: "return", name: e.Name, t: e.Ts}
		case e.Phase == 'X' && e.Cat == "inferred":
			f = flowEvent{kind: "return", name: e.Name, t: e.End}
		case e.Phase == 'i' && e.Cat == "error":
			f = flowEvent{kind: "error", name: fmt.Sprint(e.ArgVal("code")), t: e.Ts}
		default:
			continue
		}
		f.t += base
		flows[e.Tid] = append(flows[e.Tid], f)
	}
	return flows
}

// compareFlows checks that the timeline has perf's events in perf's
// order, each within the interval between the timing updates around
// perf's time for it: not before perf's previous (smaller) time on the
// thread (for a trace stop: the one before that), not after its next one.
// (Between timing packets the timeline spreads the instructions; before a
// trace stop it cannot, the decoder's time at a stop not being in the
// runs.)
func compareFlows(t *testing.T, what string, perf, tl map[int64][]flowEvent, timed bool) int {
	t.Helper()
	n := 0
	for tid, pf := range perf {
		got := tl[tid]
		n += len(pf)
		var runMax uint64
		for i := 0; i < len(pf) || i < len(got); i++ {
			if i >= len(pf) || i >= len(got) || pf[i].String() != got[i].String() {
				lo, hi := max(0, i-5), min(max(len(pf), len(got)), i+5)
				var b strings.Builder
				for k := lo; k < hi; k++ {
					p, g := "-", "-"
					if k < len(pf) {
						p = pf[k].String()
					}
					if k < len(got) {
						g = got[k].String()
					}
					mark := "  "
					if k == i {
						mark = "> "
					}
					fmt.Fprintf(&b, "%s%-50s %s\n", mark, p, g)
				}
				t.Errorf("%s: thread %d: event %d of %d (timeline: %d) differs (perf | timeline):\n%s", what, tid, i, len(pf), len(got), b.String())
				break
			}
			if !timed {
				continue
			}
			// A stop is placed at the last timing point before it, whose
			// time may be one update earlier still (a change of time in
			// the stopped run is not in the runs).
			steps := 1
			if pf[i].kind == "tr end" {
				steps = 2
			}
			lo := pf[i].t
			for k := i - 1; k >= 0 && steps > 0; k-- {
				if pf[k].t < lo {
					lo = pf[k].t
					steps--
				}
			}
			if steps > 0 && pf[0].since != 0 && pf[0].since < lo {
				// Back to the thread's first trace start.
				lo = pf[0].since
			}
			hi := ^uint64(0)
			for k := i + 1; k < len(pf); k++ {
				if pf[k].t > pf[i].t {
					hi = pf[k].t
					break
				}
			}
			// perf's times can go back (errors); the timeline's never do:
			// allow the interval after the latest time so far too.
			runMax = max(runMax, pf[i].t)
			if hi != ^uint64(0) && runMax > pf[i].t {
				hi2 := ^uint64(0)
				for k := i + 1; k < len(pf); k++ {
					if pf[k].t > runMax {
						hi2 = pf[k].t
						break
					}
				}
				hi = max(hi, hi2)
			}
			if got[i].t < lo || got[i].t > hi {
				t.Errorf("%s: thread %d: event %d %v at %d, perf says %d (next time %d)", what, tid, i, got[i], got[i].t, pf[i].t, hi)
				break
			}
		}
	}
	for tid, g := range tl {
		if _, ok := perf[tid]; !ok && len(g) > 0 {
			t.Errorf("%s: thread %d has %d events in the timeline, none in perf's output", what, tid, len(g))
		}
	}
	return n
}

// recordEmulated records prog (with args) under the emulating recorder.
func recordEmulated(t *testing.T, prog string, opt record.Options, args ...string) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), filepath.Base(prog)+".data")
	opt.Output = data
	opt.BuildIDDir = filepath.Join(t.TempDir(), "debug")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := record.Emulate(ctx, append([]string{prog}, args...), opt); err != nil {
		testprog.EmulateFailed(t, prog, err)
	}
	return data
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: the timeline is compared with its output", tool)
		}
	}
}

// flowCase is a recording to compare.
type flowCase struct {
	name string
	prog string
	args []string
	opt  record.Options
	// kernel: a kernel+user recording (the stand-in kernel of
	// testdata/programs/kernel.S).
	kernel bool
	// damage: fill, length and place of the bytes overwritten in each
	// AUX buffer (n == 0: none).
	fill   byte
	n      int
	at     float64
	timed  bool
	direct string // a recording in the repository instead
	// garbageTIP: a TIP to an address in no mapping written after the
	// first TIP.PGD a fraction garbageTIP into each AUX buffer (0: none).
	garbageTIP float64
}

var (
	timedPT   = synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
	perCPU    = record.Options{WriteOptions: record.WriteOptions{PerCPU: true, PT: timedPT}}
	perThread = record.Options{WriteOptions: record.WriteOptions{PT: timedPT}}
)

func flowCases() []flowCase {
	if d := os.Getenv("PERFPT_TL_DATA"); d != "" {
		// A recording to look at.
		return []flowCase{{name: "given", direct: d, timed: os.Getenv("PERFPT_TL_UNTIMED") == ""}}
	}
	cases := []flowCase{
		{name: "example", direct: "testdata/example/primes.perf.data", timed: true},
		{name: "per-thread/mix-dyn-O2", prog: "mix-dyn-O2", opt: perThread, timed: true},
		{name: "per-cpu/threads-static-O2", prog: "threads-static-O2", opt: perCPU, timed: true},
		{name: "per-cpu/mix-static-O0", prog: "mix-static-O0", opt: perCPU, timed: true},
		{name: "2cpus/threads-dyn-O2", prog: "threads-dyn-O2", timed: true, opt: record.Options{WriteOptions: record.WriteOptions{
			PerCPU: true, CPUs: 2, Quantum: 300, Seed: 7, PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3, CYC: true}}}},
		{name: "untimed/mix-dyn-O2", prog: "mix-dyn-O2"},
		{name: "noretcomp/crash", prog: "crash", opt: record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{TSC: true, NoRetComp: true}}}, timed: true},
		{name: "exec/forkexec-static-O0", prog: "forkexec-static-O0", args: []string{"tiny"}, opt: perCPU, timed: true},
		// The damaged recordings are of hot for one round, whose trace is
		// the same on every run: mix's is not (its vdso clock_gettime
		// retries when the clock moves under it), so the bytes damaged
		// would be other packets on each run.
		{name: "damaged/hot-dyn-O2", prog: "hot-dyn-O2", args: []string{"1"}, opt: perThread, timed: true, fill: 0xff, n: 7, at: 0.5},
		{name: "damaged-pad/hot-dyn-O2", prog: "hot-dyn-O2", args: []string{"1"}, opt: perCPU, timed: true, fill: 0, n: 64, at: 0.3},
		// A TIP after a syscall's TIP.PGD, as damage to mix's trace made
		// one: perf prints the branch from the syscall into no code and
		// no trace start.
		{name: "garbage-tip/hot-dyn-O2", prog: "hot-dyn-O2", args: []string{"1"}, opt: perCPU, timed: true, garbageTIP: 0.3},
		{name: "kernel/mix-dyn-O2", prog: "mix-dyn-O2", opt: perCPU, timed: true, kernel: true},
		// A return from inside a function's .cold part (perf names it
		// by that part), entered by a conditional jump, and a tail call
		// out of one.
		{name: "cold-parts", prog: "cold", args: []string{"300"}, opt: perThread, timed: true},
		{name: "kernel/per-thread/threads-static-O2", prog: "threads-static-O2", opt: perThread, timed: true, kernel: true},
	}
	return cases
}

// TestCallsAgainstPerf checks that the calls and returns of timelines of
// emulated recordings (both formats, decoded with 1 and 2 workers) are
// perf script --itrace=cre's: same sequence per thread, times within
// perf's.
func TestCallsAgainstPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	total := 0
	for _, fc := range flowCases() {
		t.Run(fc.name, func(t *testing.T) {
			var data string
			if filepath.IsAbs(fc.direct) {
				data = fc.direct
			} else if fc.direct != "" {
				data = filepath.Join(repo(), fc.direct)
			} else {
				args := fc.args
				for i, a := range args {
					if a == "tiny" {
						args[i] = testprog.Path(t, "tiny")
					}
				}
				opt := fc.opt
				if fc.kernel {
					k, err := ksynth.Load(testprog.Path(t, "kernel"))
					if err != nil {
						t.Fatal(err)
					}
					opt.Kernel, opt.KernelSeed = k, 1
				}
				data = recordEmulated(t, testprog.Path(t, fc.prog), opt, args...)
			}
			if fc.n > 0 {
				data = testprog.CorruptAux(t, data, fc.fill, fc.n, fc.at)
			}
			if fc.garbageTIP > 0 {
				data = tipAfterPGD(t, data, fc.garbageTIP)
			}
			if dir := os.Getenv("PERFPT_TL_KEEP"); dir != "" {
				// Keep the recordings to look at them.
				b, _ := os.ReadFile(data)
				os.WriteFile(filepath.Join(dir, strings.ReplaceAll(fc.name, "/", "_")+".data"), b, 0o644)
			}
			symfs := ""
			if fc.direct != "" && !filepath.IsAbs(fc.direct) {
				symfs = filepath.Join(repo(), "testdata/example/symfs")
			}
			var pf map[int64][]flowEvent
			if symfs != "" {
				pf = perfFlowSymfs(t, data, symfs, fc.timed)
			} else {
				pf = perfFlow(t, data, fc.timed)
			}
			for _, j := range []int{1, 2} {
				for _, f := range []Format{FormatFXT, FormatJSON} {
					it := DefaultItrace()
					if j > 1 {
						it.Ptwrites, it.Transactions, it.PwrEvents = false, false, false
					}
					out, sum := convertFile(t, data, f, Options{Symfs: symfs, Workers: j, Itrace: it})
					what := fmt.Sprintf("-j %d %s", j, f)
					total += compareFlows(t, what, pf, timelineFlow(t, out, sum.Base), fc.timed)
					t.Logf("%s: %s (parallel decode: %v)", what, sum, sum.Parallel)
				}
			}
		})
	}
	t.Logf("%d perf events compared", total)
}

// perfFlowSymfs is perfFlow with --symfs.
func perfFlowSymfs(t *testing.T, data, symfs string, timed bool) map[int64][]flowEvent {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "perf")
	real, err := exec.LookPath("perf")
	if err != nil {
		t.Skip(err)
	}
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec "+real+" \"$@\" --symfs "+symfs+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return perfFlow(t, data, timed)
}

// tipAfterPGD copies the recording data and, in each AUX buffer, writes a
// TIP to 0x5904cf591cce590e (an address in no mapping) over the packets
// after the first TIP.PGD a fraction at of the way into it or later, the
// rest of the last packet overwritten padded (PAD).
func tipAfterPGD(t *testing.T, data string, at float64) string {
	t.Helper()
	f, err := perfdata.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	tip := []byte{0xcd, 0x0e, 0x59, 0xce, 0x1c, 0x59, 0xcf, 0x04, 0x59}
	hit := 0
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		r, ok := rs.Record.(*perfdata.RecordAuxtrace)
		if !ok {
			continue
		}
		buf := b[r.DataOffset : r.DataOffset+int64(r.AuxSize)]
		from := int(float64(len(buf)) * at)
		for off := 0; off < len(buf); {
			p, err := packet.Decode(buf, off)
			if err != nil {
				break
			}
			off += int(p.Size)
			if p.Kind != packet.KindTIPPGD || off <= from {
				continue
			}
			end := off
			for end < off+len(tip) {
				q, err := packet.Decode(buf, end)
				if err != nil {
					t.Fatalf("tipAfterPGD: %v", err)
				}
				end += int(q.Size)
			}
			copy(buf[off:], tip)
			for i := off + len(tip); i < end; i++ {
				buf[i] = 0 // PAD
			}
			hit++
			break
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if hit == 0 {
		t.Fatalf("no TIP.PGD past %.0f%% of any AUX buffer", at*100)
	}
	out := filepath.Join(t.TempDir(), "garbage-tip.data")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
