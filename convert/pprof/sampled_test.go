package pprof

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

func buildC(t testing.TB, src string, flags ...string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not installed")
	}
	abs, _ := filepath.Abs(filepath.Join("testdata", src))
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(src, ".c"))
	args := append(append([]string{}, flags...), "-o", out, abs)
	if b, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	return out
}

// recordCPUClock records bin with the real `perf record -e cpu-clock -g`.
func recordCPUClock(t testing.TB, bin string, args ...string) string {
	t.Helper()
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not installed")
	}
	data := filepath.Join(t.TempDir(), "perf.data")
	cmd := exec.Command(perf, append([]string{"record", "-q", "-e", "cpu-clock", "-g", "-o", data, bin}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("perf record does not work here: %v\n%s", err, b)
	}
	return data
}

// perfFolded returns `perf report --no-children -g folded` as stack -> count,
// stacks leaf first joined by ';'.
func perfFolded(t *testing.T, data string) (map[string]int64, map[string]int64) {
	t.Helper()
	out, err := exec.Command("perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "sym",
		"-g", "folded,0,callee,count").Output()
	if err != nil {
		t.Fatalf("perf report: %v", err)
	}
	stacks := map[string]int64{}
	flat := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == ' ' {
			continue
		}
		sp := strings.IndexByte(line, ' ')
		if sp < 0 {
			continue
		}
		n, err := strconv.ParseInt(line[:sp], 10, 64)
		if err != nil {
			continue
		}
		stack := line[sp+1:]
		stacks[stack] += n
		flat[strings.Split(stack, ";")[0]] += n
	}
	return stacks, flat
}

// ourFolded folds the profile's samples the same way, by the outermost
// function of each location (perf report shows no inlined frames here).
func ourFolded(p *profile.Profile, value int) (map[string]int64, map[string]int64) {
	stacks := map[string]int64{}
	flat := map[string]int64{}
	for _, s := range p.Sample {
		var names []string
		for _, l := range s.Location {
			if len(l.Line) == 0 {
				names = append(names, "0x"+strconv.FormatUint(l.Address, 16))
				continue
			}
			names = append(names, l.Line[len(l.Line)-1].Function.Name)
		}
		stacks[strings.Join(names, ";")] += s.Value[value]
		if len(names) > 0 {
			flat[names[0]] += s.Value[value]
		}
	}
	return stacks, flat
}

func TestCPUClockMatchesPerfReport(t *testing.T) {
	bin := buildC(t, "burn.c", "-g", "-O0")
	data := recordCPUClock(t, bin, "60")
	p, err := Convert(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.SampleType) != 2 || p.SampleType[0].Type != "cpu-clock_sample" || p.SampleType[1].Type != "cpu-clock_event" {
		t.Fatalf("sample types %v", p.SampleType)
	}
	wantStacks, wantFlat := perfFolded(t, data)
	gotStacks, gotFlat := ourFolded(p, 0)
	var total int64
	for _, n := range wantFlat {
		total += n
	}
	for _, fn := range []string{"leaf_a", "leaf_b", "mid", "main"} {
		if gotFlat[fn] != wantFlat[fn] {
			t.Errorf("flat samples of %s: ours %d, perf report %d", fn, gotFlat[fn], wantFlat[fn])
		}
	}
	// Every stack through main that perf reports, with its count.
	checked := 0
	for st, n := range wantStacks {
		if !strings.Contains(st, ";main;") {
			continue
		}
		checked++
		if gotStacks[st] != n {
			t.Errorf("stack %s: ours %d, perf report %d", st, gotStacks[st], n)
		}
	}
	if checked < 3 {
		t.Errorf("only %d stacks through main in perf report", checked)
	}
	// The period is carried as the event value: the sum of the periods
	// perf script prints.
	var events int64
	for _, s := range p.Sample {
		events += s.Value[1]
	}
	pout, err := exec.Command("perf", "script", "-i", data, "-F", "period").Output()
	if err != nil {
		t.Fatalf("perf script -F period: %v", err)
	}
	var periods int64
	for _, f := range strings.Fields(string(pout)) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("perf script -F period: %q", f)
		}
		periods += n
	}
	if events != periods {
		t.Errorf("event total %d, perf's periods add up to %d (%d samples)", events, periods, total)
	}
	t.Logf("%d samples, %d stacks through main equal to perf report's", total, checked)

	// go tool pprof reads it.
	out := filepath.Join(t.TempDir(), "cpu.pb.gz")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	top, err := exec.Command(goTool, "tool", "pprof", "-top", "-sample_index=cpu-clock_sample", out).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, top)
	}
	if !bytes.Contains(top, []byte("leaf_a")) || !bytes.Contains(top, []byte("leaf_b")) {
		t.Errorf("go tool pprof -top lacks the hot functions:\n%s", top)
	}
}
