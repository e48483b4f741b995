package runner

import (
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// TestMiscAndRegs compares the misc column (the cpumode letters of each
// sample and the MMAP data, COMM exec and switch-out letters of side-band
// records) and the iregs and uregs fields with perf script, on a recording
// written with every cpumode and both register dumps.
func TestMiscAndRegs(t *testing.T) {
	need(t, "perf")
	data := filepath.Join(t.TempDir(), "regs.data")
	w, err := perfdata.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	attr := perfdata.EventAttr{Type: 1, SamplePeriod: 1000,
		Flags: perfdata.AttrFlagSampleIDAll | perfdata.AttrFlagContextSwitch,
		SampleType: perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime |
			perfdata.SampleFormatPeriod | perfdata.SampleFormatRegsUser | perfdata.SampleFormatRegsIntr,
		SampleRegsUser: 0xff0fff, SampleRegsIntr: 1<<8 | 1<<7 | 1<<0 | 1<<33 | 1<<32}
	if _, err := w.AddAttr(attr, []uint64{1}, "cpu-clock"); err != nil {
		t.Fatal(err)
	}
	sid := func(tm uint64) perfdata.SampleID { return perfdata.SampleID{PID: 9, TID: 9, Time: tm} }
	user := make([]uint64, 20)
	for i := range user {
		user[i] = uint64(0x1000 * (i + 1))
	}
	recs := []perfdata.Record{
		&perfdata.RecordComm{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscCommExec, SampleID: sid(10)},
			PID: 9, TID: 9, Comm: "prog"},
		&perfdata.RecordMmap2{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser | perfdata.MiscMmapData, SampleID: sid(11)},
			PID: 9, TID: 9, Addr: 0x600000, Len: 0x1000, Prot: 3, Flags: 2, Filename: "/tmp/data"},
		&perfdata.RecordSwitch{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeSwitch,
			Misc: perfdata.MiscSwitchOut | perfdata.MiscSwitchOutPreempt, SampleID: sid(12)}},
		&perfdata.RecordSwitch{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeSwitch, SampleID: sid(13)}},
	}
	for i, mode := range []uint16{1, 2, 3, 4, 5, 2 | 1<<14, 0} {
		s := &perfdata.RecordSample{RecordCommon: perfdata.RecordCommon{Misc: mode, SampleID: sid(uint64(100 + i))},
			IP: 0x400000 + uint64(i), Period: 1000, RegsUserABI: 2, RegsUser: user,
			RegsIntrABI: uint64(2 * (i % 2)), RegsIntr: []uint64{1, 2, 3, 4, 5}}
		if i%2 == 0 {
			s.RegsIntr = nil
		}
		recs = append(recs, s)
	}
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	compare(t, data, "-F", "tid,misc,time,event,ip,iregs,uregs")
	compare(t, data, "-F", "+misc")
	compare(t, data, "--show-task-events", "--show-mmap-events", "--show-switch-events", "-F", "comm,tid,misc,time")
}
