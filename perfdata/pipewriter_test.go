package perfdata

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestPipeWriter copies the pipe-mode fixture with NewPipeWriter: the copy
// reads back the same, and perf script prints the same for both.
func TestPipeWriter(t *testing.T) {
	const path = "../testdata/perf/pipe.data"
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := readAll(t, f)
	fs, err := f.Features()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := NewPipeWriter(&buf)
	for _, a := range f.Attrs {
		if _, err := w.AddAttr(a.EventAttr, a.IDs, a.Name); err != nil {
			t.Fatal(err)
		}
	}
	w.Features = *fs
	var want []Record
	for _, r := range recs {
		switch r.(type) {
		case *RecordHeaderAttr, *RecordHeaderFeature:
			continue
		}
		want = append(want, r)
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	g, err := NewPipe(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var got []Record
	for _, r := range readAll(t, g) {
		switch r.(type) {
		case *RecordHeaderAttr, *RecordHeaderFeature:
			continue
		}
		got = append(got, normalize(r))
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range got {
		if w := normalize(want[i]); !reflect.DeepEqual(got[i], w) {
			t.Fatalf("record %d:\n got %+v\nwant %+v", i, got[i], w)
		}
	}
	gf, err := g.Features()
	if err != nil {
		t.Fatal(err)
	}
	if gf.Hostname != fs.Hostname || !reflect.DeepEqual(gf.Cmdline, fs.Cmdline) || len(gf.EventDesc) != len(fs.EventDesc) {
		t.Errorf("features differ: %+v", gf)
	}
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not installed: cannot compare perf script output")
	}
	out := filepath.Join(t.TempDir(), "pipe-copy.data")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(p string) (string, string) {
		cmd := exec.Command(perf, "script", "--show-mmap-events", "--show-task-events", "-i", p)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("perf script -i %s: %v\n%s", p, err, e.String())
		}
		return o.String(), e.String()
	}
	wantOut, _ := run(path)
	gotOut, stderr := run(out)
	if gotOut != wantOut {
		t.Errorf("perf script differs on the pipe copy:\n%s", firstDiff(gotOut, wantOut))
	}
	if strings.TrimSpace(stderr) != "" {
		t.Errorf("perf script warned on the pipe copy:\n%s", stderr)
	}
}
