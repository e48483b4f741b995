package perfdata

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeIntelPT writes a small per-thread Intel PT recording the way a
// recorder does: intel_pt and dummy events, AUXTRACE_INFO, TIME_CONV,
// COMM, MMAP2, ITRACE_START, AUX and AUXTRACE with a PSB+ packet sequence.
func writeIntelPT(t testing.TB, path string, trace []byte) {
	t.Helper()
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	st := SampleFormatIP | SampleFormatTID | SampleFormatTime | SampleFormatCPU | SampleFormatIdentifier
	pt := EventAttr{
		Type:       8,
		Config:     1<<0 | 1<<10 | 1<<13, // pt, tsc, branch
		SampleType: st,
		Flags: AttrFlagDisabled | AttrFlagExcludeKernel | AttrFlagExcludeHV |
			AttrFlagEnableOnExec | AttrFlagSampleIDAll | AttrFlagExcludeGuest,
		SamplePeriod: 1,
		AuxWatermark: 4096,
	}
	if _, err := w.AddAttr(pt, []uint64{1}, "intel_pt//u"); err != nil {
		t.Fatal(err)
	}
	dummy := EventAttr{
		Type: AttrTypeSoftware, Config: SWDummy, SampleType: st, SamplePeriod: 1,
		Flags: AttrFlagDisabled | AttrFlagExcludeKernel | AttrFlagExcludeHV | AttrFlagMmap |
			AttrFlagComm | AttrFlagTask | AttrFlagEnableOnExec | AttrFlagSampleIDAll |
			AttrFlagExcludeGuest | AttrFlagMmap2 | AttrFlagCommExec | AttrFlagContextSwitch,
	}
	if _, err := w.AddAttr(dummy, []uint64{2}, "dummy:u"); err != nil {
		t.Fatal(err)
	}
	info := IntelPTInfo{PMUType: 8, TimeShift: 31, TimeMult: 1 << 31, TimeZero: 0, CapUserTimeZero: 1,
		TSCBit: 1 << 10, NoRetCompBit: 1 << 11, MTCBit: 1 << 9, MTCFreqBits: 0xf << 14, CYCBit: 1 << 1,
		TSCCTCRatioN: 2, TSCCTCRatioD: 1}
	const pid = 4242
	sid := func(tm uint64, id uint64) RecordCommon {
		return RecordCommon{SampleID: SampleID{PID: pid, TID: pid, Time: tm, ID: id, CPU: 0}}
	}
	recs := []Record{
		&RecordAuxtraceInfo{AuxType: AuxtraceIntelPT, Priv: info.Priv()},
		&RecordTimeConv{TimeShift: 31, TimeMult: 1 << 31, CapUserTimeZero: true, Extended: true, TimeMask: ^uint64(0)},
		&RecordComm{RecordCommon: withMisc(sid(1000, 2), MiscCommExec), PID: pid, TID: pid, Comm: "prog"},
		&RecordMmap2{RecordCommon: withMisc(sid(1001, 2), MiscUser), PID: pid, TID: pid, Addr: 0x401000, Len: 0x1000,
			PgOff: 0x1000, Maj: 8, Min: 1, Ino: 1234, Prot: 5, Flags: 2, Filename: "/usr/bin/prog"},
		&RecordItraceStart{RecordCommon: sid(1002, 1), PID: pid, TID: pid},
		&RecordAux{RecordCommon: sid(1003, 1), AuxOffset: 0, AuxSize: uint64(len(trace))},
		&RecordAuxtrace{AuxOffset: 0, Reference: 0x1234, Idx: 0, TID: pid, CPU: -1, Data: trace},
		&RecordFinishedRound{},
		&RecordExit{RecordCommon: sid(2000, 2), PID: pid, PPID: pid, TID: pid, PTID: pid, ExitTime: 2000},
	}
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Features = testFeatures()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func withMisc(c RecordCommon, misc uint16) RecordCommon {
	c.Misc = misc
	return c
}

// testFeatures are the features a recorder writes.
func testFeatures() Features {
	fs := Features{
		Hostname: "testhost", OSRelease: "6.1.0", Version: "6.1.187", Arch: "x86_64",
		NrCPUs: NrCPUs{Online: 2, Available: 2}, CPUDesc: "Test CPU", CPUID: "GenuineIntel,6,85,4",
		TotalMem: 1 << 20, Cmdline: []string{"/usr/bin/perfpt", "record", "prog"},
		BuildIDs:    []BuildID{{Misc: MiscUser, PID: -1, BuildID: bytes.Repeat([]byte{0xab}, 20), Filename: "/usr/bin/prog"}},
		PMUMappings: []PMUMapping{{1, "software"}, {8, "intel_pt"}},
		ClockID:     0,
	}
	for _, f := range []Feature{FeatHostname, FeatOSRelease, FeatVersion, FeatArch, FeatNrCPUs, FeatCPUDesc,
		FeatCPUID, FeatTotalMem, FeatCmdline, FeatBuildID, FeatPMUMappings} {
		fs.Set(f)
	}
	return fs
}

// psbPlus is PSB, PSBEND and a PAD: a valid, empty Intel PT trace.
var psbPlus = []byte{
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x23, 0x00,
}

func TestWriteIntelPT(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pt.data")
	if p := os.Getenv("PERFDATA_KEEP"); p != "" {
		path = p
	}
	writeIntelPT(t, path, psbPlus)
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var aux *RecordAuxtrace
	var info *RecordAuxtraceInfo
	n := 0
	rs := f.Records(TimeOrder)
	for rs.Next() {
		n++
		switch r := rs.Record.(type) {
		case *RecordAuxtrace:
			aux = r
		case *RecordAuxtraceInfo:
			info = r
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 9 || aux == nil || info == nil {
		t.Fatalf("read %d records, aux %v info %v", n, aux, info)
	}
	padded := append(append([]byte(nil), psbPlus...), make([]byte, 5)...)
	if !bytes.Equal(aux.Data, padded) || aux.AuxSize != 24 || aux.TID != 4242 || aux.CPU != -1 {
		t.Errorf("AUXTRACE: %+v", aux)
	}
	lazy := make([]byte, aux.AuxSize)
	if _, err := f.ReaderAt().ReadAt(lazy, aux.DataOffset); err != nil || !bytes.Equal(lazy, padded) {
		t.Errorf("lazy read at DataOffset %#x: %v %x", aux.DataOffset, err, lazy)
	}
	p, err := ParseIntelPTInfo(info.Priv)
	if err != nil || p.PMUType != 8 || p.TSCBit != 1<<10 {
		t.Errorf("intel pt info: %+v %v", p, err)
	}
	fs, err := f.Features()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.AuxtraceIndex) != 1 || fs.AuxtraceIndex[0].Offset != aux.Offset || fs.AuxtraceIndex[0].Size != 48 {
		t.Errorf("auxtrace index %+v, record at %#x", fs.AuxtraceIndex, aux.Offset)
	}
	if f.Attrs[0].Name != "intel_pt//u" || f.Attrs[1].Name != "dummy:u" {
		t.Errorf("names %q %q", f.Attrs[0].Name, f.Attrs[1].Name)
	}

	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not installed: cannot check that perf reads the file")
	}
	run := func(args ...string) (string, string) {
		cmd := exec.Command(perf, append(args, "-i", path)...)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("perf %v: %v\n%s", args, err, stderr.String())
		}
		return out.String(), stderr.String()
	}
	out, stderr := run("script", "--show-task-events", "--show-mmap-events")
	if strings.TrimSpace(stderr) != "" {
		t.Errorf("perf script warned:\n%s", stderr)
	}
	for _, want := range []string{"PERF_RECORD_COMM exec: prog:4242/4242", "PERF_RECORD_MMAP2 4242/4242: [0x401000(0x1000) @ 0x1000 08:01 1234 0]: r-xp /usr/bin/prog", "PERF_RECORD_EXIT(4242:4242):(4242:4242)"} {
		if !strings.Contains(out, want) {
			t.Errorf("perf script output lacks %q:\n%s", want, out)
		}
	}
	out, stderr = run("report", "--header-only")
	if strings.TrimSpace(stderr) != "" {
		t.Errorf("perf report --header-only warned:\n%s", stderr)
	}
	for _, want := range []string{"# hostname : testhost", "# event : name = intel_pt//u, , id = { 1 }, type = 8", "# pmu mappings: software = 1, intel_pt = 8"} {
		if !strings.Contains(out, want) {
			t.Errorf("perf report --header-only lacks %q:\n%s", want, out)
		}
	}
	out, _ = run("report", "-D")
	for _, want := range []string{"PERF_RECORD_AUXTRACE size: 0x18  offset: 0  ref: 0x1234  idx: 0  tid: 4242  cpu: -1", "PSB", "PSBEND"} {
		if !strings.Contains(out, want) {
			t.Errorf("perf report -D lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("perf report -D:\n%s", out)
	}
}

// TestLazyAux reads an AUXTRACE buffer lazily through a ReaderAt.
func TestLazyAux(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pt.data")
	trace := bytes.Repeat(psbPlus, 10000) // 190 kB: more than the read buffer
	writeIntelPT(t, path, trace)
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := New(fh)
	if err != nil {
		t.Fatal(err)
	}
	rs := f.Records(FileOrder)
	rs.LazyAux = true
	n, found := 0, false
	for rs.Next() {
		n++
		if a, ok := rs.Record.(*RecordAuxtrace); ok {
			found = true
			if a.Data != nil {
				t.Errorf("Data read despite LazyAux")
			}
			b := make([]byte, len(trace))
			if _, err := f.ReaderAt().ReadAt(b, a.DataOffset); err != nil || !bytes.Equal(b, trace) {
				t.Errorf("lazy read: %v", err)
			}
		}
	}
	if err := rs.Err(); err != nil || !found || n != 9 {
		t.Fatalf("n %d found %v err %v", n, found, err)
	}
}
