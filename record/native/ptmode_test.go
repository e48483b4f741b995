package native

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// TestPTAttrModes checks the intel_pt and tracking attrs and the
// AUXTRACE_INFO of each mode against perf record's intel_pt_recording_options
// and intel_pt_info_fill, on the sysfs files in testdata.
func TestPTAttrModes(t *testing.T) {
	pmu, err := LoadPMU(testSysfs(), "intel_pt")
	if err != nil {
		t.Fatal(err)
	}
	const (
		inherit = perfdata.AttrFlagInherit
		exclK   = perfdata.AttrFlagExcludeKernel
		exclU   = perfdata.AttrFlagExcludeUser
		swtch   = perfdata.AttrFlagContextSwitch
	)
	tests := []struct {
		name      string
		event     string
		m         PTMode
		set, clr  perfdata.AttrFlags // on the intel_pt attr
		cpu       bool               // CPU in samples
		dswitch   bool               // context switches on the tracking attr
		watermark uint32
		sched     uint64 // have_sched_switch
		perCPU    uint64
		snapshot  uint64
	}{
		{"default", "intel_pt//u", PTMode{AuxPages: 1024}, inherit | exclK, exclU, true, true, 1 << 20, 2, 1, 0},
		{"per-thread", "intel_pt//u", PTMode{Target: Target{PerThread: true}, AuxPages: 1024}, exclK, inherit | exclU, false, false, 1 << 20, 0, 0, 0},
		{"-a kernel+user", "intel_pt//", PTMode{Target: Target{AllCPUs: true}, AuxPages: 32}, inherit, exclK | exclU, true, true, 32 << 10, 3, 1, 0},
		{"-C kernel", "intel_pt//k", PTMode{Target: Target{CPUs: []int{1}}, AuxPages: 32}, inherit | exclU, exclK, true, true, 32 << 10, 3, 1, 0},
		{"snapshot", "intel_pt//u", PTMode{Snapshot: true, AuxPages: 1024}, inherit | exclK, exclU, true, true, 0, 2, 1, 1},
		{"snapshot per-thread", "intel_pt/cyc/u", PTMode{Target: Target{PerThread: true}, Snapshot: true, AuxPages: 1024}, exclK, inherit, false, false, 0, 0, 0, 1},
	}
	for _, tc := range tests {
		tc.m.PageSize = 4096
		ev, err := ParseEvent(tc.event)
		if err != nil {
			t.Fatal(err)
		}
		pt, dummy, err := PTAttrs(pmu, ev, tc.m)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if pt.Flags&tc.set != tc.set || pt.Flags&tc.clr != 0 {
			t.Errorf("%s: intel_pt flags %#x, want %#x set, %#x clear", tc.name, pt.Flags, tc.set, tc.clr)
		}
		if pt.Flags&inherit != dummy.Flags&inherit || dummy.Flags&exclU != 0 {
			t.Errorf("%s: tracking flags %#x vs intel_pt %#x", tc.name, dummy.Flags, pt.Flags)
		}
		if got := pt.SampleType&perfdata.SampleFormatCPU != 0; got != tc.cpu || dummy.SampleType != pt.SampleType {
			t.Errorf("%s: sample types %#x / %#x, CPU want %v", tc.name, pt.SampleType, dummy.SampleType, tc.cpu)
		}
		if pt.SampleType&perfdata.SampleFormatIdentifier == 0 || pt.SamplePeriod != 1 || pt.Flags&perfdata.AttrFlagFreq != 0 {
			t.Errorf("%s: intel_pt attr %+v", tc.name, pt)
		}
		if got := dummy.Flags&swtch != 0; got != tc.dswitch {
			t.Errorf("%s: tracking context_switch %v", tc.name, got)
		}
		if pt.AuxWatermark != tc.watermark || KernelAttr(pt).Aux_watermark != tc.watermark {
			t.Errorf("%s: aux_watermark %d, want %d", tc.name, pt.AuxWatermark, tc.watermark)
		}
		info := PTInfo(pmu, perfdata.RecordTimeConv{TimeMult: 1, CapUserTimeZero: true}, tc.m, fakeCPUID(0x14, 0, 0))
		if info.HaveSchedSwitch != tc.sched || info.PerCPUMmaps != tc.perCPU || info.SnapshotMode != tc.snapshot ||
			info.TSCCTCRatioN != 0 || info.TSCCTCRatioD != 0 {
			t.Errorf("%s: info %+v", tc.name, info)
		}
		// The info round-trips through the AUXTRACE_INFO private words.
		back, err := perfdata.ParseIntelPTInfo(info.Priv())
		if err != nil || back != info {
			t.Errorf("%s: info round trip %+v %v", tc.name, back, err)
		}
	}
	if _, _, err := PTAttrs(pmu, Event{PMU: "intel_pt"}, PTMode{Target: Target{PerThread: true, CPUs: []int{0}}}); err == nil {
		t.Error("--per-thread with -C accepted")
	}
}

