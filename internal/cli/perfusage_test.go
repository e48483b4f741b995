package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/linediff"
)

// perfStderr runs perf with args and returns its stderr and exit status.
func perfStderr(t *testing.T, args ...string) (string, int) {
	t.Helper()
	_, stderr, status := perfRun(t, args...)
	return stderr, status
}

// perfRun runs perf with args and returns its stdout, stderr and exit
// status (it fails the test when perf cannot be run).
func perfRun(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command("perf", args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		status = ee.ExitCode()
	}
	return out.String(), errb.String(), status
}

// usageHead is a refusal's text up to the end of its usage lines: the
// error lines and " Usage: ..." with the command's name as "CMD"; perf's
// "    or:" lines (perf script's ways of running scripts, which perfpt
// does not have) are dropped.
func usageHead(s, cmd string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(l, "    or: ") {
			continue
		}
		b.WriteString(strings.Replace(l, cmd, "CMD", 1))
		if strings.HasPrefix(l, " Usage: ") {
			break
		}
	}
	return b.String()
}

// TestPerfUsageErrors compares perfpt's refusals of bad command lines with
// perf 6.1's: exit status 129, the same error lines, a usage of the same
// shape (checked option by option in TestPerfUsageShape). The options are
// refused before any file is opened, by both.
func TestPerfUsageErrors(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	for _, c := range []struct {
		perf, ours []string // the command (perf's, perfpt's)
		args       string
	}{
		{[]string{"script"}, []string{"script"}, "--bogus"},
		{[]string{"script"}, []string{"script"}, "-x"},
		{[]string{"script"}, []string{"script"}, "-Gx"},
		{[]string{"script"}, []string{"script"}, "-i"},
		{[]string{"script"}, []string{"script"}, "--input"},
		{[]string{"script"}, []string{"script"}, "--max-stack=abc"},
		{[]string{"script"}, []string{"script"}, "--max-stack -1"},
		{[]string{"script"}, []string{"script"}, "--ns=3"},
		{[]string{"script"}, []string{"script"}, "--max-blocks=abc"},
		{[]string{"script"}, []string{"script"}, "--max-blocks 3x"},
		{[]string{"script"}, []string{"script"}, "--itrace=zz"},
		{[]string{"script"}, []string{"script"}, "-F +cgroup"},
		{[]string{"script"}, []string{"script"}, "-Fbogus"},
		{[]string{"script"}, []string{"script"}, "--fields=+cgroup"},
		{[]string{"script"}, []string{"script"}, "--fields +cgroup"},
		{[]string{"script"}, []string{"script"}, "-F ip -F hw:bogus"},
		{[]string{"script"}, []string{"script"}, "-F ip,+sym"},
		{[]string{"script"}, []string{"script"}, "-F foo:ip"},
		// abbreviations (parse_long_opt)
		{[]string{"script"}, []string{"script"}, "--max"},
		{[]string{"script"}, []string{"script"}, "--hea"},
		{[]string{"script"}, []string{"script"}, "--itr=zz"},
		// perf's whole table resolves abbreviations and negations,
		// the options perfpt refuses as not implemented included
		// (parse_long_opt); errors name the option's whole name.
		{[]string{"script"}, []string{"script"}, "--max-st=x"},
		{[]string{"script"}, []string{"script"}, "--max-st x"},
		{[]string{"script"}, []string{"script"}, "--n"},
		{[]string{"script"}, []string{"script"}, "--no"},
		{[]string{"script"}, []string{"script"}, "--no-"},
		{[]string{"script"}, []string{"script"}, "--no-max-st=3"},
		{[]string{"script"}, []string{"script"}, "--no-sho"},
		{[]string{"script"}, []string{"script"}, "--sho"},
		{[]string{"script"}, []string{"script"}, "--s"},
		{[]string{"script"}, []string{"script"}, "--he"},
		{[]string{"script"}, []string{"script"}, "--gu"},
		{[]string{"script"}, []string{"script"}, "--hel"},
		{[]string{"script"}, []string{"script"}, "--show-task=1"},
		{[]string{"script"}, []string{"script"}, "--no-header-only=1"},
		{[]string{"script"}, []string{"script"}, "--no-show-task=1"},
		{[]string{"script"}, []string{"script"}, "--dlfilter"},
		{[]string{"script"}, []string{"script"}, "--all-cpus=1"},
		{[]string{"script"}, []string{"script"}, "-S"},
		{[]string{"script"}, []string{"script"}, "-GS"},
		{[]string{"script"}, []string{"script"}, "--stop"},
		{[]string{"script"}, []string{"script"}, "--addr-range 0x10"},
		// perf takes the options perfpt refuses: its later errors
		// are its answer.
		{[]string{"script"}, []string{"script"}, "-ax"},
		{[]string{"script"}, []string{"script"}, "-S foo --bogus"},
		{[]string{"script"}, []string{"script"}, "--no-itrace --max-stack=x"},
		// perf's second line sends to perf script -l; perfpt runs no
		// scripts and says so (checked below).
		{[]string{"script"}, []string{"script"}, "-i x.data extra"},
		{[]string{"script"}, []string{"script"}, "-i x.data -- -G"},
		{[]string{"report", "-D"}, []string{"dump"}, "--bogus"},
		{[]string{"report", "-D"}, []string{"dump"}, "-i"},
		{[]string{"report", "--header-only"}, []string{"header"}, "--bogus"},
		{[]string{"report", "--header-only"}, []string{"header"}, "--show-info=3"},
		{[]string{"record"}, []string{"record"}, "--bogus"},
		// perf's short option clusters and its whole tables (perf
		// report's for dump and header, perf record's): -bogus is -b
		// (perf report's --branch-stack), then an unknown -o.
		{[]string{"report", "-D"}, []string{"dump"}, "-bogus"},
		{[]string{"report", "--header-only"}, []string{"header"}, "-bogus"},
		{[]string{"report", "--header-only"}, []string{"header"}, "-Iy"},
		{[]string{"report", "-D"}, []string{"dump"}, "--s"},
		{[]string{"report", "-D"}, []string{"dump"}, "--sho"},
		{[]string{"report", "--header-only"}, []string{"header"}, "--i"},
		{[]string{"report", "--header-only"}, []string{"header"}, "--inp"},
		{[]string{"report", "--header-only"}, []string{"header"}, "--input=x --show-info=1"},
		{[]string{"report", "-D"}, []string{"dump"}, "-x -y"},
		{[]string{"report", "-D"}, []string{"dump"}, "--header-only=1"},
		{[]string{"record"}, []string{"record"}, "-x"},
		{[]string{"record"}, []string{"record"}, "--s"},
		{[]string{"record"}, []string{"record"}, "--bpf-event=1"},
		{[]string{"record"}, []string{"record"}, "-p 1 -y"},
		{[]string{"record"}, []string{"record"}, "-o"},
		// --call-graph takes a mode (parse_callchain_record), not a switch
		{[]string{"record"}, []string{"record"}, "--call-graph bogus"},
		{[]string{"record"}, []string{"record"}, "--call-gr=bogus"},
		{[]string{"record"}, []string{"record"}, "--call-graph dwarf,x"},
		{[]string{"record"}, []string{"record"}, "--call-graph dwarf,70000"},
		// get_stack_size: strtoul(size, &end, 0) of the whole token,
		// rounded up to 8; lbr takes no more.
		{[]string{"record"}, []string{"record"}, "--call-graph dwarf,0b1000"},
		{[]string{"record"}, []string{"record"}, "--call-graph dwarf,1_0"},
		{[]string{"record"}, []string{"record"}, "--call-graph dwarf,-8"},
		{[]string{"record"}, []string{"record"}, "--call-graph dwarf,65529"},
		{[]string{"record"}, []string{"record"}, "--call-graph lbr,3"},
		{[]string{"record"}, []string{"record"}, "--call-graph ,"},
		// -h: the usage on stderr, status 129 (perf's --help opens a
		// man page: TestHelpUsage).
		{[]string{"script"}, []string{"script"}, "-h"},
		{[]string{"report", "-D"}, []string{"dump"}, "-h"},
		{[]string{"report", "--header-only"}, []string{"header"}, "-h"},
		{[]string{"record"}, []string{"record"}, "-h"},
	} {
		t.Run(strings.Join(c.ours, " ")+" "+c.args, func(t *testing.T) {
			args := strings.Fields(c.args)
			want, status := perfStderr(t, append(c.perf, args...)...)
			var out, got bytes.Buffer
			code := Main(append(append([]string{"perfpt"}, c.ours...), args...), nil, &out, &got)
			if code != status {
				t.Errorf("exit status %d, perf %d", code, status)
			}
			g, w := usageHead(got.String(), "perfpt "+c.ours[0]), usageHead(want, "perf "+c.perf[0])
			if strings.HasSuffix(c.args, "extra") || strings.Contains(c.args, "-- ") {
				w = strings.Replace(w, " See CMD -l for available scripts.", " CMD runs no scripts.", 1)
			}
			if g != w {
				t.Errorf("stderr starts\n%s\nperf's\n%s", g, w)
			}
		})
	}
}

