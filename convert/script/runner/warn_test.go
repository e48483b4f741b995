package runner

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// TestLostWarnings compares perf's warnings about lost data
// (perf_session__warn_about_errors) with perf script's on a recording
// written with LOST and LOST_SAMPLES records, with and without
// --show-lost-events.
func TestLostWarnings(t *testing.T) {
	need(t, "perf")
	data := filepath.Join(t.TempDir(), "lost.data")
	w, err := perfdata.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	attr := perfdata.EventAttr{Type: 1, SamplePeriod: 1000, Flags: perfdata.AttrFlagSampleIDAll,
		SampleType: perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime | perfdata.SampleFormatPeriod}
	if _, err := w.AddAttr(attr, []uint64{1}, "cpu-clock"); err != nil {
		t.Fatal(err)
	}
	sid := func(tm uint64) perfdata.SampleID { return perfdata.SampleID{PID: 5, TID: 5, Time: tm} }
	var recs []perfdata.Record
	for i := range 10 {
		recs = append(recs, &perfdata.RecordSample{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser,
			SampleID: sid(uint64(1000 + 10*i))}, IP: 0x400000, Period: 1000})
		if i%4 == 0 {
			recs = append(recs, &perfdata.RecordLost{RecordCommon: perfdata.RecordCommon{SampleID: sid(uint64(1001 + 10*i))},
				LostID: 1, Lost: uint64(i + 1)})
		}
	}
	recs = append(recs, &perfdata.RecordLostSamples{RecordCommon: perfdata.RecordCommon{SampleID: sid(2000)}, Lost: 3})
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, show := range []bool{false, true} {
		args := []string{"script", "-i", data}
		cfg := Config{Input: data}
		if show {
			args = append(args, "--show-lost-events")
			cfg.Show = ShowOptions["show-lost-events"]
		}
		cmd := exec.Command("perf", args...)
		var perfOut, perfErr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &perfOut, &perfErr
		if err := cmd.Run(); err != nil {
			t.Fatalf("perf script: %v\n%s", err, perfErr.String())
		}
		var out, errb bytes.Buffer
		if err := Run(cfg, &out, &errb); err != nil {
			t.Fatal(err)
		}
		if errb.String() != perfErr.String() || out.String() != perfOut.String() {
			t.Errorf("--show-lost-events %v:\nstderr %q\n  perf %q\nstdout %q\n  perf %q", show, errb.String(), perfErr.String(),
				out.String(), perfOut.String())
		}
	}
}
