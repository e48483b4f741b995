package native

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/record/testprog"
)

// needPerf skips without perf.
func needPerf(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
}

// needParanoid skips unless root or kernel.perf_event_paranoid <= max.
func needParanoid(t *testing.T, max int, what string) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	p, err := strconv.Atoi(paranoid())
	if err != nil || p > max {
		t.Skipf("%s needs root or kernel.perf_event_paranoid <= %d (it is %q)", what, max, paranoid())
	}
}

type sample struct {
	pid, tid, cpu int
	comm          string
	kernel        bool     // first ip in [kernel.kallsyms]
	chain         []string // "sym (dso)" of the call chain, innermost first
}

// record records argv with opt into a temporary file and parses perf
// script's output of it.
func recordAndScript(t *testing.T, argv []string, opt Options) ([]sample, string) {
	t.Helper()
	opt.Output = filepath.Join(t.TempDir(), "perf.data")
	null, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	defer null.Close()
	opt.Stdout, opt.Stderr = null, null
	res, err := Record(context.Background(), argv, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Samples == 0 {
		t.Fatalf("no samples")
	}
	fields := "pid,tid,cpu,comm,ip,sym,dso"
	args := []string{"script", "-i", opt.Output, "-F", fields, "--show-kernel-path"}
	if !opt.Target.SystemWide() {
		args = []string{"script", "-i", opt.Output, "-F", "pid,tid,comm,ip,sym,dso"}
	}
	out, err := exec.Command("perf", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("perf script: %v\n%s", err, out)
	}
	var ss []sample
	blocks := strings.Split(string(out), "\n")
	if opt.CallGraph {
		blocks = strings.Split(string(out), "\n\n")
	}
	for _, block := range blocks {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 || lines[0] == "" {
			continue
		}
		var s sample
		f := strings.Fields(lines[0])
		// comm may hold spaces and slashes (kworker/1:2): pid/tid is the
		// first field of two numbers around a slash.
		for i, w := range f {
			p, tid, ok := strings.Cut(w, "/")
			pid, err1 := strconv.Atoi(p)
			tidn, err2 := strconv.Atoi(tid)
			if ok && err1 == nil && err2 == nil {
				s.pid, s.tid = pid, tidn
				s.comm = strings.Join(f[:i], " ")
				if i+1 < len(f) && strings.HasPrefix(f[i+1], "[") {
					s.cpu, _ = strconv.Atoi(strings.Trim(f[i+1], "[]"))
				}
				break
			}
		}
		rest := lines[1:]
		if opt.CallGraph {
			for _, l := range rest {
				s.chain = append(s.chain, strings.Join(strings.Fields(l)[1:], " "))
			}
		} else {
			s.chain = []string{strings.Join(f[len(f)-2:], " ")}
		}
		if len(s.chain) > 0 && strings.Contains(s.chain[0], "kernel") {
			s.kernel = true
		}
		ss = append(ss, s)
	}
	if len(ss) == 0 {
		t.Fatalf("perf script printed no samples:\n%s", out)
	}
	return ss, opt.Output
}

func counts(ss []sample, key func(sample) string) map[string]int {
	m := map[string]int{}
	for _, s := range ss {
		m[key(s)]++
	}
	return m
}

// TestSystemWide records -a: perf script finds samples on every online
// CPU, from the command and from other tasks, kernel and user space.
func TestSystemWide(t *testing.T) {
	needPerf(t)
	needParanoid(t, 0, "-a")
	prog := hotProg(t)
	// One busy copy of the command per online CPU: an idle tickless CPU of
	// a VM may give no cpu-clock samples at all.
	script := ""
	for _, c := range OnlineCPUs() {
		script += fmt.Sprintf("taskset -c %d %s 10000 & ", c, prog)
	}
	ss, data := recordAndScript(t, []string{"sh", "-c", script + "wait"}, Options{Event: "cpu-clock", Freq: 999, Target: Target{AllCPUs: true}})
	cpus := counts(ss, func(s sample) string { return strconv.Itoa(s.cpu) })
	comms := counts(ss, func(s sample) string { return s.comm })
	t.Logf("%d samples; per CPU %v; per comm %v", len(ss), cpus, comms)
	for _, c := range OnlineCPUs() {
		if cpus[strconv.Itoa(c)] == 0 {
			t.Errorf("no samples on CPU %d", c)
		}
	}
	if comms[filepath.Base(prog)] < 10 {
		t.Errorf("only %d samples of the command", comms[filepath.Base(prog)])
	}
	if len(comms) < 2 {
		t.Errorf("no samples of other tasks: %v", comms)
	}
	kern := 0
	for _, s := range ss {
		if s.kernel {
			kern++
		}
	}
	if kern == 0 {
		t.Error("no kernel samples")
	}
	if out, err := exec.Command("perf", "report", "-i", data, "--stdio", "--sort", "cpu,comm").CombinedOutput(); err != nil ||
		!strings.Contains(string(out), filepath.Base(prog)) {
		t.Errorf("perf report: %v\n%s", err, out)
	}
}

// TestCPUList records -C with one CPU: every sample is on it.
func TestCPUList(t *testing.T) {
	needPerf(t)
	needParanoid(t, 0, "-C")
	online := OnlineCPUs()
	cpu := online[len(online)-1]
	// The command runs on the recorded CPU (an idle one may give no samples).
	ss, _ := recordAndScript(t, []string{"taskset", "-c", strconv.Itoa(cpu), hotProg(t), "10000"}, Options{Event: "cpu-clock", Freq: 999, Target: Target{CPUs: []int{cpu}}})
	cpus := counts(ss, func(s sample) string { return strconv.Itoa(s.cpu) })
	if len(cpus) != 1 || cpus[strconv.Itoa(cpu)] == 0 {
		t.Errorf("-C %d: samples per CPU %v", cpu, cpus)
	}
}

// TestPerThread records --per-thread: only the command's own thread is
// sampled, its children are not (no inherit).
func TestPerThread(t *testing.T) {
	needPerf(t)
	prog := hotProg(t)
	// The command alone: every sample is its thread's.
	ss, _ := recordAndScript(t, []string{prog, "10000"}, Options{Event: "cpu-clock:u", Freq: 999, Target: Target{PerThread: true}})
	tids := counts(ss, func(s sample) string { return fmt.Sprintf("%d/%d", s.pid, s.tid) })
	if len(tids) != 1 || len(ss) < 10 {
		t.Errorf("per-thread: %d samples of threads %v", len(ss), tids)
	}
	// A shell that runs the program as a child and then spins itself: per
	// thread, no sample of the child; by default, the child's samples.
	script := fmt.Sprintf("%s 10000; i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done", prog)
	ss, _ = recordAndScript(t, []string{"sh", "-c", script}, Options{Event: "cpu-clock:u", Freq: 999, Target: Target{PerThread: true}})
	comms := counts(ss, func(s sample) string { return s.comm })
	if comms[filepath.Base(prog)] != 0 || comms["sh"] == 0 {
		t.Errorf("per-thread shell: samples per comm %v", comms)
	}
	ss, _ = recordAndScript(t, []string{"sh", "-c", script}, Options{Event: "cpu-clock:u", Freq: 999})
	comms = counts(ss, func(s sample) string { return s.comm })
	if comms[filepath.Base(prog)] < 10 || comms["sh"] == 0 {
		t.Errorf("inherited shell: samples per comm %v", comms)
	}
}

// TestKernelCallchains samples a syscall-heavy command in kernel and user
// space with -g: kernel samples resolve to kernel symbols, and their call
// chains go on into the command's user-space frames.
func TestKernelCallchains(t *testing.T) {
	needPerf(t)
	needParanoid(t, 1, "kernel sampling")
	if text, _ := kallsymsText("/proc/kallsyms"); text == 0 {
		t.Skip("/proc/kallsyms hides addresses (kptr_restrict): kernel samples cannot be resolved")
	}
	ss, _ := recordAndScript(t, []string{"dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=300000"},
		Options{Event: "cpu-clock", Freq: 999, CallGraph: true})
	kern, resolved, mixed := 0, 0, 0
	for _, s := range ss {
		if !s.kernel {
			continue
		}
		kern++
		if !strings.HasPrefix(s.chain[0], "[unknown]") {
			resolved++
		}
		for _, fr := range s.chain[1:] {
			if !strings.Contains(fr, "kernel") {
				mixed++
				break
			}
		}
	}
	t.Logf("%d samples, %d in the kernel (%d resolved, %d with user frames)", len(ss), kern, resolved, mixed)
	if kern < len(ss)/4 || resolved < kern*9/10 || mixed < kern/2 {
		t.Errorf("kernel samples %d of %d, %d resolved, %d with user frames", kern, len(ss), resolved, mixed)
	}
	// :u has none.
	ss, _ = recordAndScript(t, []string{"dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=100000"},
		Options{Event: "cpu-clock:u", Freq: 999})
	for _, s := range ss {
		if s.kernel {
			t.Fatalf(":u recorded a kernel sample %+v", s)
		}
	}
}

func hotProg(t *testing.T) string {
	return testprog.Path(t, "hot-dyn-O0")
}