// TestPerfUsageShape checks each option line of perfpt script's usage
// against perf script's line for the same option: the same value name and
// layout when given perf's help text.
func TestPerfUsageShape(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	text, _ := perfStderr(t, "script", "--bogus")
	// perf's table: each option's line(s), by its long name (or letter).
	perfLines := map[string]string{}
	var order []string
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "    -") && !strings.HasPrefix(l, "        --") {
			continue
		}
		// The option ends at two spaces before its help, or at the
		// line's end when its help is on the next line.
		head, _, sameLine := strings.Cut(strings.TrimSpace(l), "  ")
		key := head[:2]
		if j := strings.Index(head, "--"); j >= 0 {
			key = strings.FieldsFunc(head[j+2:], func(r rune) bool { return r == ' ' || r == '[' || r == '<' })[0]
		}
		if !sameLine && i+1 < len(lines) {
			l += lines[i+1]
		}
		perfLines[key] = l
		order = append(order, key)
	}
	if len(perfLines) < 50 {
		t.Fatalf("only %d options in perf script's usage:\n%s", len(perfLines), text)
	}
	rank := map[string]int{}
	for i, k := range order {
		rank[k] = i
	}
	compared, last := 0, -1
	for _, o := range scriptHelp.sorted() {
		key := o.long
		if key == "" {
			key = "-" + string(o.short)
		}
		want, ok := perfLines[key]
		if !ok {
			continue // perfpt's own (-j) or perf's negated form (--no-inline)
		}
		help := strings.TrimSpace(want[strings.LastIndex(want[:len(want)-1], "\n")+1:][usageOptsWidth+usageGap:])
		o.help = help
		var b bytes.Buffer
		writeOption(&b, o)
		if b.String() != want {
			t.Errorf("option %s: %q, perf %q", key, b.String(), want)
		}
		if rank[key] < last {
			t.Errorf("option %s listed out of perf's order", key)
		}
		last = rank[key]
		compared++
	}
	t.Logf("%d options compared with perf's", compared)
	if compared < 25 {
		t.Errorf("only %d options compared with perf's", compared)
	}
}

