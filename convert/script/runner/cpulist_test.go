package runner

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/internal/perfopt"
	"github.com/perfpt/perfpt/perfdata"
)

// TestCPUListChecked: perf script checks -C against the recording once it
// is open (perf_session__cpu_bitmap): samples without their CPU are
// refused, and so is a CPU at or past the recording's nr_cpus_avail; both
// exit with 255. perfpt printed the samples (or none) instead.
func TestCPUListChecked(t *testing.T) {
	for _, c := range []struct {
		cpuSampled bool
		cpus       string
		msg        string // "" when the samples print
	}{
		{false, "0", "File does not contain CPU events. Remove -C option to proceed."},
		{true, "2", "Requested CPU 2 too large. Consider raising MAX_NR_CPUS"},
		{true, "0,3-5", "Requested CPU 3 too large. Consider raising MAX_NR_CPUS"},
		{true, "1", ""},
		{true, "0-1", ""},
	} {
		data := filepath.Join(t.TempDir(), "cpu.data")
		w, err := perfdata.Create(data)
		if err != nil {
			t.Fatal(err)
		}
		w.Features.Set(perfdata.FeatNrCPUs)
		w.Features.NrCPUs = perfdata.NrCPUs{Online: 2, Available: 2}
		st := perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime | perfdata.SampleFormatPeriod
		if c.cpuSampled {
			st |= perfdata.SampleFormatCPU
		}
		if _, err := w.AddAttr(perfdata.EventAttr{Type: 1, SampleType: st, SamplePeriod: 1000}, []uint64{100}, "cpu-clock"); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRecord(&perfdata.RecordSample{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser,
			SampleID: perfdata.SampleID{PID: 7, TID: 7, Time: 1e9, CPU: 1}}, IP: 0x400000, Period: 1000}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		err = Run(Config{Input: data, CPUs: c.cpus}, &out, &errb)
		var x *perfopt.Exit
		switch {
		case c.msg == "" && err != nil:
			t.Errorf("CPU sampled %v, -C %s: %v, want the sample", c.cpuSampled, c.cpus, err)
		case c.msg == "" && out.Len() == 0:
			t.Errorf("CPU sampled %v, -C %s: nothing printed, want the sample on CPU 1", c.cpuSampled, c.cpus)
		case c.msg != "" && (!errors.As(err, &x) || x.Msg != c.msg || x.Status != 255):
			t.Errorf("CPU sampled %v, -C %s: %v, want %q with status 255", c.cpuSampled, c.cpus, err, c.msg)
		}
	}
}