// snapRing is an overwrite-mode AUX area of size bytes.
func snapRing(size int) (*Ring, []byte, []byte) {
	meta := make([]byte, 4096)
	aux := make([]byte, size)
	return NewRing(meta, make([]byte, 64), aux), meta, aux
}

// writeAux writes n bytes of stream position pos.. into aux as the kernel
// does in overwrite mode (wrapping), and sets aux_head to the offset.
func writeAux(meta, aux []byte, pos, n uint64) uint64 {
	size := uint64(len(aux))
	for i := uint64(0); i < n; i++ {
		aux[(pos+i)%size] = byte(pos+i)%251 + 1 // never 0
	}
	pos += n
	binary.LittleEndian.PutUint64(meta[pageAuxHead:], pos%size)
	return pos
}

func stream(from, to uint64) []byte {
	var b []byte
	for p := from; p < to; p++ {
		b = append(b, byte(p)%251+1)
	}
	return b
}

func TestAuxSnapshot(t *testing.T) {
	const size = 16 << 10
	r, meta, aux := snapRing(size)
	var s AuxSnapshot
	take := func(limit uint64) ([]byte, uint64) {
		var got []byte
		first := uint64(1 << 63)
		n, err := r.ReadAuxSnapshot(&s, limit, func(d []byte, off uint64) error {
			if first == 1<<63 {
				first = off
			} else if off != first+uint64(len(got)) {
				t.Errorf("second part at %d, want %d", off, first+uint64(len(got)))
			}
			got = append(got, d...)
			return nil
		})
		if err != nil || n != uint64(len(got)) {
			t.Fatalf("n=%d len=%d err=%v", n, len(got), err)
		}
		return got, first
	}
	// Nothing written: nothing taken.
	if got, _ := take(0); len(got) != 0 {
		t.Fatalf("empty area gave %d bytes", len(got))
	}
	// 5000 bytes, not wrapped: all of them, at offset 0.
	pos := writeAux(meta, aux, 0, 5000)
	if got, off := take(0); !bytes.Equal(got, stream(0, 5000)) || off != 0 {
		t.Fatalf("first snapshot: %d bytes at %d", len(got), off)
	}
	// 3000 more: only the new ones.
	pos = writeAux(meta, aux, pos, 3000)
	if got, off := take(0); !bytes.Equal(got, stream(5000, 8000)) || off != 5000 {
		t.Fatalf("second snapshot: %d bytes at %d", len(got), off)
	}
	if s.Wrapped() {
		t.Fatal("wrapped too early")
	}
	// A limit keeps the newest bytes.
	pos = writeAux(meta, aux, pos, 2000)
	if got, off := take(500); !bytes.Equal(got, stream(9500, 10000)) || off != 9500 {
		t.Fatalf("limited snapshot: %d bytes at %d", len(got), off)
	}
	// Past the end (the last 4 KiB become non-zero): wrapped, and from now
	// on every snapshot is the whole area ending at head, in order.
	pos = writeAux(meta, aux, pos, 12345)
	got, _ := take(0)
	if !s.Wrapped() || !bytes.Equal(got, stream(pos-size, pos)) {
		t.Fatalf("wrapped snapshot: %d bytes, wrapped %v", len(got), s.Wrapped())
	}
	pos = writeAux(meta, aux, pos, 100)
	if got, _ := take(0); !bytes.Equal(got, stream(pos-size, pos)) {
		t.Fatalf("second wrapped snapshot: %d bytes", len(got))
	}
	// aux_tail is never written in overwrite mode.
	if tail := binary.LittleEndian.Uint64(meta[pageAuxTail:]); tail != 0 {
		t.Errorf("aux_tail %d", tail)
	}
	// No AUX area at all.
	if n, err := NewRing(make([]byte, 4096), make([]byte, 64), nil).ReadAuxSnapshot(&AuxSnapshot{}, 0, nil); n != 0 || err != nil {
		t.Errorf("no AUX: %d %v", n, err)
	}
}

// TestAuxSnapshotSmall: an area smaller than 4 KiB wraps once any byte is set, as perf's rule takes the whole area then.
func TestAuxSnapshotSmall(t *testing.T) {
	r, meta, aux := snapRing(1024)
	writeAux(meta, aux, 0, 10)
	var s AuxSnapshot
	n, _ := r.ReadAuxSnapshot(&s, 0, func([]byte, uint64) error { return nil })
	if n != 1024 || !s.Wrapped() {
		t.Errorf("read %d, wrapped %v", n, s.Wrapped())
	}
}

