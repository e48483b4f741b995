package runner

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/perftext"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/testprog"
)

// writeDumpRecording writes a small recording with the records whose -D
// lines perf script prints otherwise than perf report: a thread map and a
// CPU map (their handlers drop the stubs' ": unhandled!"), a throttle
// (script's handler prints nothing, not even the line's end), a READ
// (perf report's handler prints nothing more, perf script's stub ":
// unhandled!"), around samples whose lines perf script prints after their
// machine's lines.
func writeDumpRecording(t *testing.T) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "dump.data")
	w, err := perfdata.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	w.Features.Set(perfdata.FeatEventDesc)
	a := perfdata.EventAttr{Type: 1, Config: 0, SamplePeriod: 1000, Flags: perfdata.AttrFlagSampleIDAll,
		ReadFormat: perfdata.ReadFormatID,
		SampleType: perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime |
			perfdata.SampleFormatID | perfdata.SampleFormatCPU | perfdata.SampleFormatPeriod}
	if _, err := w.AddAttr(a, []uint64{100}, "cpu-clock"); err != nil {
		t.Fatal(err)
	}
	id := func(time uint64) perfdata.SampleID {
		return perfdata.SampleID{PID: 7, TID: 7, Time: time, ID: 100, CPU: 1}
	}
	recs := []perfdata.Record{
		&perfdata.RecordThreadMap{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeThreadMap},
			Entries: []perfdata.ThreadMapEntry{{PID: 7}}},
		&perfdata.RecordCPUMap{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeCPUMap}, CPUs: []int{0, 1, 2, 3}},
		&perfdata.RecordComm{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeComm, SampleID: id(1e9)},
			PID: 7, TID: 7, Comm: "prog"},
		&perfdata.RecordMmap{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeMmap, Misc: perfdata.MiscUser,
			SampleID: id(1e9 + 1)}, PID: 7, TID: 7, Addr: 0x400000, Len: 0x1000, Filename: "/nonexistent/prog"},
		&perfdata.RecordSample{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser, SampleID: id(1e9 + 2)},
			IP: 0x400123, Period: 1000},
		&perfdata.RecordThrottle{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeThrottle, SampleID: id(1e9 + 3)},
			ThrottleTime: 1e9 + 3, ThrottleID: 100, ThrottleStreamID: 100},
		&perfdata.RecordSample{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser, SampleID: id(1e9 + 4)},
			IP: 0x500000, Period: 1000},
		&perfdata.RecordRead{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeRead, SampleID: id(1e9 + 5)},
			PID: 7, TID: 7, Values: perfdata.ReadValues{Values: []perfdata.ReadValue{{Value: 5, ID: 100}}}},
		&perfdata.RecordExit{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeExit, SampleID: id(1e9 + 6)},
			PID: 7, PPID: 1, TID: 7, PTID: 1, ExitTime: 1e9 + 6},
		&perfdata.RecordFinishedRound{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeFinishedRound}},
	}
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDumpRawStructure: perf script -D prints perf report -D's lines for
// each record (perfpt dump's), but for perf report's header comment, its
// event counts at the end and the stubs' ": unhandled!" of the records
// perf script handles (thread and CPU maps, throttling), with perf
// script's own line for each sample after its machine's " ...... dso:"
// line.
func TestDumpRawStructure(t *testing.T) {
	data := writeDumpRecording(t)
	var plain, got, errb bytes.Buffer
	if err := Run(Config{Input: data}, &plain, &errb); err != nil {
		t.Fatal(err)
	}
	if err := Run(Config{Input: data, DumpRaw: true}, &got, &errb); err != nil {
		t.Fatal(err)
	}
	f, err := perfdata.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := session.New(f, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var dump bytes.Buffer
	if err := perftext.Dump(&dump, f, perftext.DumpOptions{Order: perfdata.TimeOrder, Machine: s.DumpMachine(),
		Aux: session.DumpAux}); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(dump.String(), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "# To display") {
		t.Fatalf("perfpt dump starts %q", lines[0])
	}
	lines = lines[2:]
	scriptLines := strings.SplitAfter(plain.String(), "\n")
	scriptLines = scriptLines[:len(scriptLines)-1] // after the last "\n"
	var want strings.Builder
	inRead := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "Aggregated stats:") {
			break
		}
		if l == "\n" && inRead {
			want.WriteString(": unhandled!\n")
		}
		if l == "\n" {
			inRead = false
		}
		inRead = inRead || strings.Contains(l, "PERF_RECORD_READ")
		switch {
		case l == ": unhandled!\n" && i > 0 && (strings.Contains(lines[i-1], "PERF_RECORD_THREAD_MAP") ||
			strings.Contains(lines[i-1], "PERF_RECORD_CPU_MAP")):
			continue
		case strings.HasSuffix(l, "PERF_RECORD_THROTTLE: unhandled!\n"):
			// No line's end: the next record's dump_event starts with one.
			want.WriteString(strings.TrimSuffix(l, ": unhandled!\n"))
			continue
		}
		want.WriteString(l)
		if strings.HasPrefix(l, " ...... dso: ") {
			if len(scriptLines) == 0 {
				t.Fatal("more samples in the dump than lines of perfpt script")
			}
			want.WriteString(scriptLines[0])
			scriptLines = scriptLines[1:]
		}
	}
	w := strings.TrimSuffix(want.String(), "\n") // the blank line before "Aggregated stats:"
	if got.String() != w {
		t.Errorf("perfpt script -D:\n%s\nwant (perfpt dump with perf script's differences):\n%s\nends %q, want %q", got.String(), w, tail(got.String()), tail(w))
	}
	if !strings.Contains(w, "PERF_RECORD_THROTTLE\n") || strings.Count(w, " ...... dso: ") != 2 ||
		!strings.Contains(w, "PERF_RECORD_READ") {
		t.Errorf("the recording lacks what the test is about:\n%s", w)
	}
}

