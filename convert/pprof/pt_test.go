package pprof

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// emulatePT records bin with the emulated intel_pt//u recorder.
func emulatePT(t testing.TB, bin string, args ...string) (string, uint64) {
	return emulatePTWith(t, record.Options{}, bin, args...)
}

func emulatePTWith(t testing.TB, opt record.Options, bin string, args ...string) (string, uint64) {
	t.Helper()
	data := filepath.Join(t.TempDir(), "pt.data")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opt.Output = data
	opt.BuildIDDir = "-"
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	opt.Trace.Stdout = devnull
	res, err := record.Emulate(ctx, append([]string{bin}, args...), opt)
	if err != nil {
		testprog.EmulateFailed(t, bin, err)
	}
	return data, res.Insns
}

func buildShared(t testing.TB, name string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not installed")
	}
	src, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "gcov", name+".c"))
	out := filepath.Join(t.TempDir(), name)
	if b, err := exec.Command(gcc, "-g", "-O0", "-o", out, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	return out
}

// perfFlatInsns counts `perf script --itrace=i0ns -F ip,sym` lines per symbol.
// perfOutput returns what perf prints with args (a test that calls it
// has checked that perf is installed).
func perfOutput(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := exec.Command("perf", args...).Output()
	if err != nil {
		t.Fatalf("perf %s: %v", args[0], err)
	}
	return out
}

func perfFlatInsns(t *testing.T, data string) map[string]int64 {
	out := perfOutput(t, "script", "-i", data, "--itrace=i0ns", "-F", "ip,sym")
	m := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		name := "[unknown]"
		if len(f) > 1 {
			name = f[1]
		}
		m[name]++
	}
	return m
}

// perfTakenBranches counts perf's branch samples other than trace begin
// and end.
func perfTakenBranches(t *testing.T, data string) int64 {
	out := perfOutput(t, "script", "-i", data, "--itrace=b", "-F", "ip,addr,flags")
	var n int64
	for _, l := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(l) != "" && !strings.Contains(l, "tr strt") && !strings.Contains(l, "tr end") {
			n++
		}
	}
	return n
}

var childrenLine = regexp.MustCompile(`^\s+([0-9.]+)%\s+([0-9.]+)%\s+\S+\s+(\S+)$`)

// perfChildren returns perf report's Children percentage per symbol, with
// call chains synthesised from the PT flow (--itrace=i0nsg).
func perfChildren(t *testing.T, data string) map[string]float64 {
	return perfChildrenItrace(t, data, "i0nsg")
}

// perfChildrenItrace is perfChildren with these --itrace options.
func perfChildrenItrace(t *testing.T, data, itrace string) map[string]float64 {
	out := perfOutput(t, "report", "-i", data, "--itrace="+itrace, "--stdio", "--children",
		"--sort", "sym")
	m := map[string]float64{}
	for _, l := range strings.Split(string(out), "\n") {
		if s := childrenLine.FindStringSubmatch(l); s != nil {
			v, _ := strconv.ParseFloat(s[1], 64)
			m[s[3]] = v
		}
	}
	return m
}

// functionInsns returns a function-granularity profile's instructions by
// function: flat (the leaf's), cumulative (once per sample for each
// function on its stack) and in all.
// checkFlatInsns reports the functions whose flat instructions differ
// from perf script's (the first ten), and returns how many do.
func checkFlatInsns(t *testing.T, flat, want map[string]int64) int {
	t.Helper()
	bad := 0
	for name, n := range want {
		if flat[name] != n {
			bad++
			if bad <= 10 {
				t.Errorf("flat instructions of %s: ours %d, perf script %d", name, flat[name], n)
			}
		}
	}
	return bad
}

