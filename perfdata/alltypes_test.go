package perfdata

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// allSampleTypes sets every sample_type bit perfdata decodes (WEIGHT and
// WEIGHT_STRUCT are exclusive; IDENTIFIER and ID both hold the id).
const allSampleTypes = SampleFormatIP | SampleFormatTID | SampleFormatTime | SampleFormatAddr |
	SampleFormatRead | SampleFormatCallchain | SampleFormatID | SampleFormatCPU | SampleFormatPeriod |
	SampleFormatStreamID | SampleFormatRaw | SampleFormatBranchStack | SampleFormatRegsUser |
	SampleFormatStackUser | SampleFormatWeightStruct | SampleFormatDataSrc | SampleFormatIdentifier |
	SampleFormatTransaction | SampleFormatRegsIntr | SampleFormatPhysAddr | SampleFormatAux |
	SampleFormatCgroup | SampleFormatDataPageSize | SampleFormatCodePageSize

// allRecords returns one record of every type the Writer writes, using
// attr a (id 7) for the sample_id fields.
func allRecords() []Record {
	sid := SampleID{Format: SampleFormatTID | SampleFormatTime | SampleFormatID | SampleFormatStreamID | SampleFormatCPU | SampleFormatIdentifier,
		PID: 10, TID: 11, Time: 1000, ID: 7, StreamID: 8, CPU: 1}
	rc := func(misc uint16, t uint64) RecordCommon {
		s := sid
		s.Time = t
		return RecordCommon{Misc: misc, SampleID: s}
	}
	s := &RecordSample{RecordCommon: rc(MiscUser|MiscExactIP, 999), IP: 0x401000, Addr: 0xdead, Period: 5,
		Read:      ReadValues{TimeEnabled: 100, TimeRunning: 90, Values: []ReadValue{{1, 7, 0}, {2, 9, 1}}},
		Callchain: []uint64{CallchainUser, 0x401000, 0x401234}, Raw: []byte{1, 2, 3, 4, 5},
		BranchHwIdx: 3, BranchStack: []BranchEntry{{0x1, 0x2, 0x3}, {0x4, 0x5, 0x6}},
		RegsUserABI: 2, RegsUser: []uint64{1, 2, 3}, StackUser: bytes.Repeat([]byte{0xaa}, 16), StackUserDynSize: 12,
		Weight: 0x0001000200000003, DataSrc: 0x42, Transaction: 0x11, RegsIntrABI: 2, RegsIntr: []uint64{4, 5},
		PhysAddr: 0x1000, Aux: []byte{9, 9, 9, 9, 9, 9, 9, 9}, Cgroup: 77, DataPageSize: 4096, CodePageSize: 4096}
	return []Record{
		&RecordHeaderAttr{Attr: EventAttr{Type: 1, Size: AttrSize, Config: 9, SampleType: SampleFormatIP}, IDs: []uint64{100}},
		&RecordTimeConv{TimeShift: 31, TimeMult: 123, TimeZero: 456, TimeCycles: 7, TimeMask: 0xffff, CapUserTimeZero: true, Extended: true},
		&RecordAuxtraceInfo{AuxType: AuxtraceIntelPT, Priv: (&IntelPTInfo{PMUType: 8, Filter: "filter a"}).Priv()},
		&RecordIDIndex{Entries: []IDIndexEntry{{ID: 7, Idx: 0, CPU: 1, TID: 11, MachinePID: 1, VCPU: 2}}, HasMachine: true},
		&RecordThreadMap{Entries: []ThreadMapEntry{{PID: 11, Comm: "prog"}}},
		&RecordCPUMap{CPUs: []int{0, 1, 3}},
		&RecordEventUpdate{UpdateType: EventUpdateName, UpdateID: 7, Name: "cycles"},
		&RecordStatConfig{Entries: []StatConfigEntry{{0, 1}, {1, 2}}},
		&RecordStat{StatID: 7, StatCPU: 1, Thread: 0, Val: 10, Ena: 20, Run: 30},
		&RecordStatRound{RoundType: 1, RoundTime: 2},
		&RecordBuildID{RecordCommon: RecordCommon{Misc: MiscUser}, PID: -1, BuildID: []byte{1, 2, 3, 4}, Filename: "/bin/x"},
		&RecordHeaderFeature{Feature: FeatHostname, Data: []byte{4, 0, 0, 0, 'h', 'o', 's', 0}},
		&RecordTracingData{Data: []byte("tracing data"), DataSize: 12},
		&RecordEventType{EventID: 3, Name: "old"},
		&RecordAuxtraceError{ErrType: 1, Code: 8, ErrCPU: 1, ErrPID: 10, ErrTID: 11, Fmt: 2, IP: 0x401000, ErrTime: 5, Msg: "Lost trace data", MachinePID: 3, VCPU: 4},
		&RecordFinishedInit{},
		&RecordComm{RecordCommon: rc(MiscCommExec, 1001), PID: 10, TID: 11, Comm: "prog"},
		&RecordMmap{RecordCommon: rc(MiscUser, 1002), PID: 10, TID: 11, Addr: 0x400000, Len: 0x1000, PgOff: 0, Filename: "/bin/prog"},
		&RecordMmap2{RecordCommon: rc(MiscUser, 1003), PID: 10, TID: 11, Addr: 0x401000, Len: 0x1000, PgOff: 0x1000, Maj: 8, Min: 1, Ino: 5, InoGeneration: 6, Prot: 5, Flags: 2, Filename: "/bin/prog"},
		&RecordMmap2{RecordCommon: rc(MiscUser|MiscMmapBuildID, 1004), PID: 10, TID: 11, Addr: 0x402000, Len: 0x1000, BuildID: bytes.Repeat([]byte{0xcd}, 20), Prot: 5, Flags: 2, Filename: "/bin/prog2"},
		&RecordFork{RecordCommon: rc(0, 1005), PID: 12, PPID: 10, TID: 12, PTID: 11, ForkTime: 1005},
		&RecordExit{RecordCommon: rc(0, 1006), PID: 12, PPID: 10, TID: 12, PTID: 11, ExitTime: 1006},
		&RecordLost{RecordCommon: rc(0, 1007), LostID: 7, Lost: 3},
		&RecordThrottle{RecordCommon: RecordCommon{Type: RecordTypeUnthrottle, SampleID: sid}, ThrottleTime: 5, ThrottleID: 7, ThrottleStreamID: 8},
		&RecordRead{RecordCommon: rc(0, 1008), PID: 10, TID: 11, Values: ReadValues{TimeEnabled: 1, TimeRunning: 2, Values: []ReadValue{{3, 7, 0}, {4, 9, 0}}}},
		s,
		&RecordAux{RecordCommon: rc(0, 1009), AuxOffset: 0, AuxSize: 64, Flags: AuxFlagTruncated},
		&RecordItraceStart{RecordCommon: rc(0, 1010), PID: 10, TID: 11},
		&RecordLostSamples{RecordCommon: rc(0, 1011), Lost: 4},
		&RecordSwitch{RecordCommon: rc(MiscSwitchOut|MiscSwitchOutPreempt, 1012)},
		&RecordSwitch{RecordCommon: rc(0, 1013), CPUWide: true, NextPrevPID: 20, NextPrevTID: 21},
		&RecordNamespaces{RecordCommon: rc(0, 1014), PID: 10, TID: 11, Namespaces: []NamespaceLink{{1, 2}, {3, 4}}},
		&RecordKsymbol{RecordCommon: rc(0, 1015), Addr: 0xffffffff81000000, Len: 100, KsymType: 1, KsymFlags: 0, Name: "bpf_prog_x"},
		&RecordBPFEvent{RecordCommon: rc(0, 1016), BPFType: 1, BPFFlags: 0, BPFID: 42, Tag: [8]byte{1, 2, 3, 4, 5, 6, 7, 8}},
		&RecordCgroup{RecordCommon: rc(0, 1017), CgroupID: 99, Path: "/user.slice"},
		&RecordTextPoke{RecordCommon: rc(0, 1018), Addr: 0xffffffff81000000, Old: []byte{0x0f, 0x1f, 0x44, 0, 0}, New: []byte{0xe8, 1, 2, 3, 4}},
		&RecordAuxOutputHwID{RecordCommon: rc(0, 1019), HwID: 3},
		&RecordAuxtrace{AuxOffset: 0, Reference: 1, Idx: 0, TID: 11, CPU: 1, Data: bytes.Repeat([]byte{0x55}, 64)},
		&RecordFinishedRound{},
	}
}

