package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/linediff"
	"github.com/perfpt/perfpt/record/testprog"
)

// filterProg has a main thread and a worker renamed by prctl, each in
// functions of its own, and the dynamic loader's and libc's code.
const filterProg = `#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
__attribute__((noinline)) long work(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i % 7; return s; }
__attribute__((noinline)) long other(long n) { long s = 1; for (long i = 0; i < n; i++) s ^= s * 31 + i; return s; }
static void *thr(void *a) { prctl(PR_SET_NAME, "worker"); return (void *)(other(3000000) + work(1000000)); }
int main(void) {
	pthread_t t;
	void *x;
	pthread_create(&t, 0, thr, 0);
	long r = work(4000000);
	pthread_join(t, &x);
	printf("%ld %ld\n", r, (long)x);
	return 0;
}
`

// filterProgBuilt builds filterProg with gcc -O1 -pthread and flags into a
// temporary folder, as name, and returns the folder and the program; it
// skips under -short and without perf or gcc.
func filterProgBuilt(t *testing.T, name string, flags ...string) (dir, prog string) {
	t.Helper()
	if testing.Short() {
		t.Skip("records programs")
	}
	for _, tool := range []string{"perf", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	dir = t.TempDir()
	src := filepath.Join(dir, name+".c")
	if err := os.WriteFile(src, []byte(filterProg), 0o644); err != nil {
		t.Fatal(err)
	}
	prog = filepath.Join(dir, name)
	if b, err := exec.Command("gcc", append(append([]string{"-O1", "-pthread"}, flags...), "-o", prog, src)...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	return dir, prog
}

// TestSampleFiltersPerf compares perf script's -c/--comms, --dsos and
// -S/--symbols (names, addresses, file:// lists, a name given twice:
// "problems parsing ... list" and status 0) with perf 6.1's, on a
// cpu-clock recording made with perf and on an emulated PT recording
// (its branch, instruction, call and straight-run paths, sequential and
// in parallel chunks).
func TestSampleFiltersPerf(t *testing.T) {
	dir, prog := filterProgBuilt(t, "filters", "-g")
	list := filepath.Join(dir, "list")
	if err := os.WriteFile(list, []byte("worker\nwork\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The address of the first sample in work, as -F ip prints it.
	firstIP := func(t *testing.T, data string, args ...string) string {
		out, err := exec.Command("perf", append([]string{"script", "-i", data, "-G", "-F", "ip,sym"}, args...)...).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) == 2 {
				return f[0]
			}
		}
		t.Fatalf("no sample in %v", args)
		return ""
	}
	t.Run("cpu-clock", func(t *testing.T) {
		data := filepath.Join(dir, "cc.data")
		if b, err := exec.Command("perf", "record", "-q", "-e", "cpu-clock", "-c", "100000", "-o", data, prog).CombinedOutput(); err != nil {
			t.Skipf("perf record cannot record here: %v\n%s", err, b)
		}
		ip := firstIP(t, data, "-S", "other")
		for _, f := range [][]string{
			{"--comms", "filters,worker"}, {"-c", ","}, {"-c", "worker,worker"},
			{"--dsos", prog}, {"--dsos", "ld-linux-x86-64.so.2,[kernel.kallsyms]"},
			{"-S", "0x" + ip + " ,work"}, {"-S", ip, "--addr-range", "64"}, {"-c", "worker", "-S", "work"}, {"-S", "file://" + list + ",other"},
			{"-c", "file:///nonexistent"}, {"-c", "worker", "--show-task-events"},
			{"--dsos", "filters", "-F", "comm,tid,ip,sym,dso", "-G"},
		} {
			comparePerfScript(t, data, f...)
		}
	})
	t.Run("pt", func(t *testing.T) {
		data := filepath.Join(dir, "pt.data")
		emulateTo(t, data, []string{testprog.Path(t, "threads-dyn-O2")})
		ip := firstIP(t, data, "-S", "start_thread")
		for _, f := range [][]string{
			{"-c", "x"}, {"-S", "check_match,start_thread", "--itrace=cr", "-F", "+callindent"},
			{"-S", ip, "--itrace=i1i", "-F", "ip,sym"}, {"-S", "main", "--dsos", "threads-dyn-O2"},
		} {
			comparePerfScript(t, data, append([]string{"-j", "2"}, f...)...)
		}
		for _, j := range []string{"1", "2"} {
			comparePerfScript(t, data, "-j", j, "--dsos", "libc.so.6", "--itrace=i1i")
			comparePerfScript(t, data, "-j", j, "-S", "start_thread", "--itrace=b", "-F", "+flags,+addr")
			comparePerfScript(t, data, "-j", j, "-c", "threads-dyn-O2", "--itrace=i100ig")
		}
	})
}

// comparePerfScript runs perf script and perfpt script with args on data
// (none: args name the input) and fails unless their standard output,
// standard error and status are the same. perfpt's -j N, first in args,
// is not given to perf.
func comparePerfScript(t *testing.T, data string, args ...string) {
	t.Helper()
	perfArgs := args
	if len(args) > 1 && args[0] == "-j" {
		perfArgs = args[2:]
	}
	if data != "" {
		perfArgs = append([]string{"-i", data}, perfArgs...)
		args = append([]string{"-i", data}, args...)
	}
	pout, perr, status := perfRun(t, append([]string{"script"}, perfArgs...)...)
	r := perfpt(append([]string{"script"}, args...)...)
	if r.code != status || r.err != perr {
		t.Errorf("perfpt script %q: status %d, stderr %q; perf: %d, %q", args, r.code, r.err, status, perr)
	}
	if r.out == pout {
		t.Logf("perf script %q: %d lines identical", perfArgs, strings.Count(r.out, "\n"))
	} else {
		d := linediff.Compare(r.out, pout)
		t.Errorf("perfpt script %q: %d of %d lines differ from perf's; first %s", args, d.N, d.Lines, d.String("perfpt", "perf"))
	}
}

// inlineProg has a function inlined into a loop, and libc's and the
// loader's code (whose line tables, where the machine has them, name
// files "./elf/../sysdeps/...").
const inlineProg = `#include <stdio.h>
static inline long step(long x) { return x & 1 ? 3 * x + 1 : x / 2; }
__attribute__((noinline)) long walk(long n) { long s = 0; for (long i = 1; i < n; i++) for (long x = i; x > 1; x = step(x)) s++; return s; }
int main(void) { printf("%ld\n", walk(60000)); return 0; }
`

// TestLongNamesPerf compares --show-kernel-path (the kernel named after
// its kcore, or its vmlinux with -k, the path as given) and
// --full-source-path (source files as the line tables name them, for
// looked-up lines and inlined call chain entries) with perf 6.1's.
func TestLongNamesPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	for _, tool := range []string{"perf", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	t.Run("show-kernel-path", func(t *testing.T) {
		needTiny(t)
		kernel := testprog.Path(t, "kernel")
		dir := t.TempDir()
		out := filepath.Join(dir, "k.data")
		ok(t, "record", "--emulate", "-N", "--emulate-kernel", kernel, "-o", out, "--", tinyPath)
		for _, args := range [][]string{
			{"-i", out, "--show-kernel-path"}, {"-i", out + "/", "--show-kernel-path", "--itrace=cr"},
			{"-i", out, "--show-kernel-path", "-k", kernel}, {"-i", out, "--dsos", out + "/kcore_dir/kcore"},
		} {
			comparePerfScript(t, "", args...)
		}
	})
	t.Run("full-source-path", func(t *testing.T) {
		dir := t.TempDir()
		src := filepath.Join(dir, "inline.c")
		if err := os.WriteFile(src, []byte(inlineProg), 0o644); err != nil {
			t.Fatal(err)
		}
		prog := filepath.Join(dir, "inline")
		if b, err := exec.Command("gcc", "-O2", "-g", "-o", prog, src).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, b)
		}
		data := filepath.Join(dir, "dwarf.data")
		if b, err := exec.Command("perf", "record", "-q", "-e", "cpu-clock", "-c", "200000", "--call-graph", "dwarf,8192", "-o", data, prog).CombinedOutput(); err != nil {
			t.Skipf("perf record cannot record here: %v\n%s", err, b)
		}
		for _, args := range [][]string{{"-F", "+srcline", "--full-source-path"}, {"-F", "ip,sym,srcline", "-G", "--full-source-path"}} {
			comparePerfScript(t, data, args...)
		}
	})
}
