package runner

import (
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// TestLostWarnings compares perf's warnings about lost data
// (perf_session__warn_about_errors) with perf script's on a recording
// written with LOST and LOST_SAMPLES records, with and without
// --show-lost-events, and perf script -D's lines for them.
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
	compareStreams(t, data, Config{})
	compareStreams(t, data, Config{Show: ShowOptions["show-lost-events"]}, "--show-lost-events")
	// -D: a LOST_SAMPLES record's id is -1 (18446744073709551615) when
	// its sample_id has none (evsel__parse_sample's initial value).
	compare(t, data, "-D")
}
