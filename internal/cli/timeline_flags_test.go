package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// timelineChecks are TestEveryFlag's checks of perfpt timeline's options
// and of record's --trigger and --snapshot-size.
func timelineChecks(tmp string) map[string]func(t *testing.T) {
	out := filepath.Join(tmp, "perfpt-flags-tl.fxt")
	outs := []string{out}
	tl := func(extra ...string) []string {
		return append([]string{"timeline", "-i", example, "--symfs", exSymfs, "-o", out}, extra...)
	}
	noExt := filepath.Join(tmp, "perfpt-flags-tl.out")
	return map[string]func(t *testing.T){
		"timeline/input": all(differsIn(outs, tl(), "-i", cgData),
			refused("nonexistent", "timeline", "-i", "/nonexistent", "-o", out)),
		"timeline/output": all(differsIn(outs, tl(), "-o", "-", "--format", "json"),
			refused("cannot tell the timeline format", "timeline", "-i", example, "-o", filepath.Join(tmp, "x.txt"))),
		"timeline/format": all(
			differ([]string{noExt}, []string{"timeline", "-i", example, "-o", noExt, "--format", "fxt"}, []string{"timeline", "-i", example, "-o", noExt, "--format", "json"}),
			refused("unknown timeline format", tl("--format", "svg")...),
			refused("names a fxt file", "timeline", "-i", example, "-o", out, "--format", "json")),
		"timeline/itrace": all(differ(outs, tl("--itrace=e"), tl("--itrace=ep")),
			refused("a timeline takes e, w, x and p", tl("--itrace=cr")...)),
		"timeline/pid": all(differsIn(outs, tl(), "--pid", "1"), refused("pid list", tl("--pid", "x")...)),
		"timeline/tid": all(differsIn(outs, tl(), "--tid", "1"), refused("tid list", tl("--tid", "x")...)),
		"timeline/time": all(differsIn(outs, tl(), "--time", ",1000.000100"), refused("Invalid time string", tl("--time", "5,1")...),
			refused("a timeline shows one window", tl("--time", ",1000.000100 1000.000200,")...),
			differ(outs, []string{"timeline", "-i", cgData, "-o", out, "--time", "10%/1"}, []string{"timeline", "-i", cgData, "-o", out, "--time", "10%/2"})),
		"timeline/min-duration": all(differsIn(outs, tl(), "--min-duration", "1us"), refused("--min-duration", tl("--min-duration", "soon")...)),
		"timeline/max-depth":    all(differsIn(outs, tl(), "--max-depth", "2"), refused("--max-depth", tl("--max-depth", "-1")...)),
		"timeline/jobs":         all(refused("-j", tl("-j", "x")...), sameOutput(outs, tl("-j", "1"), tl("-j", "3"))),
		"timeline/symfs":        differsIn(outs, []string{"timeline", "-i", example, "-o", out}, "--symfs", exSymfs),
		"timeline/kallsyms": func(t *testing.T) {
			fake := filepath.Join(t.TempDir(), "kallsyms")
			if err := os.WriteFile(fake, []byte("ffffffff81000000 T _text\nffffffff81000000 T fake_everything\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			differsIn(outs, []string{"timeline", "-i", cgData, "-o", out}, "--kallsyms", fake)(t)
			refused("Invalid file: /nonexistent", "timeline", "-i", cgData, "-o", out, "--kallsyms", "/nonexistent")(t)
		},
		"record/trigger": all(
			refused("no function no_such_function", "record", "--emulate", "--trigger", "no_such_function", "--", exBin),
			refused("--trigger needs the intel_pt event", "record", "-e", "cpu-clock", "--trigger", "digits", "--", exBin),
			func(t *testing.T) {
				full, r := auxBytes(t, "record", "--emulate", "-N", "--per-thread")
				cut, r2 := auxBytes(t, "record", "--emulate", "-N", "--per-thread", "--trigger", "digits:3")
				if full == 0 || cut == 0 || cut >= full {
					t.Errorf("--trigger digits:3 kept %d bytes of Intel PT, the whole run %d (%s%s)", cut, full, r.err, r2.err)
				}
			}),
		"record/snapshot-size": all(
			refused("--snapshot-size needs --trigger", "record", "--emulate", "--snapshot-size", "4096", "--", exBin),
			refused("--snapshot-size 10", "record", "--emulate", "--trigger", "sieve", "--snapshot-size", "10", "--", exBin),
			func(t *testing.T) {
				n, r := auxBytes(t, "record", "--emulate", "-N", "--per-thread", "--trigger", "sieve", "--snapshot-size", "4096")
				if n == 0 || n > 4096 {
					t.Errorf("--snapshot-size 4096: %d bytes of Intel PT (%s)", n, r.err)
				}
			}),
	}
}

// auxBytes records the example's program with args and returns the bytes
// of Intel PT the recording holds.
func auxBytes(t *testing.T, args ...string) (uint64, cmdResult) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "trig.data")
	r := perfpt(append(args, "-o", out, "--", exBin)...)
	if r.code != 0 {
		t.Fatalf("perfpt %s: exit %d: %s", strings.Join(args, " "), r.code, r.err)
	}
	f, err := perfdata.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n uint64
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		if a, ok := rs.Record.(*perfdata.RecordAuxtrace); ok {
			n += a.AuxSize
		}
	}
	return n, r
}
