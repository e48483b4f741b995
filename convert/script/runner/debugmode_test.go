package runner

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// TestDebugModePerf: perf script -d prints no sample and checks their time
// order (process_sample_event, after --time): a sample older than one a
// FINISHED_ROUND already flushed is reported, and the count at the end;
// with or without -d, perf warns about such out-of-order records
// (perf_session__warn_order), which perfpt did not.
// Compared with perf 6.1 (stdout and stderr apart) where it is installed.
func TestDebugModePerf(t *testing.T) {
	data := filepath.Join(t.TempDir(), "order.data")
	w, err := perfdata.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	st := perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime | perfdata.SampleFormatPeriod
	if _, err := w.AddAttr(perfdata.EventAttr{Type: 1, SampleType: st, SamplePeriod: 1000, Flags: perfdata.AttrFlagSampleIDAll}, []uint64{100}, "cpu-clock"); err != nil {
		t.Fatal(err)
	}
	for _, tm := range []uint64{3e9, 5e9, 0, 6e9, 7e9, 0, 1e9, 0, 8e9} {
		if tm == 0 {
			if err := w.WriteRecord(&perfdata.RecordFinishedRound{}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := w.WriteRecord(&perfdata.RecordSample{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser,
			SampleID: perfdata.SampleID{PID: 7, TID: 7, Time: tm}}, IP: 0x400000, Period: 1000}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Without -d: the samples, and perf_session__warn_order's warning.
	if _, err := exec.LookPath("perf"); err == nil {
		var out, stderr bytes.Buffer
		if err := Run(Config{Input: data}, &out, &stderr); err != nil {
			t.Fatal(err)
		}
		pout, perr, _ := runPerf(t, nil, "script", "-i", data)
		if pout != out.String() || perr != stderr.String() {
			t.Errorf("without -d: %q, stderr %q; perf 6.1: %q, stderr %q", out.String(), stderr.String(), pout, perr)
		}
	}
	for _, time := range []string{"", "3.5,"} {
		var out, stderr bytes.Buffer
		if err := Run(Config{Input: data, DebugMode: true, Time: time}, &out, &stderr); err != nil {
			t.Fatal(err)
		}
		if out.Len() != 0 {
			t.Errorf("--time %q: %q printed", time, out.String())
		}
		if time == "" && !bytes.Contains(stderr.Bytes(), []byte("Samples misordered, previous: 5000000000 this: 1000000000\n")) {
			t.Errorf("no misordered sample reported: %q", stderr.String())
		}
		if _, err := exec.LookPath("perf"); err != nil {
			continue // perf not installed: not compared
		}
		args := []string{"script", "-i", data, "-d"}
		if time != "" {
			args = append(args, "--time", time)
		}
		pout, perr, status := runPerf(t, nil, args...)
		if status != 0 || pout != out.String() || perr != stderr.String() {
			t.Errorf("--time %q: stderr\n%s\nperf 6.1 (status %d, %d bytes out):\n%s", time, stderr.String(), status, len(pout), perr)
		}
	}
}
