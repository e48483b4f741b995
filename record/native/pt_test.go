package native

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

func TestPTAttrs(t *testing.T) {
	pmu, err := LoadPMU(testSysfs(), "intel_pt")
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := ParseEvent("intel_pt/noretcomp/u")
	pt, dummy, err := PTAttrs(pmu, ev, PTMode{AuxPages: 1024, PageSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if pt.Type != 8 || pt.Config != 1|1<<13|1<<11 || pt.Flags&perfdata.AttrFlagExcludeKernel == 0 ||
		pt.Flags&perfdata.AttrFlagInherit == 0 || pt.SampleType&perfdata.SampleFormatTime == 0 {
		t.Errorf("intel_pt attr %+v", pt)
	}
	if dummy.Config != perfdata.SWDummy || dummy.Flags&perfdata.AttrFlagContextSwitch == 0 || dummy.Flags&perfdata.AttrFlagMmap2 == 0 {
		t.Errorf("dummy attr %+v", dummy)
	}
	ka := KernelAttr(pt)
	if ka.Type != 8 || ka.Config != pt.Config || ka.Bits != uint64(pt.Flags) || ka.Sample_type != uint64(pt.SampleType) {
		t.Errorf("kernel attr %+v", ka)
	}
	info := PTInfo(pmu, perfdata.RecordTimeConv{TimeShift: 31, TimeMult: 123, CapUserTimeZero: true}, PTMode{}, fakeCPUID(0x16, 2, 188))
	want := perfdata.IntelPTInfo{PMUType: 8, TimeShift: 31, TimeMult: 123, CapUserTimeZero: 1, TSCBit: 1 << 10,
		NoRetCompBit: 1 << 11, PerCPUMmaps: 1, MTCBit: 1 << 9, MTCFreqBits: 0xf << 14, CYCBit: 1 << 1, MaxNonTurboRatio: 32,
		HaveSchedSwitch: 2, TSCCTCRatioN: 188, TSCCTCRatioD: 2}
	if info != want {
		t.Errorf("info %+v\nwant %+v", info, want)
	}
}

// TestDrainPT drains a synthetic CPU ring (sideband records and AUX data
// that wraps) into a perf.data and reads it back.
func TestDrainPT(t *testing.T) {
	meta, data := ring(128)
	aux := make([]byte, 64)
	for i := range aux {
		aux[i] = byte(i)
	}
	r := NewRing(meta, data, aux)
	// An ITRACE_START record (pid, tid) with no sample_id, as raw bytes.
	head := putRec(data, 0, uint32(perfdata.RecordTypeItraceStart), []byte{1, 0, 0, 0, 2, 0, 0, 0})
	binary.LittleEndian.PutUint64(meta[pageDataHead:], head)
	binary.LittleEndian.PutUint64(meta[pageAuxTail:], 40)
	binary.LittleEndian.PutUint64(meta[pageAuxHead:], 80) // wraps at 64

	path := filepath.Join(t.TempDir(), "pt.data")
	w, err := perfdata.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddAttr(perfdata.EventAttr{Type: 8, Config: 1 | 1<<13, SamplePeriod: 1}, []uint64{7}, "intel_pt//u"); err != nil {
		t.Fatal(err)
	}
	var ref uint64
	n, err := drainPT(r, w, 3, 1, &ref)
	if err != nil || n != 40 {
		t.Fatalf("drained %d bytes, err %v", n, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []byte
	var offs []uint64
	starts := 0
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		switch rec := rs.Record.(type) {
		case *perfdata.RecordAuxtrace:
			if rec.Idx != 3 || rec.CPU != 1 || rec.TID != -1 {
				t.Errorf("auxtrace %+v", rec)
			}
			got = append(got, rec.Data...)
			offs = append(offs, rec.AuxOffset)
		case *perfdata.RecordItraceStart:
			starts++
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte(nil), aux[40:64]...), aux[0:16]...)
	if !bytes.Equal(got, want) || len(offs) != 2 || offs[0] != 40 || offs[1] != 64 || starts != 1 {
		t.Errorf("got % x at %v (%d itrace starts), want % x at [40 64]", got, offs, starts, want)
	}
}
