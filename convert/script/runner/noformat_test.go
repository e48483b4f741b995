package runner

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/perfopt"
	"github.com/perfpt/perfpt/perfdata"
)

// writeNoFormat writes a recording (a file, or a pipe's stream) with a
// tracepoint event and a cpu-clock event, one sample each, and no tracing
// data: the tracepoint has no format.
func writeNoFormat(t *testing.T, path string, pipe bool) {
	t.Helper()
	var w *perfdata.Writer
	var buf bytes.Buffer
	if pipe {
		w = perfdata.NewPipeWriter(&buf)
	} else {
		var err error
		if w, err = perfdata.Create(path); err != nil {
			t.Fatal(err)
		}
	}
	st := perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime | perfdata.SampleFormatCPU | perfdata.SampleFormatPeriod | perfdata.SampleFormatID
	if _, err := w.AddAttr(perfdata.EventAttr{Type: perfdata.AttrTypeTracepoint, Config: 300, SampleType: st | perfdata.SampleFormatRaw, SamplePeriod: 1,
		Flags: perfdata.AttrFlagSampleIDAll}, []uint64{100}, "sched:sched_process_exec"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddAttr(perfdata.EventAttr{Type: 1, SampleType: st, SamplePeriod: 1000, Flags: perfdata.AttrFlagSampleIDAll}, []uint64{101}, "cpu-clock"); err != nil {
		t.Fatal(err)
	}
	common := perfdata.RecordCommon{Misc: perfdata.MiscUser, SampleID: perfdata.SampleID{PID: 7, TID: 7, Time: 1e9, CPU: 0, ID: 100}}
	if err := w.WriteRecord(&perfdata.RecordSample{RecordCommon: common, IP: 0x400000, Period: 1, Raw: []byte{1, 2, 3, 4}}); err != nil {
		t.Fatal(err)
	}
	common.SampleID.Time, common.SampleID.ID = 2e9, 101
	if err := w.WriteRecord(&perfdata.RecordSample{RecordCommon: common, IP: 0x400000, Period: 1000}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if pipe {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTracepointWithoutFormat: a tracepoint event whose format the tracing
// data does not have. In a file perf 6.1 refuses the recording when it
// opens it (evlist__prepare_tracepoint_events failing in
// perf_session__read_header): "incompatible file format", status 255, with
// or without the trace field (perf report -D and --header-only too: the
// cli's TestDumpHeaderWithoutFormat). In a pipe perf crashes printing the
// trace field; perfpt refuses it, naming the cause, and with -F -trace
// prints what perf prints. perfpt blamed itself ("cannot print its trace
// field yet") and printed the file with -F -trace.
func TestTracepointWithoutFormat(t *testing.T) {
	dir := t.TempDir()
	file, pipe := filepath.Join(dir, "file.data"), filepath.Join(dir, "pipe.data")
	writeNoFormat(t, file, false)
	writeNoFormat(t, pipe, true)
	_, perfErr := exec.LookPath("perf")
	for _, c := range []struct {
		input    string
		fields   []string
		status   int    // perf's
		msg      string // perfpt's error ("" none)
		perfCase string // "": compare the output with perf's
	}{
		{file, nil, 255, "incompatible file format (rerun with -v to learn more)", ""},
		{file, []string{"-trace"}, 255, "incompatible file format (rerun with -v to learn more)", ""},
		{pipe, nil, 139, "the recording's tracing data has no format for this tracepoint", "perf crashes"},
		{pipe, []string{"-trace"}, 0, "", ""},
	} {
		name := filepath.Base(c.input) + " -F " + strings.Join(c.fields, ",")
		var out, errb bytes.Buffer
		err := Run(Config{Input: c.input, Fields: c.fields}, &out, &errb)
		var x *perfopt.Exit
		switch {
		case c.msg == "" && err != nil:
			t.Errorf("%s: %v", name, err)
			continue
		case c.msg != "" && (err == nil || !strings.Contains(err.Error(), c.msg)):
			t.Errorf("%s: %v, want %q", name, err, c.msg)
			continue
		case c.status == 255 && (!errors.As(err, &x) || x.Status != 255 || out.Len() != 0):
			t.Errorf("%s: %v, %d bytes out: want perf's status 255 and no output", name, err, out.Len())
		}
		if perfErr != nil {
			continue
		}
		args := []string{"script"}
		if len(c.fields) > 0 {
			args = append(args, "-F", strings.Join(c.fields, ","))
		}
		var stdin []byte
		input := file
		if c.input == pipe {
			// perf 6.1 reads a pipe's stream only from a pipe.
			data, err := os.ReadFile(pipe)
			if err != nil {
				t.Fatal(err)
			}
			stdin, input = data, "-"
		}
		pout, perr, status := runPerf(t, stdin, append(args, "-i", input)...)
		if status != c.status {
			t.Errorf("%s: perf 6.1 exits %d (stderr %q), the case says %d", name, status, perr, c.status)
		}
		if c.status == 255 && !strings.Contains(perr, c.msg) {
			t.Errorf("%s: perf's stderr %q", name, perr)
		}
		if c.perfCase == "" && c.status == 0 && pout != out.String() {
			t.Errorf("%s: output\n%s\nperf's\n%s", name, out.String(), pout)
		}
	}
}

// runPerf runs perf with args (stdin, when not nil, through a pipe) and
// returns its output, its stderr and its exit status, 139 when a signal
// (perf's SIGSEGV) killed it.
func runPerf(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command("perf", args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		if status = ee.ExitCode(); status < 0 {
			status = 128 + 11
		}
	}
	return out.String(), errb.String(), status
}
