package runner

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/perftext"
)

// TestStatRecordPerf compares perfpt script (and perfpt dump) with perf on
// perf stat record files: one count per event at the end, counts every
// interval per CPU (-a -A -I, whose counts perf script makes deltas), and
// a pipe. perf script prints their counts at each STAT_ROUND; perf report
// -D prints the stat records' fields and, as the events have no
// sample_id_all, a warning line first.
func TestStatRecordPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	need(t, "perf")
	dir := t.TempDir()
	for _, rec := range []struct {
		name string
		args []string
		pipe bool
	}{
		{"final", []string{"-e", "task-clock,page-faults,context-switches", "--", "sleep", "0.01"}, false},
		{"interval", []string{"-a", "-A", "-I", "20", "-e", "cpu-clock,context-switches", "--", "sleep", "0.07"}, false},
		{"pipe", []string{"-e", "task-clock,page-faults", "--", "sleep", "0.01"}, true},
	} {
		data := filepath.Join(dir, rec.name+".data")
		out := "-o" + data
		if rec.pipe {
			out = "-o-"
		}
		if err := perfTo(t, data, rec.pipe, append([]string{"stat", "record", out}, rec.args...)...); err != nil {
			t.Logf("perf stat record %s (left out): %v", rec.name, err)
			continue
		}
		t.Run(rec.name, func(t *testing.T) {
			compare(t, data)
			compare(t, data, "-D")
			compare(t, data, "--show-mmap-events") // the kernel map before the counts
			want, err := exec.Command("perf", "report", "-D", "-i", data).Output()
			if err != nil {
				t.Fatalf("perf report -D: %v", err)
			}
			f, err := perfdata.Open(data)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var got bytes.Buffer
			if err := perftext.Dump(&got, f, perftext.DumpOptions{Order: perfdata.TimeOrder}); err != nil {
				t.Fatal(err)
			}
			if n, first := diffLines(got.Bytes(), want); n != 0 {
				t.Errorf("perftext.Dump: %d lines differ from perf report -D; %s", n, first)
			}
		})
	}
}

// TestStatConfigUnknownTerm: a STAT_CONFIG record with a term perf 6.1
// does not know (here the interval's tag made 7; a newer perf writes
// AGGR_LEVEL, 3) makes perf script, perf script -D and perf report -D
// warn "unknown stat config term 7" on standard error and leave the term
// out; perfpt script and perftext.Dump with Warn print the same (but for
// perf report -D's interval, below).
func TestStatConfigUnknownTerm(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	need(t, "perf")
	data := filepath.Join(t.TempDir(), "stat.data")
	if err := perfTo(t, data, false, "stat", "record", "-o", data, "-e", "task-clock,page-faults", "--", "true"); err != nil {
		t.Fatalf("perf stat record: %v", err)
	}
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	// The data section's records: find STAT_CONFIG (75) and change
	// the tag of its INTERVAL term (1) to 7.
	off, size := binary.LittleEndian.Uint64(b[40:]), binary.LittleEndian.Uint64(b[48:])
	patched := 0
	for p := off; p+8 <= off+size; {
		typ, sz := binary.LittleEndian.Uint32(b[p:]), uint64(binary.LittleEndian.Uint16(b[p+6:]))
		if sz == 0 {
			break
		}
		if typ == 75 {
			nr := binary.LittleEndian.Uint64(b[p+8:])
			for i := uint64(0); i < nr; i++ {
				if tag := b[p+16+16*i:]; binary.LittleEndian.Uint64(tag) == 1 {
					binary.LittleEndian.PutUint64(tag, 7)
					patched++
				}
			}
		}
		p += sz
	}
	if patched != 1 {
		t.Fatalf("%d STAT_CONFIG interval terms patched, want 1", patched)
	}
	if err := os.WriteFile(data, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"-D"}} {
		compareStreams(t, data, configOf(t, data, args...), args...)
	}
	cmd := exec.Command("perf", "report", "-D", "-i", data)
	var perfErr bytes.Buffer
	cmd.Stderr = &perfErr
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("perf report -D: %v", err)
	}
	f, err := perfdata.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got, warn bytes.Buffer
	if err := perftext.Dump(&got, f, perftext.DumpOptions{Order: perfdata.TimeOrder, Warn: &warn}); err != nil {
		t.Fatal(err)
	}
	// perf_event__fprintf_stat_config reads the record into a struct on
	// the stack that it does not clear: the interval it prints is
	// whatever was there (99 here); perftext prints 0.
	interval := regexp.MustCompile(`(?m)^\.\.\. interval .*$`)
	got2 := interval.ReplaceAll(got.Bytes(), nil)
	want2 := interval.ReplaceAll(want, nil)
	if n, first := diffLines(got2, want2); n != 0 || len(want2) == len(want) {
		t.Errorf("perftext.Dump: %d lines differ from perf report -D; %s", n, first)
	}
	if warn.String() != perfErr.String() || warn.String() != "unknown stat config term 7\n" {
		t.Errorf("perftext.Dump warnings %q, perf report -D's %q", warn.String(), perfErr.String())
	}
}