// TestDumpRawPerf compares perfpt script -D with perf script -D on the
// synthesized recording, on perf recordings (a file and a pipe, with
// call chains and with side-band records shown) and on an emulated PT
// recording, whose trace perf only dumps (intel_pt_process_auxtrace_info
// returns after its dump under -D: no samples are synthesized).
func TestDumpRawPerf(t *testing.T) {
	need(t, "perf")
	t.Run("synthesized", func(t *testing.T) {
		data := writeDumpRecording(t)
		compare(t, data, "-D")
		// perf script's EXIT line comes before the record's fields,
		// its FINISHED_ROUND line instead of them.
		compare(t, data, "-D", "--show-task-events", "--show-round-events")
	})
	opts := [][]string{{"-D"}, {"-D", "--show-task-events", "--show-mmap-events"}, {"-D", "-F", "comm,tid,ip,sym,dso"}}
	recs := []recorded{
		{"g", []string{"-g", "-e", "cpu-clock", "-c", "200000"}, opts},
		{"flat", []string{"-e", "cpu-clock", "-c", "200000"}, opts[:1]},
	}
	t.Run("file", func(t *testing.T) { compareRecorded(t, false, recs) })
	t.Run("pipe", func(t *testing.T) { compareRecorded(t, true, recs[1:]) })
	t.Run("pt", func(t *testing.T) {
		if testing.Short() {
			t.Skip("records a program")
		}
		need(t, "gcc", "make")
		compare(t, recordPT(t, testprog.Path(t, "tiny"), record.Options{}), "-D")
	})
	// perf report -D and perf script -D on the same file differ only as
	// TestDumpRawStructure says.
	data := writeDumpRecording(t)
	report, err := exec.Command("perf", "report", "-D", "-i", data).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(report, []byte("PERF_RECORD_THROTTLE: unhandled!")) {
		t.Errorf("perf report -D prints no unhandled throttle:\n%s", report)
	}
}

func tail(s string) string { return s[max(0, len(s)-40):] }
