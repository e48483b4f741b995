package cli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestEveryFlag walks every option of every subcommand, as the command
// line defines it (urfave/cli's flags, script's option table, the option
// strings of ptdump's and ptxed's parsers), and runs for each a check that
// passing it changes what the command does or is refused with a message
// naming it. An option without a check fails the test, and so does a check
// of an option that no longer exists.
func TestEveryFlag(t *testing.T) {
	defined := definedFlags(t)
	checks := flagChecks(t.TempDir())
	for name, c := range demangleFlagChecks() {
		checks[name] = c
	}
	for _, name := range defined {
		if checks[name] == nil {
			t.Errorf("%s: no check shows what this option does", name)
		}
	}
	have := map[string]bool{}
	for _, name := range defined {
		have[name] = true
	}
	var names []string
	for name := range checks {
		if !have[name] {
			t.Errorf("%s: checked but not an option any more", name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(strings.ReplaceAll(name, "/", "_"), checks[name])
	}
}

// definedFlags lists "command/option" for every option of every command.
func definedFlags(t *testing.T) []string {
	var out []string
	for _, c := range App(nil, nil, nil).Commands {
		for _, f := range c.Flags {
			out = append(out, c.Name+"/"+f.Names()[0])
		}
	}
	// script: perf's whole table (perfpt refuses what it does not
	// implement: scriptRefusalChecks), the negations that are checked.
	for _, o := range scriptOptTable() {
		out = append(out, scriptOptNames(o)...)
	}
	out = append(out, "script/no-demangle", "script/no-inline", "script/h")
	// ptdump and ptxed parse libipt's options by hand: every option
	// string of their parsers.
	for _, p := range []struct{ cmd, src string }{{"ptdump", "ptdump/main.go"}, {"ptxed", "ptxed/options.go"}} {
		b, err := os.ReadFile(filepath.Join("..", "..", "ptdecode", p.src))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, m := range regexp.MustCompile(`"(--?[a-zA-Z][a-zA-Z0-9:._-]*)"`).FindAllStringSubmatch(string(b), -1) {
			name := strings.TrimLeft(m[1], "-")
			if name == "filter:addr" || name == "filter:addr0_" {
				name = "filter:addrN" // --filter:addr<n>_cfg|_a|_b
			}
			if !seen[name] {
				seen[name] = true
				out = append(out, p.cmd+"/"+name)
			}
		}
	}
	if len(out) < 150 {
		t.Fatalf("only %d options found: the walk lost some", len(out))
	}
	return out
}

// scriptOptNames are "script/NAME" for an option's letter and long name.
func scriptOptNames(o scriptOpt) []string {
	var out []string
	if o.short != 0 {
		out = append(out, "script/"+string(o.short))
	}
	if o.long != "" {
		out = append(out, "script/"+o.long)
	}
	return out
}

// scriptRefusalChecks check that each of perf script's options perfpt does
// not implement is refused, by its letter and by its name, with a message
// naming it.
func scriptRefusalChecks(data string) map[string]func(t *testing.T) {
	checks := map[string]func(t *testing.T){}
	for _, o := range scriptOptTable() {
		if o.implemented() {
			continue
		}
		for _, n := range scriptOptNames(o) {
			n = strings.TrimPrefix(n, "script/")
			arg := "--" + n
			if len(n) == 1 {
				arg = "-" + n
			}
			args := []string{"script", "-i", data, arg}
			if o.argh != "" && !o.optArg {
				args = append(args, "x")
			}
			want := "perfpt does not implement --" + o.long
			if o.short != 0 {
				want = fmt.Sprintf("perfpt does not implement -%c/--%s", o.short, o.long)
			}
			checks["script/"+n] = refused(want, args...)
		}
	}
	return checks
}

// cmdResult is one run of perfpt.
type cmdResult struct {
	out, err string
	code     int
}

func perfpt(args ...string) cmdResult {
	var o, e bytes.Buffer
	code := Main(append([]string{"perfpt"}, args...), nil, &o, &e)
	return cmdResult{o.String(), e.String(), code}
}

// ok runs args and fails unless perfpt exits 0.
func ok(t *testing.T, args ...string) cmdResult {
	t.Helper()
	r := perfpt(args...)
	if r.code != 0 {
		t.Fatalf("perfpt %s: exit %d: %s", strings.Join(args, " "), r.code, r.err)
	}
	return r
}

// differs checks that adding extra to base changes the output (stdout and
// the files in outs), both runs succeeding.
func differs(base []string, extra ...string) func(t *testing.T) {
	return differsIn(nil, base, extra...)
}

func differsIn(outs []string, base []string, extra ...string) func(t *testing.T) {
	return func(t *testing.T) {
		t.Helper()
		read := func(r cmdResult) string {
			return r.out + readOutputs(outs)
		}
		a := read(ok(t, base...))
		b := read(ok(t, append(append([]string(nil), base...), extra...)...))
		if a == b {
			t.Errorf("perfpt %s: %v changes nothing", strings.Join(base, " "), extra)
		}
	}
}

// differ checks that the two invocations print or write (in files)
// different outputs.
func differ(files []string, a, b []string) func(t *testing.T) {
	return func(t *testing.T) {
		t.Helper()
		read := func(args []string) string { return ok(t, args...).out + readOutputs(files) }
		if read(a) == read(b) {
			t.Errorf("%v and %v give the same output", a, b)
		}
	}
}

// readOutputs reads the files and directories in outs (then removes them).
func readOutputs(outs []string) string {
	var s strings.Builder
	for _, o := range outs {
		filepath.Walk(o, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				c, _ := os.ReadFile(p)
				s.WriteString("\x00" + p + "\x00")
				s.Write(c)
			}
			return nil
		})
		os.RemoveAll(o)
	}
	return s.String()
}

// refused checks that args fail with a message that contains want.
func refused(want string, args ...string) func(t *testing.T) {
	return func(t *testing.T) {
		t.Helper()
		r := perfpt(args...)
		if r.code == 0 || !strings.Contains(r.err, want) {
			t.Errorf("perfpt %s: exit %d, stderr %q: want a refusal naming %q", strings.Join(args, " "), r.code, r.err, want)
		}
	}
}