// TestStdinPipeInput: without -i, perf script, perf report -D and perf
// report --header-only read standard input when it is a pipe (perf_data's
// check_pipe), and the "captured on" line is the pipe's mtime (lines that
// depend on the second are left out of the comparison).
func TestStdinPipeInput(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	rec := exec.Command("perf", "record", "-q", "-o", "-", "-e", "{cpu-clock:u,page-faults:k}", "--", "true")
	data, err := rec.Output()
	if err != nil {
		t.Skipf("perf record to a pipe: %v", err)
	}
	noTime := func(s string) string {
		var b strings.Builder
		for _, l := range strings.SplitAfter(s, "\n") {
			if !strings.HasPrefix(l, "# captured on") {
				b.WriteString(l)
			}
		}
		return b.String()
	}
	for _, c := range []struct{ perf, ours []string }{
		{[]string{"script", "--header", "-I"}, []string{"script", "--header", "-I"}},
		{[]string{"report", "--header-only"}, []string{"header"}},
		{[]string{"report", "-D"}, []string{"dump"}},
	} {
		t.Run(strings.Join(c.ours, " "), func(t *testing.T) {
			cmd := exec.Command("perf", c.perf...)
			cmd.Stdin = bytes.NewReader(data) // a pipe, not a file
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("perf %v: %v", c.perf, err)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				w.Write(data)
				w.Close()
			}()
			defer r.Close()
			// The script runner reads os.Stdin itself.
			saved := os.Stdin
			os.Stdin = r
			defer func() { os.Stdin = saved }()
			var out, stderr bytes.Buffer
			if code := Main(append([]string{"perfpt"}, c.ours...), r, &out, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if strings.Contains(string(want), "# captured on") != strings.Contains(out.String(), "# captured on") {
				t.Errorf("captured-on line: perf has %v", strings.Contains(string(want), "# captured on"))
			}
			if d := linediff.Compare(noTime(out.String()), noTime(string(want))); d.N != 0 {
				t.Errorf("%d of %d lines differ from perf's; %s", d.N, d.Lines, d.String("perfpt", "perf"))
			}
		})
	}
}

