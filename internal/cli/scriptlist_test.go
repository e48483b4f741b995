package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/linediff"
	"github.com/perfpt/perfpt/record/testprog"
)

// listCheck checks that perfpt script's option opt (-l, --list-dlfilters)
// prints the heading of perf's list, with nothing under it, and exits 0
// at once: the options after it are not read.
func listCheck(want string, opt ...string) func(t *testing.T) {
	return func(t *testing.T) {
		for _, args := range [][]string{opt, append(append([]string{}, opt...), "--bogus"), append([]string{"-i", "/nonexistent"}, opt...)} {
			r := perfpt(append([]string{"script"}, args...)...)
			if r.code != 0 || r.out != want || r.err != "" {
				t.Errorf("script %q: status %d, stdout %q, stderr %q; want %q", args, r.code, r.out, r.err, want)
			}
		}
	}
}

// filterProgRecorded builds filterProg (two threads, libc and the loader)
// in a temporary folder and records it with perf record -q ARGS, once per
// list of ARGS, each into a file of its own; it skips under -short,
// without perf or gcc, or when perf cannot record here.
func filterProgRecorded(t *testing.T, args ...[]string) (data []string) {
	t.Helper()
	dir, prog := filterProgBuilt(t, "filterprog") // a name longer than 8
	for i, a := range args {
		d := filepath.Join(dir, fmt.Sprintf("%d.data", i))
		if b, err := exec.Command("perf", append(append(append([]string{"record", "-q"}, a...), "-o", d), prog)...).CombinedOutput(); err != nil {
			t.Skipf("perf record cannot record here: %v\n%s", err, b)
		}
		data = append(data, d)
	}
	return data
}

// TestScriptListsPerf compares perfpt script -l and --list-dlfilters with
// perf 6.1's where perf has no scripts and no dlfilters (PERF_EXEC_PATH
// naming a folder with an empty scripts folder): perfpt runs none.
func TestScriptListsPerf(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("no perf")
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PERF_EXEC_PATH", dir)
	for _, args := range [][]string{{"-l"}, {"--list"}, {"--no-list"}, {"--lis"}, {"-l", "-x"}, {"-Gl"}, {"-i", "/nonexistent", "-l"},
		{"--list-dlfilters"}, {"--no-list-dlfilters"}, {"--list-d"}, {"--list-dlfilters", "--bogus"}, {"-l", "--list-dlfilters"},
		{"--dlfilter", "x.so", "-l"}, {"-s", "x.py", "--list-dlfilters"}, {"--li"}} {
		pout, perr, status := perfRun(t, append([]string{"script"}, args...)...)
		r := perfpt(append([]string{"script"}, args...)...)
		if status != 0 {
			// A refusal (--li is ambiguous): its first line.
			if r.code != status || usageHead(r.err, "perfpt script") != usageHead(perr, "perf script") {
				t.Errorf("script %q: status %d, stderr %q; perf: %d, %q", args, r.code, r.err, status, perr)
			}
			continue
		}
		if r.code != 0 || r.out != pout || r.err != perr {
			t.Errorf("script %q: status %d, stdout %q, stderr %q; perf: %d, %q, %q", args, r.code, r.out, r.err, status, pout, perr)
		}
	}
}

// TestLatencyPerf compares perf script -L (the comm column "%8.8s ", the
// cpu "%3d "), --dump-unsorted-raw-trace (-D in file order) and -F TYPE:
// without fields for a type the recording has not ("hardware events do
// not exist") with perf 6.1's on a recording of a program whose name is
// longer than 8, with and without call chains and side-band lines.
func TestLatencyPerf(t *testing.T) {
	data := filterProgRecorded(t, []string{"-e", "cpu-clock", "-c", "200000", "-g", "--sample-cpu"})[0]
	for _, args := range [][]string{{"-L"}, {"-L", "--show-task-events", "--show-mmap-events"}, {"-L", "-F", "comm,pid,tid,cpu,time,ip,sym"},
		{"-LG", "--ns"}, {"--dump-unsorted-raw-trace"}, {"-D", "--dump-unsorted-raw-trace", "--show-round-events"},
		{"-F", "hw:"}, {"-F", "trace:", "-F", "ip"}} {
		comparePerfScript(t, data, args...)
	}
}