// TestRoundTripAllTypes writes one record of every type with a sample_type
// holding every field and reads them back unchanged.
func TestRoundTripAllTypes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "all.data")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	attr := EventAttr{Type: AttrTypeHardware, SampleType: allSampleTypes, Flags: AttrFlagSampleIDAll,
		ReadFormat:       ReadFormatGroup | ReadFormatID | ReadFormatLost | ReadFormatTotalTimeEnabled | ReadFormatTotalTimeRunning,
		BranchSampleType: BranchSampleHwIndex, SampleRegsUser: 0b111, SampleRegsIntr: 0b11, SampleStackUser: 16}
	if _, err := w.AddAttr(attr, []uint64{7, 9}, "all"); err != nil {
		t.Fatal(err)
	}
	recs := allRecords()
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			t.Fatalf("%T: %v", r, err)
		}
	}
	fs := testFeatures()
	fs.GroupDesc = []GroupDesc{{Name: "g", Leader: 0, NrMembers: 1}}
	fs.Cache = []CacheLevel{{Level: 1, Line: 64, Sets: 64, Ways: 8, Type: "Data", Size: "32K", Map: "0"}}
	fs.SampleTime = [2]uint64{1, 2}
	fs.MemTopology = MemTopology{Version: 1, BlockSize: 1 << 27, Nodes: []MemNode{{Node: 0, Size: 128, Bitmap: []uint64{0xff, 0}}}}
	fs.ClockID = 1
	fs.Compressed = Compression{Version: 0, Type: 1, Level: 1, Ratio: 3, MmapLen: 4096}
	fs.CPUPMUCaps = []PMUCap{{"branches", "32"}}
	fs.ClockData = ClockData{Version: 1, ClockID: 1, WallNS: 2, ClockNS: 3}
	fs.HybridTopology = []HybridNode{{"cpu_core", "0-1"}}
	fs.PMUCaps = []PMUCaps{{PMU: "cpu_core", Caps: []PMUCap{{"max_precise", "3"}}}}
	fs.NUMATopology = []NUMANode{{Node: 0, MemTotal: 10, MemFree: 5, CPUs: "0-1"}}
	fs.CPUTopology = CPUTopology{CoreSiblings: []string{"0-1"}, ThreadSiblings: []string{"0", "1"},
		CPUs: []CPUTopologyEntry{{0, 0}, {1, 0}}, DieSiblings: []string{"0-1"}, DieIDs: []uint32{0, 0}}
	// BPF_BTF as process_bpf_btf reads it: one entry (id 5, 2 bytes).
	fs.Raw = map[Feature][]byte{FeatStat: {}, FeatBPFBTF: {1, 0, 0, 0, 5, 0, 0, 0, 2, 0, 0, 0, 9, 9}}
	for _, f := range []Feature{FeatGroupDesc, FeatCache, FeatSampleTime, FeatMemTopology, FeatClockID, FeatCompressed,
		FeatCPUPMUCaps, FeatClockData, FeatHybridTopology, FeatPMUCaps, FeatNUMATopology, FeatCPUTopology, FeatStat, FeatBPFBTF, FeatBranchStack, FeatDirFormat} {
		fs.Set(f)
	}
	fs.Raw[FeatBranchStack] = []byte{}
	fs.DirFormat = 1
	w.Features = fs
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"mmap", "readerat"} {
		var f *File
		if mode == "mmap" {
			f, err = Open(path)
		} else {
			f, err = New(bytes.NewReader(b))
		}
		if err != nil {
			t.Fatal(err)
		}
		got := readAll(t, f)
		if len(got) != len(recs) {
			t.Fatalf("%s: %d records, want %d", mode, len(got), len(recs))
		}
		for i := range got {
			g, want := normalize(got[i]), normalize(recs[i])
			want.Common().Type = recordTypeOf(want)
			want.Common().Size = g.Common().Size
			if want.Common().Type.IsUser() {
				want.Common().SampleID = SampleID{}
			} else {
				want.Common().Attr = &Attr{Index: 0}
			}
			switch r := want.(type) {
			case *RecordBuildID:
				r.Misc |= 1 << 15
			case *RecordEventUpdate:
				r.Data = []byte("cycles\x00\x00") // the raw payload
			case *RecordAuxtrace:
				r.AuxSize = uint64(len(r.Data))
			case *RecordSample:
				// Where the decoder found the user stack (perf's
				// user_stack.offset), which a writer does not set.
				r.StackUserOffset = g.(*RecordSample).StackUserOffset
			}
			if !reflect.DeepEqual(g, want) {
				t.Errorf("%s: record %d:\n got %+v\nwant %+v", mode, i, g, want)
			}
		}
		gf, err := f.Features()
		if err != nil {
			t.Fatal(err)
		}
		want := fs
		want.EventDesc = []EventDesc{{Attr: attr, Name: "all", IDs: []uint64{7, 9}}}
		want.EventDesc[0].Attr.Size = AttrSize
		want.AuxtraceIndex = gf.AuxtraceIndex
		want.Set(FeatEventDesc)
		want.Set(FeatAuxtrace)
		if !reflect.DeepEqual(gf, &want) {
			t.Errorf("%s: features:\n got %+v\nwant %+v", mode, gf, &want)
		}
		f.Close()
	}
}
