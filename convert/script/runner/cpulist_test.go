package runner

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/perfopt"
	"github.com/perfpt/perfpt/perfdata"
)

// TestCPUListChecked: perf script checks -C against the recording once it
// is open (perf_session__cpu_bitmap): samples without their CPU are
// refused; then perf_cpu_map__new reads the list (strtoul base 0, no CPU
// twice, a warning for a CPU at or past MAX_NR_CPUS, 2048) and a CPU at or
// past the recording's nr_cpus_avail, or MAX_NR_CPUS, is refused; all exit
// with 255. Compared with perf 6.1 where it is installed.
func TestCPUListChecked(t *testing.T) {
	_, perfErr := exec.LookPath("perf")
	for _, c := range []struct {
		cpuSampled bool
		avail      uint32 // nr_cpus_avail
		cpus       string
		msg        string // "" when the samples print (or, for "", none)
		warn       bool   // perf_cpu_map__new's warning first
	}{
		{false, 2, "0", "File does not contain CPU events. Remove -C option to proceed.", false},
		{true, 2, "2", "Requested CPU 2 too large. Consider raising MAX_NR_CPUS", false},
		{true, 2, "0,3-5", "Requested CPU 3 too large. Consider raising MAX_NR_CPUS", false},
		{true, 2, "1", "", false},
		{true, 2, "0-1", "", false},
		{true, 2, "0- 1", "", false}, // strtoul takes space and a sign
		{true, 2, "0-+1", "", false},
		{true, 2, "0x1", "", false},
		{true, 2, "1,,5", "", false},
		{true, 2, "1,a", "", false},
		{true, 2, "1,", "", false},
		{true, 2, "", "", false},
		{true, 2, "010", "Requested CPU 8 too large. Consider raising MAX_NR_CPUS", false},
		{true, 2, "0,0", "Invalid cpu_list", false},
		{true, 2, "0-1,1", "Invalid cpu_list", false},
		{true, 2, "1-0", "Invalid cpu_list", false},
		{true, 2, "1-", "Invalid cpu_list", false},
		{true, 2, "08", "Invalid cpu_list", false},
		{true, 2, "0x", "Invalid cpu_list", false},
		{true, 2, " 1", "Invalid cpu_list", false},
		{true, 2, "1 ", "Invalid cpu_list", false},
		{true, 2, "a", "Invalid cpu_list", false},
		{true, 2, "4096", "Requested CPU 4096 too large. Consider raising MAX_NR_CPUS", true},
		{true, 2, "5000,x-", "Requested CPU 5000 too large. Consider raising MAX_NR_CPUS", true},
		{true, 2, "5000,1-x", "Invalid cpu_list", true},
		{true, 2, "4294967296", "Invalid cpu_list", false},
		// perf's bitmap has MAX_NR_CPUS bits, whatever the recording says.
		{true, 4096, "1,2047", "", false},
		{true, 4096, "1,2048", "Requested CPU 2048 too large. Consider raising MAX_NR_CPUS", true},
		{true, 4096, "0-3000", "Requested CPU 2048 too large. Consider raising MAX_NR_CPUS", true},
	} {
		name := "CPU sampled " + map[bool]string{true: "yes", false: "no"}[c.cpuSampled] + ", -C " + c.cpus
		data := filepath.Join(t.TempDir(), "cpu.data")
		w, err := perfdata.Create(data)
		if err != nil {
			t.Fatal(err)
		}
		w.Features.Set(perfdata.FeatNrCPUs)
		w.Features.NrCPUs = perfdata.NrCPUs{Online: 2, Available: c.avail}
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
		err = Run(Config{Input: data, CPUs: c.cpus, CPUsSet: true}, &out, &errb)
		var x *perfopt.Exit
		warned := strings.HasPrefix(errb.String(), perfopt.CPUWarning+"\n")
		switch {
		case c.msg == "" && err != nil:
			t.Errorf("%s: %v, want the sample", name, err)
		case c.msg == "" && (out.Len() == 0) != (c.cpus == ""):
			// "" is perf's dummy map of CPU -1: no sample is on it.
			t.Errorf("%s: %d bytes printed, want the sample on CPU 1 (none for \"\")", name, out.Len())
		case c.msg != "" && (!errors.As(err, &x) || x.Msg != c.msg || x.Status != 255):
			t.Errorf("%s: %v, want %q with status 255", name, err, c.msg)
		case warned != c.warn:
			t.Errorf("%s: warned %v (%q)", name, warned, errb.String())
		}
		if perfErr != nil {
			continue
		}
		pout, perr, status := runPerf(t, nil, "script", "-i", data, "-C", c.cpus)
		want := ""
		if c.warn {
			want = perfopt.CPUWarning + "\n"
		}
		if c.msg != "" {
			want += c.msg + "\n"
		}
		if perr != want || (status == 255) != (c.msg != "") || (pout == "") != (c.msg != "" || c.cpus == "") {
			t.Errorf("%s: perf 6.1 exits %d, prints %d bytes, stderr %q: the case expects %q", name, status, len(pout), perr, want)
		}
	}
}