// checkCumShares compares the cumulative shares of fns with perf
// report's children column, within 0.006 points.
func checkCumShares(t *testing.T, cum map[string]int64, total int64, children map[string]float64, fns []string) {
	t.Helper()
	for _, fn := range fns {
		ours := 100 * float64(cum[fn]) / float64(total)
		if math.Abs(ours-children[fn]) > 0.006 {
			t.Errorf("cum of %s: ours %.3f%%, perf report children %.2f%%", fn, ours, children[fn])
		}
	}
}

func functionInsns(p *profile.Profile) (flat, cum map[string]int64, total int64) {
	flat, cum = map[string]int64{}, map[string]int64{}
	for _, s := range p.Sample {
		v := s.Value[0]
		total += v
		flat[leafName(s.Location[0])] += v
		seen := map[string]bool{}
		for _, l := range s.Location {
			if n := leafName(l); !seen[n] {
				seen[n] = true
				cum[n] += v
			}
		}
	}
	return flat, cum, total
}

func leafName(l *profile.Location) string {
	if len(l.Line) == 0 {
		return "[unknown]"
	}
	return l.Line[len(l.Line)-1].Function.Name
}

func TestPTInstructionsMatchPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
	for _, c := range []struct {
		name string
		args []string
		cum  []string // functions whose cumulative share must equal perf report's children
	}{
		{"recurse", []string{"10", "2"}, []string{"main", "__libc_start_call_main", "fib", "ack", "is_even", "printf"}},
		// After a longjmp perf's thread stack keeps the frames that
		// longjmp left (expr, factor) until parse returns; ours resumes
		// parse's frame, so only the frames above the setjmp compare.
		{"jmp", []string{"1+2", "(3*4)+5", "x", "(1+2"}, []string{"main", "__libc_start_call_main", "parse"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := buildShared(t, c.name)
			data, insns := emulatePT(t, bin, c.args...)
			p, err := Convert(data, Options{Granularity: Function})
			if err != nil {
				t.Fatal(err)
			}
			if p.SampleType[0].Type != "instructions" || p.SampleType[1].Type != "branches" {
				t.Fatalf("sample types %v", p.SampleType)
			}
			flat, cum, total := functionInsns(p)
			if uint64(total) != insns {
				t.Errorf("profile has %d instructions, the recorder traced %d", total, insns)
			}
			want := perfFlatInsns(t, data)
			bad := checkFlatInsns(t, flat, want)
			t.Logf("%d functions, %d instructions; %d flat counts differ from perf script's", len(want), total, bad)
			var branches int64
			for _, s := range p.Sample {
				branches += s.Value[1]
			}
			if want := perfTakenBranches(t, data); branches != want {
				t.Errorf("branches: ours %d, perf script --itrace=b %d", branches, want)
			}
			children := perfChildren(t, data)
			checkCumShares(t, cum, total, children, c.cum)
		})
	}
}

// TestPTListShowsLines: go tool pprof -list shows fib's lines with the
// instructions executed on them.
func TestPTListShowsLines(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	bin := buildShared(t, "recurse")
	data, _ := emulatePT(t, bin, "10", "2")
	p, err := Convert(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "pt.pb.gz")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	list, err := exec.Command("go", "tool", "pprof", "-list", "^fib$", out).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof cannot read our profile: %v\n%s", err, list)
	}
	// fib(10) makes 177 calls: the `if (n < 2)` line runs in each.
	re := regexp.MustCompile(`(?m)^\s+(\d+)\s+\d+\s+\d+:\s+if \(n < 2\)`)
	m := re.FindSubmatch(list)
	if m == nil {
		t.Fatalf("no counted `if (n < 2)` line in:\n%s", list)
	}
	// At -O0 the line is cmpl + jg: 2 instructions per call.
	if string(m[1]) != "354" {
		t.Errorf("if (n < 2) executed %s instructions, want 354 (177 calls x 2)", m[1])
	}
}