// warns checks that args succeed with a warning that contains want.
func warns(want string, args ...string) func(t *testing.T) {
	return func(t *testing.T) {
		t.Helper()
		if r := ok(t, args...); !strings.Contains(r.err, want) {
			t.Errorf("perfpt %s: stderr %q: want a warning %q", strings.Join(args, " "), r.err, want)
		}
	}
}

// all runs every check.
func all(checks ...func(t *testing.T)) func(t *testing.T) {
	return func(t *testing.T) {
		for _, c := range checks {
			c(t)
		}
	}
}

const (
	example   = "../../testdata/example/primes.perf.data"
	exSymfs   = "../../testdata/example/symfs"
	exBin     = "../../testdata/example/symfs/tmp/perfpt-example/primes"
	cgData    = "../../testdata/perf/cpu-clock-g.data"     // sampled, with call chains and kernel samples
	dwarfData = "../../testdata/perf/cpu-clock-dwarf.data" // --call-graph dwarf: inlined frames
)

// ptFileDir holds ptFile's trace; TestMain removes it.
var ptFileDir string

// ptFile writes the Intel PT data of the example recording (one CPU) to a
// raw trace file for ptdump and ptxed.
var ptFile = func() func(t *testing.T) string {
	var path string
	return func(t *testing.T) string {
		if path != "" {
			return path
		}
		f, err := perfdata.Open(example)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		raw, err := os.ReadFile(example)
		if err != nil {
			t.Fatal(err)
		}
		var pt []byte
		rs := f.Records(perfdata.FileOrder)
		for rs.Next() {
			if r, ok := rs.Record.(*perfdata.RecordAuxtrace); ok {
				pt = append(pt, raw[r.DataOffset:r.DataOffset+int64(r.AuxSize)]...)
			}
		}
		if err := rs.Err(); err != nil || len(pt) == 0 {
			t.Fatalf("no PT data in %s: %v", example, err)
		}
		dir, err := os.MkdirTemp("", "perfpt-flags-")
		if err != nil {
			t.Fatal(err)
		}
		ptFileDir = dir
		path = filepath.Join(dir, "primes.pt")
		if err := os.WriteFile(path, pt, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
}()

func flagChecks(tmp string) map[string]func(t *testing.T) {
	ex := []string{"-i", example, "--symfs", exSymfs}
	sc := func(extra ...string) []string {
		return append([]string{"script", "-i", example, "--symfs", exSymfs}, extra...)
	}
	pprofOut := filepath.Join(tmp, "perfpt-flags.pb.gz")
	gcovDir := filepath.Join(tmp, "perfpt-flags-gcov")
	pp := func(extra ...string) []string {
		return append(append([]string{"pprof"}, ex...), append([]string{"-o", pprofOut}, extra...)...)
	}
	gc := func(extra ...string) []string {
		return append(append([]string{"gcov"}, ex...), append([]string{"-o", gcovDir}, extra...)...)
	}

	// record: an emulated recording of tiny, its intel_pt config read back.
	rec := func(extra ...string) (config uint64, dump string, r cmdResult, ok bool) {
		out := filepath.Join(tmp, "perfpt-flags-rec.data")
		defer os.Remove(out)
		r = perfpt(append(append([]string{"record", "--emulate", "-N", "-o", out}, extra...), "--", tinyPath)...)
		if r.code != 0 {
			return 0, "", r, false
		}
		f, err := perfdata.Open(out)
		if err != nil {
			return 0, "", r, false
		}
		defer f.Close()
		var b bytes.Buffer
		rs := f.Records(perfdata.FileOrder)
		for rs.Next() {
			fmt.Fprintf(&b, "%T\n", rs.Record)
		}
		for _, a := range f.Attrs {
			if a.Type == 8 {
				config = a.Config
			}
		}
		return config, b.String(), r, true
	}
	recConfig := func(mask uint64, extra ...string) func(t *testing.T) {
		return func(t *testing.T) {
			needTiny(t)
			c0, _, r, ok0 := rec()
			c1, _, r1, ok1 := rec(extra...)
			if !ok0 || !ok1 {
				t.Fatalf("recording failed: %s%s", r.err, r1.err)
			}
			if c0&mask == c1&mask {
				t.Errorf("%v: intel_pt config %#x, without it %#x", extra, c1, c0)
			}
		}
	}

	recStderr := func(want string, extra ...string) func(t *testing.T) {
		return func(t *testing.T) {
			needTiny(t)
			_, _, r, ok := rec(extra...)
			if !ok || !strings.Contains(r.err, want) {
				t.Errorf("%v: exit %d, stderr %q, want %q", extra, r.code, r.err, want)
			}
		}
	}

	checks := map[string]func(t *testing.T){
		// record
		"record/output": all(func(t *testing.T) {
			needTiny(t)
			out := filepath.Join(t.TempDir(), "x.data")
			ok(t, "record", "--emulate", "-N", "-o", out, "--", tinyPath)
			if _, err := os.Stat(out); err != nil {
				t.Error(err)
			}
		}, refused("pipe-mode", "record", "--emulate", "-N", "-o", "-", "--", "/bin/true")),
		"record/event": all(recConfig(1<<11, "-e", "intel_pt/noretcomp/u"),
			refused("intel_pt//k", "record", "--emulate", "-e", "intel_pt//k", "--", "/bin/true"),
			refused("cyc_thresh", "record", "--emulate", "-e", "intel_pt/cyc_thresh=2/u", "--", "/bin/true")),
		"record/emulate": func(t *testing.T) {
			needTiny(t)
			if _, _, r, ok := rec(); !ok {
				t.Fatalf("--emulate: %s", r.err)
			}
			if _, err := os.Stat("/sys/bus/event_source/devices/intel_pt"); err == nil {
				return // this machine records intel_pt natively too
			}
			refused("Intel PT", "record", "-o", filepath.Join(t.TempDir(), "x"), "--", tinyPath)(t)
		},
		"record/single-step": recStderr("(single-step)", "--single-step"),
		"record/noretcomp":   all(recConfig(1<<11, "--noretcomp"), refused("--noretcomp needs --emulate", "record", "--noretcomp", "--", "/bin/true")),
		"record/timing": all(recConfig(1<<10|1<<9|1<<1, "--timing", "cyc"), refused("--timing needs --emulate", "record", "--timing", "bogus", "--", "/bin/true"),
			refused("--timing", "record", "--emulate", "--timing", "bogus", "--", "/bin/true")),
		"record/mtc-period": all(recConfig(0xf<<14, "--mtc-period", "15"),
			refused("--mtc-period 99", "record", "--emulate", "--mtc-period", "99", "--", "/bin/true"),
			refused("--mtc-period 16", "record", "--emulate", "--mtc-period", "16", "--", "/bin/true")),
		"record/psb-period": all(recConfig(0xf<<24, "--psb-period", "65536"),
			refused("--psb-period", "record", "--emulate", "--psb-period", "5000", "--", "/bin/true")),
		"record/aux-buffer": all(func(t *testing.T) {
			// mix is large enough for several 256-byte AUXTRACE buffers.
			prog := testprog.Path(t, "mix-static-O0")
			count := func(extra ...string) int {
				out := filepath.Join(t.TempDir(), "x.data")
				ok(t, append(append([]string{"record", "--emulate", "-N", "-o", out}, extra...), "--", prog)...)
				return strings.Count(ok(t, "dump", "-i", out).out, "PERF_RECORD_AUXTRACE ")
			}
			if a, b := count(), count("--aux-buffer", "256"); a >= b {
				t.Errorf("--aux-buffer 256: %d AUXTRACE records, %d without", b, a)
			}
		},
			refused("--aux-buffer", "record", "--emulate", "--aux-buffer", "16", "--", "/bin/true")),
		"record/keep-aslr": func(t *testing.T) {
			// The vdso moves from run to run with ASLR kept, and stays put without.
			needTiny(t)
			vdso := func(extra ...string) string {
				out := filepath.Join(t.TempDir(), "x.data")
				ok(t, append(append([]string{"record", "--emulate", "-N", "-o", out}, extra...), "--", tinyPath)...)
				d := ok(t, "dump", "-i", out).out
				for _, l := range strings.Split(d, "\n") {
					if strings.Contains(l, "PERF_RECORD_MMAP2") && strings.HasSuffix(l, "[vdso]") {
						_, after, _ := strings.Cut(l, ": [0x")
						return after
					}
				}
				t.Fatalf("no [vdso] map in %s", d)
				return ""
			}
			if a, b := vdso(), vdso(); a != b {
				t.Error("the vdso moved without --keep-aslr")
			}
			a, b, c := vdso("--keep-aslr"), vdso("--keep-aslr"), vdso("--keep-aslr")
			if a == b && b == c {
				t.Error("--keep-aslr: the vdso is at the same address in three runs")
			}
		},
		"record/emulate-cpuid": func(t *testing.T) {
			// rtmroll c exits 0 when CPUID reports RTM and PTWRITE,
			// which the emulated CPUID does.
			prog := testprog.Path(t, "rtmroll")
			run := func(extra ...string) string {
				r := ok(t, append(append([]string{"record", "--emulate", "-N", "-o", filepath.Join(t.TempDir(), "x.data")}, extra...), "--", prog, "c")...)
				return r.err
			}
			if e := run("--emulate-cpuid"); strings.Contains(e, "exited with status") {
				t.Errorf("--emulate-cpuid: %s", e)
			}
			if _, err := os.Stat("/sys/bus/event_source/devices/intel_pt"); err == nil {
				return // the host may have them too
			}
			if e := run(); !strings.Contains(e, "exited with status 1") {
				t.Errorf("without --emulate-cpuid: %s", e)
			}
		},
		"record/buildid-dir": func(t *testing.T) {
			needTiny(t)
			dir := t.TempDir()
			out := filepath.Join(t.TempDir(), "x.data")
			r := ok(t, "record", "--emulate", "--buildid-dir", dir, "-o", out, "--", tinyPath)
			if !strings.Contains(r.err, "saved as "+dir) {
				t.Errorf("stderr %q: the [vdso] not saved in %s", r.err, dir)
			}
		},
		"record/no-buildid-cache": recStderr("wrote", "-N"),
		"record/freq": all(refused("--freq", "record", "--emulate", "-F", "99", "--", "/bin/true"),
			refused("--freq", "record", "-e", "intel_pt//u", "-F", "99", "--", "/bin/true"),
			nativeAttr(func(a *perfdata.Attr) bool { return a.SamplePeriod == 99 }, "-F", "99"),
			refused("frequency and count are zero", "record", "-e", "cpu-clock", "-F", "0", "--", "/bin/true"),
			refused("frequency and count are zero", "record", "-e", "cpu-clock", "-F", "abc", "--", "/bin/true"),
			func(t *testing.T) {
				b, err := os.ReadFile("/proc/sys/kernel/perf_event_max_sample_rate")
				if err != nil {
					t.Skip("no /proc/sys/kernel/perf_event_max_sample_rate")
				}
				max := strings.TrimSpace(string(b))
				nativeAttr(func(a *perfdata.Attr) bool { return strconv.FormatUint(a.SamplePeriod, 10) == max }, "-F", "100000000")(t)
			}),
		"record/g": all(refused("-g applies", "record", "--emulate", "-g", "--", "/bin/true"),
			nativeAttr(func(a *perfdata.Attr) bool { return a.SampleType&perfdata.SampleFormat(1<<5) != 0 }, "-g")),
		"record/call-graph": all(refused("--call-graph applies", "record", "--emulate", "--call-graph", "fp", "--", "/bin/true"),
			refused("perfpt does not implement --call-graph dwarf", "record", "-e", "cpu-clock", "--call-graph", "dwarf", "--", "/bin/true"),
			nativeAttr(func(a *perfdata.Attr) bool { return a.SampleType&perfdata.SampleFormat(1<<5) != 0 }, "--call-graph", "fp")),
		"record/emulate-cpus": all(emulateCPUs(nil, []string{"--emulate-cpus", "2", "--emulate-quantum", "10"}),
			refused("--emulate-cpus 0", "record", "--emulate", "--emulate-cpus", "0", "--", "/bin/true"),
			refused("--emulate-cpus needs --emulate", "record", "--emulate-cpus", "2", "--", "/bin/true")),
		"record/emulate-quantum": all(emulateCPUs([]string{"--emulate-cpus", "2", "--emulate-quantum", "10"}, []string{"--emulate-cpus", "2", "--emulate-quantum", "100"}),
			refused("--emulate-quantum", "record", "--emulate", "--emulate-quantum", "10", "--", "/bin/true")),
		"record/emulate-seed": all(emulateCPUs([]string{"--emulate-cpus", "2", "--emulate-quantum", "10"}, []string{"--emulate-cpus", "2", "--emulate-quantum", "10", "--emulate-seed", "7"}),
			refused("--emulate-seed", "record", "--emulate", "--emulate-seed", "3", "--", "/bin/true")),
		"record/emulate-kernel": all(func(t *testing.T) {
			needTiny(t)
			kernel := testprog.Path(t, "kernel")
			out := filepath.Join(t.TempDir(), "k.data")
			ok(t, "record", "--emulate", "-N", "--emulate-kernel", kernel, "-o", out, "--", tinyPath)
			if _, err := os.Stat(filepath.Join(out, "kcore_dir")); err != nil {
				t.Errorf("--emulate-kernel: no kernel+user directory recording: %v", err)
			}
		}, refused("--emulate-kernel", "record", "--emulate", "--emulate-kernel", "/nonexistent", "--", "/bin/true"),
			refused("--emulate-kernel needs --emulate", "record", "--emulate-kernel", "x", "--", "/bin/true")),
		"record/emulate-snapshot": all(emulateRecords([]string{"--per-thread"}, []string{"--per-thread", "--emulate-snapshot", "4096"}),
			emulateRecords(nil, []string{"--emulate-snapshot", "4096"}),
			refused("--emulate-snapshot needs a positive size", "record", "--emulate", "--emulate-snapshot", "-1", "--", "/bin/true"),
			func(t *testing.T) {
				refused("is not emulated system-wide", "record", "--emulate", "-a", "--emulate-kernel", testprog.Path(t, "kernel"),
					"--emulate-snapshot", "4096", "--", "/bin/true")(t)
			}),
		"record/emulate-snapshot-every": all(emulateRecords([]string{"--per-thread", "--emulate-snapshot", "4096"},
			[]string{"--per-thread", "--emulate-snapshot", "4096", "--emulate-snapshot-every", "1024"}),
			refused("--emulate-snapshot-every needs --emulate-snapshot", "record", "--emulate", "--emulate-snapshot-every", "10", "--", "/bin/true")),
		"record/emulate-overflow": all(emulateRecords(nil, []string{"--emulate-overflow", "2000"}),
			refused("--emulate-overflow", "record", "--emulate", "--emulate-overflow", "-1", "--", "/bin/true")),
		"record/emulate-aux-sample": all(emulateRecords([]string{"--per-thread"}, []string{"--per-thread", "--emulate-aux-sample", "2048"}),
			refused("--emulate-aux-sample needs a positive size and --per-thread", "record", "--emulate", "--emulate-aux-sample", "2048", "--", "/bin/true")),
		"record/emulate-aux-sample-every": all(emulateRecords([]string{"--per-thread", "--emulate-aux-sample", "2048"},
			[]string{"--per-thread", "--emulate-aux-sample", "2048", "--emulate-aux-sample-every", "3000"}),
			refused("--emulate-aux-sample-every needs --emulate-aux-sample", "record", "--emulate", "--emulate-aux-sample-every", "10", "--", "/bin/true")),
		"record/emulate-lose": all(emulateRecords([]string{"--per-thread", "--aux-buffer", "256"}, []string{"--per-thread", "--aux-buffer", "256", "--emulate-lose", "2"}),
			refused("--emulate-lose needs a positive count and --per-thread", "record", "--emulate", "--emulate-lose", "2", "--", "/bin/true")),
		"record/per-thread": func(t *testing.T) {
			needTiny(t)
			_, d0, r0, ok0 := rec()
			_, d1, r1, ok1 := rec("--per-thread")
			if !ok0 || !ok1 {
				t.Fatalf("recording failed: %s%s", r0.err, r1.err)
			}
			if d0 == d1 {
				t.Error("--per-thread: the same records")
			}
		},
		"record/all-cpus": all(refused("--all-cpus", "record", "--emulate", "-a", "--", "/bin/true"),
			refused("--per-thread", "record", "-e", "cpu-clock", "-a", "--per-thread", "--", "/bin/true"),
			refused("-a and --per-thread", "record", "--emulate", "--emulate-kernel", "x", "-a", "--per-thread", "--", "/bin/true"),
			func(t *testing.T) {
				// With --emulate-kernel: a system-wide recording,
				// the idle task (swapper) traced between turns.
				needTiny(t)
				kernel := testprog.Path(t, "kernel")
				dir := t.TempDir()
				a, b := filepath.Join(dir, "a.data"), filepath.Join(dir, "b.data")
				ok(t, "record", "--emulate", "-N", "--emulate-kernel", kernel, "-o", a, "--", tinyPath)
				ok(t, "record", "--emulate", "-N", "--emulate-kernel", kernel, "-a", "-o", b, "--", tinyPath)
				if sa, sb := ok(t, "script", "-i", a).out, ok(t, "script", "-i", b).out; strings.Contains(sa, "swapper") || !strings.Contains(sb, "swapper") {
					t.Error("record -a --emulate-kernel: the idle task is not traced system-wide only")
				}
			}),
		"record/cpu": all(refused("--cpu", "record", "--emulate", "-C", "0", "--", "/bin/true"),
			refused("-C", "record", "-e", "cpu-clock", "-C", "99999", "--", "/bin/true")),
		"record/snapshot": all(refused("--snapshot", "record", "--emulate", "-S", "--", "/bin/true"),
			refused("--snapshot needs the intel_pt event", "record", "-e", "cpu-clock", "-S", "--", "/bin/true")),
		"record/snapshot-on-exit": all(refused("--snapshot-on-exit", "record", "--emulate", "--snapshot-on-exit", "--", "/bin/true"),
			refused("--snapshot-on-exit needs the intel_pt event", "record", "-e", "cpu-clock", "--snapshot-on-exit", "--", "/bin/true")),

		// script (perf's options, parsed by hand)
		"script/i":      all(differs([]string{"script", "--symfs", exSymfs, "-i", example}, "-i", cgData), refused("nonexistent", "script", "-i", "/nonexistent")),
		"script/input":  differs([]string{"script", "--symfs", exSymfs, "--input", example}, "--input", cgData),
		"script/F":      differs(sc(), "-F", "ip"),
		"script/fields": differs(sc(), "--fields", "ip,sym"),
		"script/C":      all(differs(sc(), "-C", "1"), refused("cpu_list", "script", "-i", example, "-C", "x")),
		"script/cpu":    differs(sc(), "--cpu", "1"),
		// What they print is TestSampleFiltersPerf's.
		"script/c":     differs(sc(), "-c", "x"),
		"script/comms": differs(sc(), "--comms", "x"),
		"script/dsos":  differs(sc(), "--dsos", "x"),
		"script/S":     all(differs(sc(), "-S", "main"), differs(sc(), "-S", "main,digits")),
		"script/addr-range": all(differs(sc("-S", "0x401000"), "--addr-range", "65536"),
			refused("expects a numerical value", sc("--addr-range", "0x10")...)),
		"script/symbols": all(differs(sc(), "--symbols", "digits"), warns("problems parsing symbol list", sc("--symbols", "main,main")...)),
		"script/pid":     all(differs(sc(), "--pid", "1"), refused("pid list", "script", "-i", example, "--pid", "1;2")),
		"script/tid":     all(differs(sc(), "--tid", "1"), refused("tid list", "script", "-i", example, "--tid", "x")),
		"script/time": all(differs(sc(), "--time", ",1000.000100"), refused("Invalid time string", "script", "-i", example, "--time", "5,1"),
			differ(nil, []string{"script", "-i", example, "--time", ",1000.000100"}, []string{"script", "-i", example, "--time", ",1000.000100 1000.000200,"}),
			differs([]string{"script", "-i", cgData}, "--time", "10%/2"),
			refused("HINT: no first/last sample time", "script", "-i", example, "--time", "10%/2")),
		"script/symfs":    differs([]string{"script", "-i", example}, "--symfs", exSymfs),
		"script/k":        all(vmlinuxCheck("-k"), refused("Invalid file: /nonexistent", "script", "-i", example, "-k", "/nonexistent")),
		"script/vmlinux":  all(vmlinuxCheck("--vmlinux"), refused("Invalid file: /nonexistent", "script", "-i", example, "--vmlinux", "/nonexistent")),
		"script/kallsyms": kallsymsCheck,
		"script/j": all(refused("-j", "script", "-i", example, "-j", "0"), func(t *testing.T) {
			// -j changes how the work is shared, never the output.
			if a, b := ok(t, sc("-j", "1")...).out, ok(t, sc("-j", "3")...).out; a != b {
				t.Error("-j 1 and -j 3 print different text")
			}
		}),
		"script/ns":          differs(sc(), "--ns"),
		"script/reltime":     all(differs(sc(), "--reltime"), refused("reltime and deltatime", "script", "-i", example, "--reltime", "--deltatime")),
		"script/deltatime":   all(differs(sc(), "--deltatime"), differ(nil, sc("--reltime"), sc("--deltatime"))),
		"script/header":      differs([]string{"script", "-i", cgData}, "--header"),
		"script/header-only": differs([]string{"script", "-i", cgData}, "--header-only"),
		// -I prints a pipe's features as they go by, and the -I
		// sections with --header.
		"script/I":         all(differs([]string{"script", "-i", "../../testdata/perf/pipe.data"}, "-I"), differs([]string{"script", "-i", cgData, "--header"}, "-I")),
		"script/show-info": differs([]string{"script", "-i", "../../testdata/perf/pipe.data"}, "--show-info"),
		// What they print is TestLongNamesPerf's.
		"script/show-kernel-path":      kernelPathCheck,
		"script/full-source-path":      differs([]string{"script", "-i", "../../testdata/perf/cpu-clock-dwarf.data", "-F", "+srcline"}, "--full-source-path"),
		"script/show-task-events":      differs([]string{"script", "-i", cgData}, "--show-task-events"),
		"script/show-mmap-events":      differs([]string{"script", "-i", cgData}, "--show-mmap-events"),
		"script/show-switch-events":    differs([]string{"script", "-i", "../../testdata/perf/switch.data"}, "--show-switch-events"),
		"script/show-cgroup-events":    differs([]string{"script", "-i", "../../testdata/perf/syswide-z.data"}, "--show-cgroup-events"),
		"script/show-namespace-events": differs([]string{"script", "-i", "../../testdata/perf/syswide-z.data"}, "--show-namespace-events"),
		"script/show-lost-events":      differs([]string{"script", "-i", "../../testdata/perf/rounds-z.data"}, "--show-lost-events"),
		"script/show-round-events":     differs([]string{"script", "-i", cgData}, "--show-round-events"),
		"script/show-bpf-events":       sidebandShown("--show-bpf-events"),
		"script/show-text-poke-events": sidebandShown("--show-text-poke-events"),
		"script/max-stack":             all(differs([]string{"script", "-i", cgData}, "--max-stack", "1"), refused("--max-stack", "script", "-i", cgData, "--max-stack", "x")),
		"script/max-blocks": all(differs([]string{"script", "-i", "../../testdata/example/primes.perf.data", "--symfs", "../../testdata/example/symfs",
			"--itrace=i10000il16", "-F", "+brstackinsn"}, "--max-blocks", "2"),
			refused("--max-blocks", "script", "-i", cgData, "--max-blocks", "-1")),
		"script/no-inline": differs([]string{"script", "-i", dwarfData}, "--no-inline"),
		// A recording without LBR call stacks: perf's warning, the
		// stitching itself is TestStitchLBRMatchesPerf's (runner).
		"script/stitch-lbr": warns("Can't find LBR callchain. Switch off --stitch-lbr.", "script", "-i", dwarfData, "--stitch-lbr"),
		"script/inline":     differs([]string{"script", "-i", dwarfData, "--no-inline"}, "--inline"),
		"script/G":          differs([]string{"script", "-i", cgData}, "-G"),
		// What they print is TestLatencyPerf's and TestScriptListsPerf's.
		"script/L":              differs([]string{"script", "-i", cgData}, "-L"),
		"script/Latency":        differs([]string{"script", "-i", cgData}, "--Latency"),
		"script/l":              listCheck("List of available trace scripts:\n", "-l"),
		"script/list":           listCheck("List of available trace scripts:\n", "--list"),
		"script/list-dlfilters": listCheck("List of available dlfilters:\n", "--list-dlfilters"),
		// What they print is TestEvSwitchPerf's.
		"script/switch-on": all(differs([]string{"script", "-i", cgData, "--switch-on", "cpu-clock"}, "--show-on-off-events"),
			refused("switch-on event not found (x)", "script", "-i", cgData, "--switch-on", "x")),
		"script/switch-off": all(differs([]string{"script", "-i", cgData}, "--switch-off", "cpu-clock"),
			refused("switch-off event not found (x)", "script", "-i", cgData, "--switch-off", "x")),
		// What it prints is TestGraphFunctionPerf's.
		"script/graph-function": differs(sc("--call-trace"), "--graph-function", "main"),
		"script/per-event-dump": func(t *testing.T) {
			// What it writes is TestPerEventDumpPerf's; the files
			// go beside the input: a copy.
			b, err := os.ReadFile(cgData)
			if err != nil {
				t.Fatal(err)
			}
			in := filepath.Join(t.TempDir(), "cg.data")
			if err := os.WriteFile(in, b, 0o644); err != nil {
				t.Fatal(err)
			}
			r := ok(t, "script", "-i", in, "--per-event-dump")
			d, err := os.ReadFile(in + ".cpu-clock.dump")
			if err != nil || !strings.Contains(r.out, "[ perf script: Wrote ") || !bytes.Contains(d, []byte("cpu-clock:")) {
				t.Errorf("--per-event-dump: stdout %q, file %d bytes (%v)", r.out, len(d), err)
			}
		},
		"script/show-on-off-events": differs([]string{"script", "-i", cgData, "--switch-off", "cpu-clock"}, "--show-on-off-events"),
		// What -D prints is TestDumpRawPerf's (runner).
		"script/D": differs([]string{"script", "-i", cgData}, "-D"),
		"script/dump-unsorted-raw-trace": all(differs([]string{"script", "-i", cgData}, "--dump-unsorted-raw-trace"),
			differ(nil, []string{"script", "-i", cgData, "-D"}, []string{"script", "-i", cgData, "--dump-unsorted-raw-trace"})),
		"script/dump-raw-trace":  differs([]string{"script", "-i", cgData}, "--dump-raw-trace"),
		"script/hide-call-graph": differs([]string{"script", "-i", cgData}, "--hide-call-graph"),
		"script/f":               forceCheck("-f"),
		"script/force":           forceCheck("--force"),
		"script/itrace": all(differs(sc(), "--itrace=i100i"), differs(sc("--itrace=b"), "--itrace=qb"),
			refused("--itrace=d", sc("--itrace=d")...), refused("Bad Instruction Tracing options", sc("--itrace=@")...)),
		"script/stop-bt": differs([]string{"script", "-i", cgData}, "--stop-bt", "dl_main,__libc_start_call_main"),
		// What -d prints is TestDebugModePerf's (runner).
		"script/d":          all(differs([]string{"script", "-i", cgData}, "-d"), refused("-d/--debug-mode with -C", "script", "-i", cgData, "-d", "-C", "0")),
		"script/debug-mode": differs([]string{"script", "-i", cgData}, "--debug-mode"),
		// What they print is TestTracePresetsMatchPerf's.
		"script/insn-trace":     all(differs(sc(), "--insn-trace"), refused("Only accept raw|disasm", sc("--insn-trace=x")...)),
		"script/call-trace":     differs(sc(), "--call-trace"),
		"script/call-ret-trace": all(differs(sc(), "--call-ret-trace"), differ(nil, sc("--call-trace"), sc("--call-ret-trace"))),
		"script/h": func(t *testing.T) {
			var out, stderr bytes.Buffer
			code := Main([]string{"perfpt", "script", "-h"}, nil, &out, &stderr)
			if code != usageStatus || out.Len() != 0 || !strings.Contains(stderr.String(), " Usage: perfpt script [<options>]") || !strings.Contains(stderr.String(), "--itrace") {
				t.Errorf("-h: status %d, stdout %q, stderr %q", code, out.String(), stderr.String())
			}
		},

		// pprof
		"pprof/input":       all(refused("nonexistent", "pprof", "-i", "/nonexistent", "-o", pprofOut), differsIn([]string{pprofOut}, pp(), "-i", cgData)),
		"pprof/output":      differsIn([]string{pprofOut}, pp(), "-o", "-"),
		"pprof/granularity": all(differsIn([]string{pprofOut}, pp(), "--granularity", "function"), refused("granularity", pp("--granularity", "bogus")...)),
		"pprof/pid":         all(differsIn([]string{pprofOut}, pp(), "--pid", "1"), refused("pid list", pp("--pid", "x")...)),
		"pprof/tid":         all(differsIn([]string{pprofOut}, pp(), "--tid", "1"), refused("tid list", pp("--tid", "x")...)),
		"pprof/time": all(differsIn([]string{pprofOut}, pp(), "--time", ",1000.000100"), refused("Invalid time string", pp("--time", "5,1")...),
			differ([]string{pprofOut}, []string{"pprof", "-i", cgData, "-o", pprofOut, "--time", "10%/1"}, []string{"pprof", "-i", cgData, "-o", pprofOut, "--time", "10%/1,10%/10"})),
		"pprof/jobs":  all(refused("-j", pp("-j", "x")...), sameOutput([]string{pprofOut}, pp("-j", "1"), pp("-j", "3"))),
		"pprof/symfs": differsIn([]string{pprofOut}, []string{"pprof", "-i", example, "-o", pprofOut}, "--symfs", exSymfs),

		// gcov
		"gcov/input":                all(refused("nonexistent", gc("-i", "/nonexistent")...), refused("no executed code with debug information", "gcov", "-i", cgData, "-o", gcovDir)),
		"gcov/output":               gcovOutput(gc),
		"gcov/branch-probabilities": differsIn([]string{gcovDir}, gc(), "-b"),
		"gcov/branch-counts":        differsIn([]string{gcovDir}, gc("-b"), "-c"),
		"gcov/function-summaries":   differs(gc(), "-f"),
		"gcov/demangled-names":      checkGcovDemangle,
		"gcov/json":                 differsIn([]string{gcovDir}, gc(), "--json"),
		"gcov/lcov":                 differsIn([]string{filepath.Join(tmp, "perfpt-flags.info")}, gc(), "--lcov", filepath.Join(tmp, "perfpt-flags.info")),
		"gcov/pid":                  all(refused("no executed code", gc("--pid", "1")...), refused("pid list", gc("--pid", "x")...)),
		"gcov/tid":                  all(refused("no executed code", gc("--tid", "1")...), refused("tid list", gc("--tid", "x")...)),
		"gcov/jobs":                 all(refused("-j", gc("-j", "x")...), sameOutput([]string{gcovDir}, gc("-j", "1"), gc("-j", "3"))),
		"gcov/symfs":                all(refused("no executed code", "gcov", "-i", example, "-o", gcovDir), func(t *testing.T) { ok(t, gc()...) }),

		// dump, header
		"dump/input":       all(differs([]string{"dump", "-i", example}, "-i", cgData), refused("nonexistent", "dump", "-i", "/nonexistent")),
		"dump/file-order":  differs([]string{"dump", "-i", example}, "--file-order"),
		"header/input":     all(differs([]string{"header", "-i", example}, "-i", cgData), refused("nonexistent", "header", "-i", "/nonexistent")),
		"header/show-info": differs([]string{"header", "-i", cgData}, "-I"),
	}
	for name, c := range scriptRefusalChecks(example) {
		checks[name] = c
	}
	for name, c := range ptChecks() {
		checks[name] = c
	}
	for name, c := range timelineChecks(tmp) {
		checks[name] = c
	}
	return checks
}

// withoutRawEvents drops from perfpt dump's text what holds pids and the
// file's name: each record's hex dump (with its "OFFSET@PATH" line) and the
// thread lines of samples. The decoded fields and the AUX data stay.
func withoutRawEvents(d string) string {
	var out []string
	for _, l := range strings.Split(d, "\n") {
		if rawEventLine.MatchString(l) || strings.HasPrefix(l, " ... thread: ") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

var rawEventLine = regexp.MustCompile(`^(\.|\. \.\.\. raw event: .*|\.  [0-9a-f]{4}:  .*|\S+@\S+ \[0x[0-9a-f]+\]: event: \d+)$`)

// emulateRecords records hot-static-O2 for one round (one thread, 16 KB of
// trace: enough for several AUX buffers, snapshots and overflows) with each
// set of options and wants different records; a second recording with a
// checks that the records depend on the options only. Not mix: its
// clock_gettime runs in the vdso, whose seqlock loop retries when the clock
// moved under it (often, single-stepped), so two runs of mix differ by a
// few instructions and trace bytes whatever the recorder does (see
// record/flow.Equal).
func emulateRecords(a, b []string) func(t *testing.T) {
	return func(t *testing.T) {
		prog := testprog.Path(t, "hot-static-O2")
		dump := func(extra []string) string {
			out := filepath.Join(t.TempDir(), "x.data")
			ok(t, append(append([]string{"record", "--emulate", "-N", "-o", out}, extra...), "--", prog, "1")...)
			d := withoutRawEvents(ok(t, "dump", "-i", out).out)
			return regexp.MustCompile(`\b\d+/\d+\b|pid: \d+ tid: \d+|\(\d+:\d+\)|tid: \d+`).ReplaceAllString(d, "") // pids vary
		}
		da := dump(a)
		if da != dump(a) {
			t.Fatalf("two recordings with %v differ: the comparison below would prove nothing", a)
		}
		if da == dump(b) {
			t.Errorf("%v and %v record the same", a, b)
		}
	}
}

// emulateCPUs records tiny (one thread: the records depend on the options
// only, which a second recording with a checks) with each set of options
// and wants different records (which CPU runs it when, and the switches).
func emulateCPUs(a, b []string) func(t *testing.T) {
	return func(t *testing.T) {
		needTiny(t)
		prog := tinyPath
		dump := func(extra []string) string {
			out := filepath.Join(t.TempDir(), "x.data")
			ok(t, append(append([]string{"record", "--emulate", "-N", "-o", out}, extra...), "--", prog)...)
			d := withoutRawEvents(ok(t, "dump", "-i", out).out)
			return regexp.MustCompile(`\b\d+/\d+\b|pid: \d+ tid: \d+|\(\d+:\d+\)`).ReplaceAllString(d, "") // pids vary
		}
		da := dump(a)
		if da != dump(a) {
			t.Fatalf("two recordings with %v differ: the comparison below would prove nothing", a)
		}
		if da == dump(b) {
			t.Errorf("%v and %v record the same", a, b)
		}
	}
}

// sidebandShown writes a perf.data with KSYMBOL, BPF_EVENT and TEXT_POKE
// records (which our recordings lack: BPF programs loaded, or kernel text
// patched, while perf recorded) and wants flag to print them.
func sidebandShown(flag string) func(t *testing.T) {
	return func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "sb.data")
		w, err := perfdata.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		attr := perfdata.EventAttr{Type: perfdata.AttrTypeSoftware, SamplePeriod: 10000,
			SampleType: perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime,
			Flags:      perfdata.AttrFlagSampleIDAll}
		if _, err := w.AddAttr(attr, []uint64{1}, "cpu-clock"); err != nil {
			t.Fatal(err)
		}
		le := binary.LittleEndian
		rec := func(typ perfdata.RecordType, body []byte) {
			for len(body)%8 != 0 {
				body = append(body, 0)
			}
			body = le.AppendUint32(body, 7) // sample_id: pid, tid, time
			body = le.AppendUint32(body, 7)
			body = le.AppendUint64(body, 1000)
			h := le.AppendUint32(nil, uint32(typ))
			h = le.AppendUint16(h, 0)
			h = le.AppendUint16(h, uint16(8+len(body)))
			if err := w.WriteRaw(append(h, body...)); err != nil {
				t.Fatal(err)
			}
		}
		ks := le.AppendUint64(nil, 0xffffffffc0001000) // addr
		ks = le.AppendUint32(ks, 0x80)                 // len
		ks = le.AppendUint16(ks, 1)                    // PERF_RECORD_KSYMBOL_TYPE_BPF
		ks = le.AppendUint16(ks, 0)
		ks = append(ks, "bpf_prog_0123456789abcdef_f\x00"...)
		rec(perfdata.RecordTypeKsymbol, ks)
		be := le.AppendUint16(nil, 1) // PERF_BPF_EVENT_PROG_LOAD
		be = le.AppendUint16(be, 0)
		be = le.AppendUint32(be, 42)
		be = append(be, 1, 2, 3, 4, 5, 6, 7, 8)
		rec(perfdata.RecordTypeBPFEvent, be)
		tp := le.AppendUint64(nil, 0xffffffff81000000)
		tp = le.AppendUint16(tp, 5)
		tp = le.AppendUint16(tp, 5)
		tp = append(tp, 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xe8, 0x01, 0x02, 0x03, 0x04)
		rec(perfdata.RecordTypeTextPoke, tp)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		differs([]string{"script", "-i", path}, flag)(t)
	}
}

// tinyPath is the tiny test program, built by needTiny.
var tinyPath string

func needTiny(t *testing.T) {
	t.Helper()
	tinyPath = testprog.Path(t, "tiny")
}

// nativeAttr records cpu-clock natively with extra and checks the attr.
func nativeAttr(check func(a *perfdata.Attr) bool, extra ...string) func(t *testing.T) {
	return func(t *testing.T) {
		needTiny(t)
		out := filepath.Join(t.TempDir(), "x.data")
		r := perfpt(append(append([]string{"record", "-e", "cpu-clock", "-o", out}, extra...), "--", tinyPath)...)
		if r.code != 0 {
			if strings.Contains(r.err, "perf_event_paranoid") || strings.Contains(r.err, "permission") {
				t.Skipf("perf_event_open is not permitted here: %s", r.err)
			}
			t.Fatalf("record %v: %s", extra, r.err)
		}
		f, err := perfdata.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if len(f.Attrs) == 0 || !check(f.Attrs[0]) {
			t.Errorf("record %v: attr %+v", extra, f.Attrs[0].EventAttr)
		}
	}
}

// sameOutput checks that two invocations write the same output.
func sameOutput(outs []string, a, b []string) func(t *testing.T) {
	return func(t *testing.T) {
		read := func(args []string) string { return ok(t, args...).out + readOutputs(outs) }
		if read(a) != read(b) {
			t.Errorf("%v and %v write different output", a, b)
		}
	}
}

// kallsymsCheck: --kallsyms names the kernel symbols of a sampled recording,
// and a file that cannot be read is perf's "Invalid file".
func kallsymsCheck(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "kallsyms")
	if err := os.WriteFile(fake, []byte("ffffffff81000000 T _text\nffffffff81000000 T fake_everything\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	differs([]string{"script", "-i", cgData}, "--kallsyms", fake)(t)
	refused("Invalid file: /nonexistent", "script", "-i", cgData, "--kallsyms", "/nonexistent")(t)
}

// forceCheck: a file owned by another user is refused without -f (perf's
// open_file_read) and read with it.
func forceCheck(flag string) func(t *testing.T) {
	return func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("making a file another user owns needs root")
		}
		b, err := os.ReadFile(example)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "theirs.data")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		refused("not owned by current user or root (use -f to override)", "script", "-i", p)(t)
		ok(t, "script", "-i", p, flag)
	}
}

