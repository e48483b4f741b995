package runner

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/linediff"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/perftext"
)

// TestSampleRead compares samples that read a group of counters
// (PERF_SAMPLE_READ with PERF_FORMAT_GROUP, perf record -e '{a,b}:S') with
// perf script: one sample per member that grew, with its growth as the
// period and the member as the event; a member that did not grow prints
// nothing, an id no event has is counted in perf's warning.
func TestSampleRead(t *testing.T) {
	need(t, "perf")
	data := filepath.Join(t.TempDir(), "read.data")
	w, err := perfdata.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	st := perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime | perfdata.SampleFormatID |
		perfdata.SampleFormatPeriod | perfdata.SampleFormatRead
	rf := perfdata.ReadFormatID | perfdata.ReadFormatGroup
	leader := perfdata.EventAttr{Type: 1, Config: 0, SamplePeriod: 1000, SampleType: st, ReadFormat: rf, Flags: perfdata.AttrFlagSampleIDAll}
	member := perfdata.EventAttr{Type: 1, Config: 1, SampleType: st, ReadFormat: rf, Flags: perfdata.AttrFlagSampleIDAll}
	if _, err := w.AddAttr(leader, []uint64{11}, "cpu-clock"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddAttr(member, []uint64{12}, "task-clock"); err != nil {
		t.Fatal(err)
	}
	values := [][3]uint64{{100, 50, 7}, {250, 50, 9}, {400, 120, 9}, {400, 130, 10}}
	for i, v := range values {
		s := &perfdata.RecordSample{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser,
			SampleID: perfdata.SampleID{PID: 3, TID: 3, Time: uint64(1e9 + 1000*i), ID: 11}},
			IP: 0x400000 + uint64(i), Period: 1000,
			Read: perfdata.ReadValues{Values: []perfdata.ReadValue{{Value: v[0], ID: 11}, {Value: v[1], ID: 12}, {Value: v[2], ID: 99}}}}
		if err := w.WriteRecord(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	compareStreams(t, data, Config{})
	compareStreams(t, data, Config{Fields: []string{"tid,time,period,event,ip"}}, "-F", "tid,time,period,event,ip")

	// perf report -D counts each member's samples the same way.
	want, err := exec.Command("perf", "report", "-D", "-i", data).Output()
	if err != nil {
		t.Fatal(err)
	}
	f, err := perfdata.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	if err := perftext.Dump(&b, f, perftext.DumpOptions{Order: perfdata.TimeOrder}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(perftext.PerfDumpLines(b.String()), "\n"), strings.Join(perftext.PerfDumpLines(string(want)), "\n"); got != want {
		t.Errorf("perfpt dump differs from perf report -D:\n%s", linediff.Compare(got, want).String("perfpt", "perf"))
	}
}