// TestHelpUsage: -h and --help of the perf-mirroring commands print the
// whole usage on stderr, nothing on stdout, with status 129.
func TestHelpUsage(t *testing.T) {
	for _, cmd := range []string{"script", "dump", "header", "record"} {
		for _, h := range []string{"-h", "--help"} {
			var out, stderr bytes.Buffer
			code := Main([]string{"perfpt", cmd, h}, nil, &out, &stderr)
			if code != usageStatus || out.Len() != 0 || !strings.HasPrefix(stderr.String(), "\n Usage: perfpt "+cmd+" [<options>]") || !strings.Contains(stderr.String(), "\n    -") {
				t.Errorf("%s %s: status %d, stdout %q, stderr %q", cmd, h, code, out.String(), stderr.String())
			}
		}
	}
}

// TestScriptTableIsPerfs: perfpt script's option table is perf 6.1's, in
// perf's order (what --list-opts prints, the order parse_long_opt
// searches), with perfpt's -j after it; every option is either taken or
// refused as not implemented (TestEveryFlag checks each refusal).
func TestScriptTableIsPerfs(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	// perf lists them and exits with status 130.
	out, err := exec.Command("perf", "script", "--list-opts").Output()
	if len(out) == 0 {
		t.Fatalf("perf script --list-opts: %v", err)
	}
	var ours []string
	refused := 0
	for _, o := range scriptOptTable() {
		if o.long != "" {
			ours = append(ours, "--"+o.long)
		}
		if !o.implemented() {
			refused++
		}
	}
	if got, want := strings.Join(ours, " "), strings.TrimSpace(string(out)); got != want {
		t.Errorf("long options\n%s\nperf's\n%s", got, want)
	}
	t.Logf("%d options of perf's, %d refused as not implemented", len(ours), refused)
}

// TestPerfTablesArePerfs: the tables perfpt's dump, header and record read
// their command lines against are perf report's and perf record's, in
// perf's order (what --list-opts prints).
func TestPerfTablesArePerfs(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	for _, c := range []struct{ cmd, spec string }{{"report", perfReportOpts}, {"record", perfRecordOpts}} {
		out, err := exec.Command("perf", c.cmd, "--list-opts").Output()
		if len(out) == 0 {
			t.Fatalf("perf %s --list-opts: %v", c.cmd, err)
		}
		var ours []string
		for _, o := range perfOptTable(c.spec, nil) {
			if o.long != "" {
				ours = append(ours, "--"+o.long)
			}
		}
		if got, want := strings.Join(ours, " "), strings.TrimSpace(string(out)); got != want {
			t.Errorf("perf %s: long options\n%s\nperf's\n%s", c.cmd, got, want)
		}
	}
}