func gcovOutput(gc func(...string) []string) func(t *testing.T) {
	return func(t *testing.T) {
		dir := t.TempDir()
		ok(t, gc("-o", dir)...)
		if m, _ := filepath.Glob(filepath.Join(dir, "*.gcov")); len(m) == 0 {
			t.Errorf("no .gcov in %s", dir)
		}
	}
}

// kernelPathCheck wants --show-kernel-path to name the kernel of a
// kernel+user recording (a perf.data directory with a kcore) after its
// kcore.
func kernelPathCheck(t *testing.T) {
	needTiny(t)
	kernel := testprog.Path(t, "kernel")
	out := filepath.Join(t.TempDir(), "k.data")
	ok(t, "record", "--emulate", "-N", "--emulate-kernel", kernel, "-o", out, "--", tinyPath)
	if r := ok(t, "script", "-i", out, "--show-kernel-path"); !strings.Contains(r.out, "("+out+"/kcore_dir/kcore)") {
		t.Errorf("perfpt script --show-kernel-path: no sample in %s/kcore_dir/kcore:\n%s", out, r.out)
	}
}

// vmlinuxCheck wants a kernel+user recording decoded with -k/--vmlinux
// (opt) naming a stripped copy of its kernel to differ from its decode
// with the kernel itself: perf loads no symbols and no code from a vmlinux
// without a symbol table.
func vmlinuxCheck(opt string) func(t *testing.T) {
	return func(t *testing.T) {
		needTiny(t)
		kernel := testprog.Path(t, "kernel")
		dir := t.TempDir()
		out := filepath.Join(dir, "k.data")
		ok(t, "record", "--emulate", "-N", "--emulate-kernel", kernel, "-o", out, "--", tinyPath)
		stripped := filepath.Join(dir, "stripped")
		if b, err := exec.Command("strip", "-o", stripped, kernel).CombinedOutput(); err != nil {
			t.Fatalf("strip: %v\n%s", err, b)
		}
		differs([]string{"script", "-i", out, "--itrace=be", opt, kernel}, opt, stripped)(t)
	}
}