// TestPTTime: a recording with TSC and MTC timing gives a time/nanoseconds
// value whose total is the traced time span.
func TestPTTime(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	bin := buildShared(t, "recurse")
	var opt record.Options
	opt.PT.TSC, opt.PT.MTC, opt.PT.MTCPeriod = true, true, 3
	data, _ := emulatePTWith(t, opt, bin, "12", "1")
	p, err := Convert(data, Options{Granularity: Function})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.SampleType) != 3 || p.SampleType[2].Type != "time" || p.SampleType[2].Unit != "nanoseconds" {
		t.Fatalf("sample types %v", p.SampleType)
	}
	var ns, fib int64
	for _, s := range p.Sample {
		ns += s.Value[2]
		if leafName(s.Location[0]) == "fib" {
			fib += s.Value[2]
		}
	}
	if ns <= 0 || fib <= 0 {
		t.Errorf("time total %d ns, in fib %d ns", ns, fib)
	}
	// The time is the span of the blocks' timestamps less the gaps where
	// the trace stopped (system calls: the kernel is not traced).
	s, err := session.Open(data, (&Options{}).session())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var first, last, gaps uint64
	stopped := false
	if err := s.Run(session.Handler{Block: func(b *session.Block) {
		if first == 0 {
			first = b.Time
		}
		if stopped {
			gaps += b.Time - last
		}
		last, stopped = b.Time, b.Flags&sample.FlagTraceEnd != 0
	}}); err != nil {
		t.Fatal(err)
	}
	if span := int64(last - first - gaps); ns != span || gaps == 0 {
		t.Errorf("time total %d ns, blocks span %d ns less %d ns untraced", ns, last-first, gaps)
	}
	t.Logf("%d ns traced, %d ns in fib", ns, fib)
}

// TestPTWorkers: decoding with parallel workers (-j: the session decodes
// chunks of the trace ahead and delivers their runs in order) gives the
// same profile as one worker, sample for sample: every stack, label and
// value, time included.
func TestPTWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	bin := buildShared(t, "recurse")
	// Frequent PSBs: many chunks.
	opt := record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{PSBPeriod: 256, TSC: true, MTC: true}}}
	data, insns := emulatePTWith(t, opt, bin, "16", "2")
	profile := func(workers int) (map[string][]int64, int64) {
		p, err := Convert(data, Options{Granularity: Address, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string][]int64{}
		var total int64
		for _, s := range p.Sample {
			k := fmt.Sprint(s.Label, s.NumLabel)
			for _, l := range s.Location {
				k += fmt.Sprintf(" %x", l.Address)
			}
			v := m[k]
			if v == nil {
				v = make([]int64, len(s.Value))
			}
			for i, x := range s.Value {
				v[i] += x
			}
			m[k] = v
			total += s.Value[0]
		}
		return m, total
	}
	one, total := profile(1)
	if uint64(total) != insns {
		t.Errorf("%d instructions in the profile, %d traced", total, insns)
	}
	for _, j := range []int{2, 4} {
		got, _ := profile(j)
		bad := 0
		for k, v := range one {
			if !slices.Equal(got[k], v) {
				if bad++; bad <= 3 {
					t.Errorf("-j %d: %s: %v, -j 1 %v", j, k, got[k], v)
				}
			}
		}
		if len(got) != len(one) {
			t.Errorf("-j %d: %d samples, -j 1 %d", j, len(got), len(one))
		}
	}
	t.Logf("%d samples, %d instructions, identical at -j 1, 2 and 4", len(one), total)
}