// TestRecordPTNoHardware runs RecordPT against the testdata sysfs on a
// machine without Intel PT: the kernel rejects the event, and the error is
// one line naming the event and CPU, with the command killed.
func TestRecordPTNoHardware(t *testing.T) {
	if _, err := os.Stat("/sys/bus/event_source/devices/intel_pt"); err == nil {
		t.Skip("this machine has Intel PT")
	}
	out := filepath.Join(t.TempDir(), "pt.data")
	for _, target := range []Target{{}, {PerThread: true}, {CPUs: []int{0}}} {
		var pid int
		_, err := RecordPT(context.Background(), []string{"sleep", "10"}, PTOptions{Root: testSysfs(), Output: out, Target: target,
			OnStart: func(p int) { pid = p }})
		if err == nil || !strings.Contains(err.Error(), "perf_event_open(intel_pt//u) on ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: error %v", target, err)
		}
		if pid != 0 {
			t.Errorf("%+v: the command was started", target)
		}
	}
	_, err := RecordPT(context.Background(), []string{"true"}, PTOptions{Root: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "--emulate") || strings.Contains(err.Error(), "\n") {
		t.Errorf("no PMU: %v", err)
	}
	_, err = RecordPT(context.Background(), []string{"true"}, PTOptions{Root: testSysfs(), AuxPages: 3})
	if err == nil || !strings.Contains(err.Error(), "powers of two") {
		t.Errorf("3 AUX pages: %v", err)
	}
}

// psbStream is n bytes of PSB+ (PSB, PSBEND) then PAD packets: valid Intel
// PT that perf's packet dump reads.
func psbStream(n int) []byte {
	var b []byte
	for len(b) < n {
		if len(b)%4096 == 0 && n-len(b) >= 18 {
			for i := 0; i < 8; i++ {
				b = append(b, 0x02, 0x82)
			}
			b = append(b, 0x02, 0x23)
			continue
		}
		b = append(b, 0)
	}
	return b
}

// TestSnapshotFile writes what a snapshot-mode recording writes, from
// synthetic per-CPU overwrite-mode AUX areas, and checks with perf report
// -D that perf reads the AUXTRACE_INFO fields (snapshot mode, per-CPU
// maps, have_sched_switch, TSC:CTC from CPUID leaf 0x15) and each
// snapshot's AUXTRACE record (offset, size, CPU) and its packets.
func TestSnapshotFile(t *testing.T) {
	needPerf(t)
	pmu, err := LoadPMU(testSysfs(), "intel_pt")
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := ParseEvent("intel_pt//u")
	mode := PTMode{Snapshot: true, AuxPages: 2, PageSize: 4096, Target: Target{CPUs: []int{0, 1}}}
	pa, da, err := PTAttrs(pmu, ev, mode)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "snap.data")
	w, err := perfdata.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tc := perfdata.RecordTimeConv{TimeShift: 10, TimeMult: 500, TimeZero: 7, CapUserTimeZero: true, Extended: true}
	if err := writePTHeader(w, "intel_pt//u", pmu, mode, pa, da, []uint64{11, 12}, []uint64{21, 22}, tc, fakeCPUID(0x1b, 2, 188)); err != nil {
		t.Fatal(err)
	}
	// CPU 0 not wrapped (3000 bytes), CPU 1 wrapped (8192-byte area).
	src := psbStream(20000)
	type cpuRing struct {
		r    *Ring
		meta []byte
		aux  []byte
		s    AuxSnapshot
	}
	var rings []*cpuRing
	for _, n := range []int{3000, 12000} {
		r, meta, aux := snapRing(8192)
		for i := 0; i < n; i++ {
			aux[i%len(aux)] = src[i]
		}
		binary.LittleEndian.PutUint64(meta[pageAuxHead:], uint64(n%len(aux)))
		rings = append(rings, &cpuRing{r: r, meta: meta, aux: aux})
	}
	var ref uint64
	var total uint64
	for i, cr := range rings {
		n, err := snapshotAux(cr.r, &cr.s, w, uint32(i), -1, int32(i), &ref)
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if total != 3000+8192 {
		t.Errorf("snapshots of %d bytes", total)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("perf", "report", "-D", "-i", path).CombinedOutput()
	if err != nil {
		t.Fatalf("perf report -D: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{
		"PMU Type            8", "Time Shift          10", "Time Muliplier      500", "Time Zero           7",
		"Cap Time Zero       1", "Have sched_switch   3", "Snapshot mode       1", "Per-cpu maps        1",
		"TSC:CTC numerator   188", "TSC:CTC denominator 2", "Max non-turbo ratio 32",
		"size: 0xbb8  offset: 0  ref: 0x1  idx: 0  tid: -1  cpu: 0",
		// Wrapped at 3808 (12000 written): the whole area in one record.
		"size: 0x2000  offset: 0xee0  ref: 0x2  idx: 1  tid: -1  cpu: 1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("perf report -D lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("%s", text)
	}
	// The records hold the stream in order: CPU 0's first 3000 bytes,
	// CPU 1's last 8192.
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := [][]byte{src[:3000], src[12000-8192 : 12000]}
	i := 0
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		if a, ok := rs.Record.(*perfdata.RecordAuxtrace); ok {
			if i >= len(want) || !bytes.Equal(a.Data, want[i]) {
				t.Errorf("AUXTRACE %d: wrong data (%d bytes)", i, len(a.Data))
			}
			i++
		}
	}
	if err := rs.Err(); err != nil || i != 2 {
		t.Errorf("%d AUXTRACE records, %v", i, err)
	}
}
