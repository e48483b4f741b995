package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/linediff"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/perftext"
)

const dumpFixture = "../../testdata/perf/cpu-clock-g.data"

// TestDumpCommand runs perfpt dump on a file and on standard input (pipe
// and file mode) and compares with perftext.Dump, which prints all but
// the machine's lines (PerfDumpLines).
func TestDumpCommand(t *testing.T) {
	f, err := perfdata.Open(dumpFixture)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := perftext.Dump(&want, f, perftext.DumpOptions{Order: perfdata.TimeOrder}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var out, errb bytes.Buffer
	code := Main([]string{"perfpt", "dump", "-i", dumpFixture}, nil, &out, &errb)
	if got := strings.Join(perftext.PerfDumpLines(out.String()), "\n"); code != 0 || got != want.String() {
		t.Fatalf("exit %d, stderr %q, output equal %v", code, errb.String(), got == want.String())
	}
	if !strings.Contains(out.String(), " ... thread: spin:") {
		t.Errorf("no thread lines: %.300s", out.String())
	}
	for _, name := range []string{dumpFixture, "../../testdata/perf/pipe.data"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if code := Main([]string{"perfpt", "dump", "-i", "-", "--file-order"}, bytes.NewReader(b), &out, &errb); code != 0 {
			t.Fatalf("%s from stdin: exit %d: %s", name, code, errb.String())
		}
		if !strings.Contains(out.String(), "PERF_RECORD_SAMPLE(IP, 0x2)") || !strings.Contains(out.String(), "SAMPLE events:") {
			t.Errorf("%s from stdin: unexpected output %.200s", name, out.String())
		}
	}
}

// TestHeaderCommand runs perfpt header and checks a bad file's error.
func TestHeaderCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"perfpt", "header", "-i", dumpFixture}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"# hostname : ", "# event : name = cpu-clock", "# CPU_TOPOLOGY info available, use -I to display"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	out.Reset()
	if code := Main([]string{"perfpt", "header", "-I", "-i", dumpFixture}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "# sibling threads :") {
		t.Errorf("-I: exit %d, output %.300s", code, out.String())
	}
	errb.Reset()
	code := Main([]string{"perfpt", "header", "-i", "dump_test.go"}, nil, &out, &errb)
	if code != 255 || !strings.HasPrefix(errb.String(), "incompatible file format (rerun with -v to learn more)\n") ||
		!strings.Contains(errb.String(), "perfpt: perf.data offset 0x0: magic") {
		t.Errorf("bad file: exit %d, stderr %q", code, errb.String())
	}
}

// vdsoCopy is the name of perf's copy of its own vdso, made by mkstemp
// anew in each run (perf report -D prints it as a sample's DSO).
var vdsoCopy = regexp.MustCompile(`/tmp/perf-vdso\.so-[A-Za-z0-9]{6}`)

// TestDumpMatchesPerf compares perfpt dump with perf report -D byte for
// byte (hex dumps, the machine's thread and DSO lines, Intel PT packet
// dumps, the event counts) on recordings of each kind: sampled with and
// without call chains, DWARF stacks, compressed, pipe mode, tracepoints,
// JIT perf maps, PERF_RECORD_READ (perf record -s), Intel PT in file mode
// and in pipe mode.
func TestDumpMatchesPerf(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not installed: cannot compare with perf report -D")
	}
	files, _ := filepath.Glob("../../testdata/perf/*.data")
	files = append(files, "../../testdata/example/primes.perf.data", "../../testdata/machine/cxx-O2-pipe.data",
		"../../testdata/machine/node-basic-prof.data", "../../testdata/tracepoints/probes-g.data",
		"../../testdata/unwind/cwork-small.data", "../../testdata/machine/inherit-stat.data")
	// A PT recording in pipe mode, fed to perf through a pipe: perf 6.1
	// reading a pipe-mode file (by name, or as a regular file on its
	// standard input) seeks to the AUXTRACE data by offsets that do not
	// count the pipe header and reads it 16 bytes early.
	inject := exec.Command(perf, "inject", "-i", "../../testdata/example/primes.perf.data", "-o", "-")
	piped, err := inject.Output()
	if err != nil {
		t.Fatalf("perf inject -o -: %v", err)
	}
	pipePT := filepath.Join(t.TempDir(), "pt-pipe.data")
	if err := os.WriteFile(pipePT, piped, 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, pipePT)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cmd := exec.Command(perf, "report", "-D", "-i", path)
			if path == pipePT {
				cmd = exec.Command(perf, "report", "-D", "-i", "-")
				cmd.Stdin = bytes.NewReader(piped) // a pipe, not a file
			}
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("perf report -D: %v", err)
			}
			var out, errb bytes.Buffer
			if code := Main([]string{"perfpt", "dump", "-i", path}, nil, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			got := vdsoCopy.ReplaceAll(out.Bytes(), []byte("/tmp/perf-vdso.so-XXXXXX"))
			want = vdsoCopy.ReplaceAll(want, []byte("/tmp/perf-vdso.so-XXXXXX"))
			if d := linediff.Compare(string(got), string(want)); d.N != 0 {
				t.Errorf("%d of %d lines differ from perf report -D; %s", d.N, d.Lines, d.String("perfpt", "perf"))
			}
		})
	}
}

// TestDumpHeaderWithoutFormat: perf report -D and --header-only refuse a
// file with a tracepoint event that has no format (no tracing data) when
// they open it, as perf script does (runner's TestTracepointWithoutFormat):
// "incompatible file format", status 255; perfpt printed both.
func TestDumpHeaderWithoutFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "noformat.data")
	w, err := perfdata.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	st := perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime | perfdata.SampleFormatRaw
	if _, err := w.AddAttr(perfdata.EventAttr{Type: perfdata.AttrTypeTracepoint, Config: 300, SampleType: st, SamplePeriod: 1}, []uint64{100}, "sched:sched_process_exec"); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord(&perfdata.RecordSample{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser,
		SampleID: perfdata.SampleID{PID: 7, TID: 7, Time: 1e9}}, IP: 0x400000, Raw: []byte{1, 2, 3, 4}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	const want = "incompatible file format (rerun with -v to learn more)\n"
	_, perfErr := exec.LookPath("perf")
	for _, c := range []struct{ ours, perf []string }{
		{[]string{"dump"}, []string{"report", "-D"}},
		{[]string{"header"}, []string{"report", "--header-only"}},
	} {
		var out, stderr bytes.Buffer
		code := Main(append(append([]string{"perfpt"}, c.ours...), "-i", path), nil, &out, &stderr)
		if code != 255 || out.Len() != 0 || stderr.String() != want {
			t.Errorf("%s: status %d, %d bytes out, stderr %q", c.ours[0], code, out.Len(), stderr.String())
		}
		if perfErr != nil {
			continue
		}
		perr, status := perfStderr(t, append(c.perf, "-i", path)...)
		if status != 255 || perr != want {
			t.Errorf("perf %v: status %d, stderr %q", c.perf, status, perr)
		}
	}
}