// TestEvSwitchPerf compares --switch-on, --switch-off and
// --show-on-off-events (perf's evswitch) with perf 6.1's on a recording of
// three software events that interleave: on, off, both (one event, two),
// a name that is no event's.
func TestEvSwitchPerf(t *testing.T) {
	data := filterProgRecorded(t, []string{"-e", "cpu-clock/period=300000/", "-e", "page-faults/period=1/", "-e", "task-clock/period=500000/"})[0]
	// perf names the events as given, with the period: the names to use.
	out, err := exec.Command("perf", "evlist", "-i", data).Output()
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(string(out))
	if len(names) != 3 {
		t.Fatalf("perf evlist: %q", names)
	}
	for _, c := range [][2]string{{names[1], ""}, {"", names[0]}, {names[0], names[0]}, {names[2], names[1]}} {
		var args []string
		if c[0] != "" {
			args = append(args, "--switch-on", c[0])
		}
		if c[1] != "" {
			args = append(args, "--switch-off="+c[1])
		}
		comparePerfScript(t, data, args...)
		comparePerfScript(t, data, append(args, "--show-on-off-events", "-F", "event,time")...)
	}
	comparePerfScript(t, data, "--switch-on", "bogus")
	comparePerfScript(t, data, "--switch-on", names[0], "--no-switch-on")
	comparePerfScript(t, data, "--switch-off", "")
}

// TestPerEventDumpPerf compares --per-event-dump with perf 6.1's: the
// files "<input>.<event>.dump" (every event's, the dummy's too), what
// goes to stdout (side-band lines, perf's "Wrote" line per file, whose
// size is what glibc's buffer had written) and stderr; a name with a '/'
// is perf's "Couldn't create" refusal.
func TestPerEventDumpPerf(t *testing.T) {
	recs := filterProgRecorded(t, []string{"-e", "cpu-clock", "-e", "task-clock", "-c", "100000", "-g"}, []string{"-e", "cpu-clock/period=300000/"})
	plain, slash := recs[0], recs[1]
	// run runs a tool on a copy of data in a folder of its own, the
	// input named relatively, and returns what it printed and the dump
	// files.
	run := func(t *testing.T, tool, data string, args []string) map[string]string {
		wd := filepath.Join(t.TempDir(), tool)
		if err := os.Mkdir(wd, 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(wd, "in.data"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		if tool == "perf" {
			cmd := exec.Command("perf", append([]string{"script", "-i", "in.data", "--per-event-dump"}, args...)...)
			cmd.Dir = wd
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			status := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				status = ee.ExitCode()
			}
			got["stdout"], got["stderr"], got["status"] = out.String(), errb.String(), fmt.Sprint(status)
		} else {
			t.Chdir(wd)
			r := perfpt(append([]string{"script", "-i", "in.data", "--per-event-dump"}, args...)...)
			got["stdout"], got["stderr"], got["status"] = r.out, r.err, fmt.Sprint(r.code)
		}
		ents, err := os.ReadDir(wd)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.Name() != "in.data" {
				b, _ := os.ReadFile(filepath.Join(wd, e.Name()))
				got[e.Name()] = string(b)
			}
		}
		return got
	}
	for _, c := range []struct {
		data string
		args []string
	}{{plain, nil}, {plain, []string{"--show-task-events", "-G"}}, {plain, []string{"-F", "sw:"}}, {plain, []string{"-F", "comm,time,event", "--switch-off", "task-clock"}}, {slash, nil}} {
		want, got := run(t, "perf", c.data, c.args), run(t, "perfpt", c.data, c.args)
		for name, w := range want {
			if g, ok := got[name]; !ok {
				t.Errorf("%s %q: no %s", filepath.Base(c.data), c.args, name)
			} else if g != w {
				d := linediff.Compare(g, w)
				t.Errorf("%s %q: %s: %d of %d lines differ from perf's; first %s", filepath.Base(c.data), c.args, name, d.N, d.Lines, d.String("perfpt", "perf"))
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("%s %q: %s, which perf does not write", filepath.Base(c.data), c.args, name)
			}
		}
		t.Logf("%s %q: %d outputs compared; stdout %q", filepath.Base(c.data), c.args, len(want), want["stdout"])
	}
}

// TestGraphFunctionPerf compares --graph-function (perf's show_event: the
// sample of a call to or a return from a function named, then the
// thread's samples deeper than it) with perf 6.1's on an emulated PT
// recording of threads: call traces, branches (whose thread stack perf
// keeps too), a list of names, an empty name.
func TestGraphFunctionPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("no perf")
	}
	data := filepath.Join(t.TempDir(), "pt.data")
	emulateTo(t, data, []string{testprog.Path(t, "threads-dyn-O2")})
	for _, args := range [][]string{{"--call-trace", "--graph-function", "main"}, {"--call-ret-trace", "--graph-function", "worker,start_thread"},
		{"--itrace=b", "-F", "+flags", "--graph-function", "start_thread"}, {"--itrace=cr", "-F", "+callindent", "--graph-function=_dl_fixup,printf"},
		{"--call-trace", "--graph-function", ","}, {"--graph-function", "main", "--no-graph-function"}} {
		comparePerfScript(t, data, args...)
	}
}