// TestPTGranularity: the three granularities carry the same instruction
// total, with fewer locations for coarser ones, and line locations of
// fib name fib's lines.
func TestPTGranularity(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	bin := buildShared(t, "recurse")
	data, insns := emulatePT(t, bin, "10", "2")
	locs := map[Granularity]int{}
	for _, g := range []Granularity{Address, Line, Function} {
		p, err := Convert(data, Options{Granularity: g})
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		fibLines := map[int64]bool{}
		for _, s := range p.Sample {
			total += s.Value[0]
			if l := s.Location[0].Line; g == Line && len(l) > 0 && l[0].Function.Name == "fib" {
				fibLines[l[0].Line] = true
			}
		}
		if uint64(total) != insns {
			t.Errorf("granularity %d: %d instructions, want %d", g, total, insns)
		}
		// fib is lines 21-26: `{` (the prologue) to `}` (the epilogue).
		if g == Line && (len(fibLines) != 5 || !fibLines[22] || !fibLines[26]) {
			t.Errorf("line locations of fib: %v, want lines 22-26", fibLines)
		}
		locs[g] = len(p.Location)
	}
	if !(locs[Address] > locs[Line] && locs[Line] > locs[Function]) {
		t.Errorf("locations per granularity %v", locs)
	}
}

// TestPTThreads: the tid labels of a 3-thread program carry each thread's
// instructions, equal to perf script's per-thread counts.
func TestPTThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not installed")
	}
	src, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "gcov", "threads.c"))
	bin := filepath.Join(t.TempDir(), "threads")
	if b, err := exec.Command(gcc, "-g", "-O0", "-pthread", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	data, _ := emulatePT(t, bin, "3")
	p, err := Convert(data, Options{Granularity: Function})
	if err != nil {
		t.Fatal(err)
	}
	ours := map[int64]int64{}
	for _, s := range p.Sample {
		ours[s.NumLabel["tid"][0]] += s.Value[0]
	}
	out := perfOutput(t, "script", "-i", data, "--itrace=i0ns", "-F", "tid")
	want := map[int64]int64{}
	for _, f := range strings.Fields(string(out)) {
		tid, _ := strconv.ParseInt(f, 10, 64)
		want[tid]++
	}
	if len(want) != 4 {
		t.Errorf("perf script shows %d threads, want 4", len(want))
	}
	for tid, n := range want {
		if ours[tid] != n {
			t.Errorf("tid %d: ours %d instructions, perf script %d", tid, ours[tid], n)
		}
	}
}

// TestPTAddressesMatchPerf: at address granularity the instructions of
// every leaf address equal the `perf script --itrace=i0ns -F ip` lines of
// that address, the vdso's included (its code is in the recording, not
// in a file).
func TestPTAddressesMatchPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
	data, _ := emulatePT(t, testprog.Path(t, "mix-dyn-O2"))
	out := perfOutput(t, "script", "-i", data, "--itrace=i0ns", "-F", "ip,dso")
	want := map[uint64]int64{}
	vdso := 0
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		ip, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			t.Fatalf("perf script line %q", l)
		}
		want[ip]++
		if strings.Contains(l, "vdso") {
			vdso++
		}
	}
	if vdso == 0 {
		t.Fatal("no vdso instructions in the trace")
	}
	p, err := Convert(data, Options{Granularity: Address})
	if err != nil {
		t.Fatal(err)
	}
	bad := diffAddrInsns(t, "", p, want)
	t.Logf("%d addresses (%d vdso instructions), %d differ", len(want), vdso, bad)
}

// diffAddrInsns reports (the first five, each prefixed with what) and
// counts the addresses whose instructions in p (its first value, by
// leaf location address) are not want's.
func diffAddrInsns(t *testing.T, what string, p *profile.Profile, want map[uint64]int64) int {
	t.Helper()
	got := map[uint64]int64{}
	for _, s := range p.Sample {
		got[s.Location[0].Address] += s.Value[0]
	}
	bad := 0
	for ip, n := range want {
		if got[ip] != n {
			if bad++; bad <= 5 {
				t.Errorf("%s%#x: %d instructions, perf %d", what, ip, got[ip], n)
			}
		}
	}
	for ip, n := range got {
		if _, ok := want[ip]; !ok && n != 0 {
			if bad++; bad <= 5 {
				t.Errorf("%s%#x: %d instructions, perf none", what, ip, n)
			}
		}
	}
	return bad
}