// TestPerfOptionsRefused: perf's options that dump, header and record do
// not implement are refused as such, by letter, by name and abbreviated,
// with status 129; perfpt's own are read in perf's ways (clusters,
// abbreviations, negations).
func TestPerfOptionsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"dump", "-x"}, "perfpt does not implement -x/--exclude-other"},
		{[]string{"dump", "--sor", "pid"}, "perfpt does not implement -s/--sort"},
		{[]string{"header", "-Ibi", "x"}, "perfpt does not implement -b/--branch-stack"},
		{[]string{"header", "--no-show-info"}, ""},
		{[]string{"record", "-p", "1"}, "perfpt does not implement -p/--pid"},
		{[]string{"record", "--bpf-event"}, "perfpt does not implement --bpf-event"},
		{[]string{"record", "-Se", "--", "true"}, "perfpt does not implement a value of --snapshot (-Se)"},
		{[]string{"record", "--snapshot=e", "--", "true"}, "perfpt does not implement a value of --snapshot (--snapshot=e)"},
		{[]string{"record", "--call-graph", "dwarf", "--", "true"}, "perfpt does not implement --call-graph dwarf"},
		{[]string{"record", "--call-graph=lbr", "--", "true"}, "perfpt does not implement --call-graph lbr"},
		{[]string{"record", "--call-graph", "fp,8", "--", "true"}, "perfpt does not implement --call-graph fp,8"},
		{[]string{"record", "-e", "cpu-clock", "--call-graph", "fp", "-o", "/nonexistent/x", "--", "true"}, ""},
	} {
		var out, stderr bytes.Buffer
		code := Main(append([]string{"perfpt"}, c.args...), nil, &out, &stderr)
		if c.want == "" {
			if code == usageStatus {
				t.Errorf("%v: refused: %s", c.args, stderr.String())
			}
			continue
		}
		if code != usageStatus || !strings.HasPrefix(stderr.String(), "  Error: "+c.want+" ") {
			t.Errorf("%v: status %d, stderr %q: want %q", c.args, code, stderr.String(), c.want)
		}
	}
	// Clusters and abbreviations reach perfpt's flags: -Ii FILE.
	for _, args := range [][]string{{"header", "-Ii", "/nonexistent"}, {"header", "--show-i", "--inp=/nonexistent"}, {"dump", "-i/nonexistent"}} {
		var out, stderr bytes.Buffer
		Main(append([]string{"perfpt"}, args...), nil, &out, &stderr)
		if !strings.Contains(stderr.String(), "/nonexistent") {
			t.Errorf("%v: %q does not name the input", args, stderr.String())
		}
	}
}

// TestTracePresetsMatchPerf: --insn-trace, --call-trace and
// --call-ret-trace (perf's presets of -F, --itrace and --ns; --call-trace
// pads DSO names to 50) print what perf 6.1 prints, alone, negated (perf's
// callbacks ignore unset), with -F or --itrace after them (perf's itrace
// options add up); their bad values are refused as perf refuses them.
func TestTracePresetsMatchPerf(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	base := []string{"script", "-i", "../../testdata/example/primes.perf.data", "--symfs", "../../testdata/example/symfs"}
	for _, args := range []string{
		"--insn-trace", "--insn-trace=raw", "--call-trace", "--call-ret-trace", "--no-call-trace",
		"--call-tr -F+ip", "--insn-trace -F-insn", "--call-ret-trace --itrace=cr", "--itrace=cr --itrace=i",
		"--itrace=b --itrace=i1000i", "--call-trace --itrace=i100000i", "--call-trace -F+brstacksym",
	} {
		sameAsPerf(t, append(append([]string(nil), base...), strings.Fields(args)...))
	}
	for _, args := range []string{"--insn-trace=disasm", "--insn-trace=x"} {
		want, status := perfStderr(t, append(base, args)...)
		var out, got bytes.Buffer
		code := Main(append([]string{"perfpt"}, append(base, args)...), nil, &out, &got)
		if code != status || usageHead(got.String(), "perfpt script") != usageHead(want, "perf script") {
			t.Errorf("%s: status %d, stderr %q; perf %d, %q", args, code, got.String(), status, want)
		}
	}
	// perf's second call gives earlier instructions the default period.
	var out, stderr bytes.Buffer
	if code := Main(append([]string{"perfpt"}, append(base, "--itrace=i100i", "--itrace=b")...), nil, &out, &stderr); code != usageStatus ||
		!strings.Contains(stderr.String(), "perfpt does not implement --itrace=b after") {
		t.Errorf("--itrace=i100i --itrace=b: status %d, %q", code, stderr.String())
	}
}

