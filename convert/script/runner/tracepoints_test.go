package runner

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/tracing"
)

// tracepointArgs are the option sets compared on every tracepoint
// recording.
var tracepointArgs = [][]string{
	nil,
	{"-F", "trace"},
	{"-F", "comm,tid,time,event,trace"},
	{"-G"},
}

// TestTracepointsAgainstPerf compares perfpt script with perf script byte
// for byte on the recordings of testdata/tracepoints (sched, irq, timer,
// signal, task, raw_syscalls, syscalls, kmem, block, uprobes, call chains,
// pipe mode) and counts the distinct event formats their samples cover.
func TestTracepointsAgainstPerf(t *testing.T) {
	need(t, "perf")
	files, _ := filepath.Glob("../../../testdata/tracepoints/*.data")
	if len(files) == 0 {
		t.Fatal("no recordings in testdata/tracepoints")
	}
	formats := map[string]bool{}
	lines := 0
	for _, file := range files {
		for _, args := range tracepointArgs {
			cmd := exec.Command("perf", append([]string{"script", "-i", file}, args...)...)
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("perf script %s %v: %v", file, args, err)
			}
			cfg := Config{Input: file}
			for i := 0; i < len(args); i++ {
				switch args[i] {
				case "-F":
					i++
					cfg.Fields = append(cfg.Fields, args[i])
				case "-G":
					cfg.NoCallchain = true
				}
			}
			for _, j := range []int{1, 2} {
				cfg.Workers = j
				var got, stderr bytes.Buffer
				if err := Run(cfg, &got, &stderr); err != nil {
					t.Fatalf("perfpt script %s %v: %v\n%s", file, args, err, stderr.String())
				}
				if n, first := diffLines(got.Bytes(), want); n != 0 {
					t.Errorf("perfpt script -i %s %v -j %d: %d lines differ from perf script; %s",
						filepath.Base(file), args, j, n, first)
				} else if j == 1 {
					lines += bytes.Count(want, []byte("\n"))
				}
			}
		}
		for name := range sampledFormats(t, file) {
			formats[name] = true
		}
	}
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	sort.Strings(names)
	t.Logf("%d lines identical to perf script over %d files and %d option sets; %d distinct event formats covered: %v",
		lines, len(files), len(tracepointArgs), len(names), names)
	if len(names) < 100 {
		t.Errorf("only %d distinct event formats covered, want at least 100", len(names))
	}
}

// sampledFormats returns the system:name of the tracepoint events that
// have samples in file.
func sampledFormats(t *testing.T, file string) map[string]bool {
	f, err := perfdata.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var td *tracing.Data
	if b, ok := f.FeatureData(perfdata.FeatTracingData); ok {
		if td, err = tracing.Parse(b); err != nil {
			t.Fatal(err)
		}
	}
	names := map[string]bool{}
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		switch r := rs.Record.(type) {
		case *perfdata.RecordTracingData:
			if td, err = tracing.Parse(r.Data); err != nil {
				t.Fatal(err)
			}
		case *perfdata.RecordSample:
			if r.Attr == nil || r.Attr.Type != perfdata.AttrTypeTracepoint || td == nil {
				continue
			}
			if fm := td.Event(int(r.Attr.Config)); fm != nil {
				names[fm.System+":"+fm.Name] = true
			}
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}
