package cli

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/linediff"
)

// TestScriptPerfExits compares perfpt script's exit status and first
// error line with perf script's on inputs perf refuses: a missing file, an
// empty one, a directory without data, a file that is no recording, one
// whose header is cut short, one whose data size is 0 (perf warns and
// fails without a message), and a field the events cannot fill.
func TestScriptPerfExits(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot compare with perf")
	}
	dir := t.TempDir()
	good, err := os.ReadFile(dumpFixture)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nodata := append([]byte(nil), good...)
	for i := 48; i < 56; i++ { // header.data.size
		nodata[i] = 0
	}
	// A pipe recording without PERF_SAMPLE_CPU: asking for the cpu
	// fails at its HEADER_ATTR record (process_attr, status 234).
	pipe := filepath.Join(dir, "pipe.data")
	pf, err := os.Create(pipe)
	if err != nil {
		t.Fatal(err)
	}
	rec := exec.Command("perf", "record", "-q", "-o", "-", "-e", "cpu-clock", "--", "true")
	rec.Stdout = pf
	recErr := rec.Run()
	pf.Close()
	// A pipe recording whose last record claims a size of 0 (perf: "bad
	// event header size", status 8, after what it printed).
	zero := ""
	if b, err := os.ReadFile(pipe); err == nil && recErr == nil {
		last := 16
		for off := 16; off+8 <= len(b); {
			last = off
			off += int(binary.LittleEndian.Uint16(b[off+6:]))
		}
		b = append([]byte(nil), b...)
		binary.LittleEndian.PutUint16(b[last+6:], 0)
		zero = write("zero.data", b)
	}
	type exitCase struct {
		name string
		args []string
		// report: compare perf report ARGS with perfpt CMD (header for
		// --header-only, dump for -D).
		report string
	}
	cases := []exitCase{
		{"pipe field", []string{"-i", pipe, "-F", "comm,tid,cpu,time"}, ""},
		{"field", []string{"-i", dumpFixture, "-F", "ip,addr"}, ""},
	}
	// Each broken input with perf script, perf report --header-only and
	// perf report -D. A data section cut short inside the page where the
	// file ends reads zeros to the page's end, as perf's mapping does:
	// records run on into zeros, then a header of size 0 fails.
	cutAt := int(binary.LittleEndian.Uint64(good[40:])) + 5000 // in the data section
	for _, in := range []struct{ name, path string }{
		{"pipe zero-size record", zero},
		{"missing", filepath.Join(dir, "missing.data")},
		{"empty", write("empty.data", nil)},
		{"dir", dir},
		{"not a recording", write("text.data", []byte(strings.Repeat("not perf data\n", 20)))},
		{"cut header", write("cut.data", good[:200])},
		{"data size 0", write("nodata.data", nodata)},
		{"data cut short", write("cutdata.data", good[:cutAt])},
	} {
		for _, r := range []string{"", "--header-only", "-D"} {
			cases = append(cases, exitCase{in.name + " " + r, []string{"-i", in.path}, r})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if (c.args[1] == pipe || c.args[1] == zero) && recErr != nil {
				t.Skipf("perf record to a pipe: %v", recErr)
			}
			perfArgs := append([]string{"script"}, c.args...)
			ourArgs := append([]string{"perfpt", "script"}, c.args...)
			switch c.report {
			case "--header-only":
				perfArgs = append([]string{"report", "--header-only"}, c.args...)
				ourArgs = append([]string{"perfpt", "header"}, c.args...)
			case "-D":
				perfArgs = append([]string{"report", "-D"}, c.args...)
				ourArgs = append([]string{"perfpt", "dump"}, c.args...)
			}
			perfOut, perfErr, status := perfRun(t, perfArgs...)
			var out, errb bytes.Buffer
			got := Main(ourArgs, nil, &out, &errb)
			if got != status {
				t.Errorf("exit status %d, perf %d (perfpt: %q, perf: %q)", got, status, errb.String(), perfErr)
			}
			// perf's lines first; perfpt may add its detail after them.
			if want := perfErr; !strings.HasPrefix(errb.String(), want) {
				t.Errorf("stderr %q, perf %q", errb.String(), want)
			}
			if d := linediff.Compare(out.String(), perfOut); d.N != 0 {
				t.Errorf("stdout: %d of %d lines differ from perf's; %s", d.N, d.Lines, d.String("perfpt", "perf"))
			}
		})
	}
}