// TestStopBTMatchesPerf: --stop-bt ends each call chain after a frame of
// the symbols listed (sample__fprintf_callchain), a later --stop-bt
// replacing an earlier one; compared with perf 6.1.
func TestStopBTMatchesPerf(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	for _, args := range []string{"--stop-bt __libc_start_call_main", "--stop-bt=dl_main,handle_amd", "--stop-bt dl_main --stop-bt nosuch",
		"--stop-bt ,_dl_sysdep_start", "--stop-bt dl_main --no-stop-bt", "--stop-bt dl_main -F ip,sym"} {
		sameAsPerf(t, append([]string{"script", "-i", dumpFixture}, strings.Fields(args)...))
	}
	// The list is read as perf's other symbol__init lists: file:// lists
	// (one name per line), and a name twice is "problems parsing symbol
	// list" with nothing printed and status 0 (we refused both, 129).
	dir := t.TempDir()
	list, twice := filepath.Join(dir, "list"), filepath.Join(dir, "twice")
	if err := os.WriteFile(list, []byte("_dl_sysdep_start\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(twice, []byte("dl_main\ndl_main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"file://" + list, "dl_main,file://" + list, "dl_main,dl_main", "file://" + twice, "file://" + filepath.Join(dir, "none"), ""} {
		args := []string{"script", "-i", dumpFixture, "--stop-bt", v}
		sameAsPerf(t, args)
		var out, stderr, perfErr bytes.Buffer
		Main(append([]string{"perfpt"}, args...), nil, &out, &stderr)
		cmd := exec.Command("perf", args...)
		cmd.Stderr = &perfErr
		if _, err := cmd.Output(); err != nil {
			t.Fatalf("perf %v: %v", args, err)
		}
		if stderr.String() != perfErr.String() {
			t.Errorf("--stop-bt %q: stderr %q, perf's %q", v, stderr.String(), perfErr.String())
		}
	}
}

// sameAsPerf runs perf and perfpt with args and fails unless perfpt
// succeeds with perf's output.
func sameAsPerf(t *testing.T, args []string) {
	t.Helper()
	want, err := exec.Command("perf", args...).Output()
	if err != nil {
		t.Fatalf("perf %v: %v", args, err)
	}
	var out, stderr bytes.Buffer
	if code := Main(append([]string{"perfpt"}, args...), nil, &out, &stderr); code != 0 {
		t.Errorf("%v: status %d: %s", args, code, stderr.String())
		return
	}
	if d := linediff.Compare(out.String(), string(want)); d.N != 0 {
		t.Errorf("%v: %d of %d lines differ from perf's; %s", args, d.N, d.Lines, d.String("perfpt", "perf"))
	}
}

// TestNumericValuesPerf: --max-stack, --max-blocks and --addr-range read
// as perf's OPT_UINTEGER and OPT_INTEGER read them (strtol base 10:
// leading space and a sign taken, "" is 0, the value cut to 32 bits), each
// value compared with perf 6.1: the output when perf takes it, the first
// line of the message and the status when it refuses it.
func TestNumericValuesPerf(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	for _, v := range []string{" 5", "+5", "\t5", "", " -3", "4294967296", "2147483648", "3000000000", "99999999999999999999999",
		"-99999999999999999999999", "7", "0", "5 ", "0x5", "+", " ", "-", "12a", "-3"} {
		for _, o := range []string{"--max-stack=", "--max-blocks=", "--addr-range="} {
			args := []string{"script", "-i", cgData, o + v, "-S", "0x1000"}
			if o == "--max-blocks=" && v == "99999999999999999999999" {
				continue // LONG_MAX, all ones in 32 bits: refused as -1 is (perf reads out of bounds)
			}
			var out, stderr, perfErr bytes.Buffer
			code := Main(append([]string{"perfpt"}, args...), nil, &out, &stderr)
			cmd := exec.Command("perf", args...)
			cmd.Stderr = &perfErr
			want, err := cmd.Output()
			var ee *exec.ExitError
			switch {
			case errors.As(err, &ee) && ee.ExitCode() == usageStatus:
				first := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
				if code != usageStatus || first(stderr.String()) != first(perfErr.String()) {
					t.Errorf("%q: status %d, %q; perf refuses it: %q", o+v, code, first(stderr.String()), first(perfErr.String()))
				}
			case err != nil:
				t.Fatalf("perf %v: %v", args, err)
			case code != 0:
				t.Errorf("%q: status %d: %s (perf takes it)", o+v, code, stderr.String())
			case out.String() != string(want):
				t.Errorf("%q: output differs from perf's", o+v)
			}
		}
	}
}
