package perftext

import (
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// TestAppendEvent checks AppendEvent's text against perf_event__fprintf's
// formats (util/event.c) for records the recordings here do not have.
func TestAppendEvent(t *testing.T) {
	common := func(typ perfdata.RecordType, misc uint16) perfdata.RecordCommon {
		return perfdata.RecordCommon{Type: typ, Misc: misc}
	}
	ns := make([]perfdata.NamespaceLink, 7)
	for i := range ns {
		ns[i] = perfdata.NamespaceLink{Dev: 4, Ino: uint64(0xf0000000 + i)}
	}
	poke := make([]byte, 18)
	for i := range poke {
		poke[i] = byte(i)
	}
	for _, c := range []struct {
		r    perfdata.Record
		sym  string
		want string
	}{
		{&perfdata.RecordComm{RecordCommon: common(perfdata.RecordTypeComm, perfdata.MiscCommExec), PID: 5, TID: 6, Comm: "ls"},
			"", "PERF_RECORD_COMM exec: ls:5/6\n"},
		{&perfdata.RecordExit{RecordCommon: common(perfdata.RecordTypeExit, 0), PID: 5, TID: 6, PPID: 1, PTID: 1},
			"", "PERF_RECORD_EXIT(5:6):(1:1)\n"},
		{&perfdata.RecordMmap{RecordCommon: common(perfdata.RecordTypeMmap, perfdata.MiscMmapData), PID: -1, Addr: 0x1000, Len: 0x2000, Filename: "x"},
			"", "PERF_RECORD_MMAP -1/0: [0x1000(0x2000) @ 0]: r x\n"},
		{&perfdata.RecordMmap2{RecordCommon: common(perfdata.RecordTypeMmap2, perfdata.MiscMmapBuildID), PID: 3, TID: 3, Addr: 0x400000,
			Len: 0x1000, PgOff: 0x1000, BuildID: []byte{0xab, 0x01}, Prot: 5, Flags: 1, Filename: "/bin/x"},
			"", "PERF_RECORD_MMAP2 3/3: [0x400000(0x1000) @ 0x1000 <ab01>]: r-xs /bin/x\n"},
		{&perfdata.RecordSwitch{RecordCommon: common(perfdata.RecordTypeSwitchCPUWide, perfdata.MiscSwitchOut|perfdata.MiscSwitchOutPreempt),
			CPUWide: true, NextPrevPID: 12, NextPrevTID: 13},
			"", "PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:    12/13   \n"},
		{&perfdata.RecordNamespaces{RecordCommon: common(perfdata.RecordTypeNamespaces, 0), PID: 1, TID: 2, Namespaces: ns}, "",
			"PERF_RECORD_NAMESPACES 1/2 - nr_namespaces: 7\n\t\t[0/net: 4/0xf0000000, 1/uts: 4/0xf0000001, 2/ipc: 4/0xf0000002, 3/pid: 4/0xf0000003, " +
				"\n\t\t 4/user: 4/0xf0000004, 5/mnt: 4/0xf0000005, 6/cgroup: 4/0xf0000006]\n"},
		{&perfdata.RecordLost{RecordCommon: common(perfdata.RecordTypeLost, 0), LostID: 9, Lost: 42}, "", "PERF_RECORD_LOST lost 42\n"},
		{&perfdata.RecordKsymbol{RecordCommon: common(perfdata.RecordTypeKsymbol, 0), Addr: 0xffffffffc0000000, Len: 88, KsymType: 1,
			KsymFlags: 0, Name: "bpf_prog_x"}, "", "PERF_RECORD_KSYMBOL addr ffffffffc0000000 len 88 type 1 flags 0x0 name bpf_prog_x\n"},
		{&perfdata.RecordBPFEvent{RecordCommon: common(perfdata.RecordTypeBPFEvent, 0), BPFType: 1, BPFID: 77}, "",
			"PERF_RECORD_BPF_EVENT type 1, flags 0, id 77\n"},
		{&perfdata.RecordTextPoke{RecordCommon: common(perfdata.RecordTypeTextPoke, 0), Addr: 0xffffffff81000010, Old: poke[:5], New: poke},
			"fn+0x10", "PERF_RECORD_TEXT_POKE ffffffff81000010 fn+0x10 old len 5 new len 18\n" +
				"            Old bytes: 00 01 02 03 04\n" +
				"            New bytes: 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f\n" +
				"            New bytes: 10 11\n"},
		{&perfdata.RecordAux{RecordCommon: common(perfdata.RecordTypeAux, 0), AuxOffset: 0, AuxSize: 0x40, Flags: perfdata.AuxFlagTruncated | perfdata.AuxFlagPartial},
			"", "PERF_RECORD_AUX offset: 0 size: 0x40 flags: 0x5 [TP]\n"},
	} {
		var sym func(uint64) string
		if c.sym != "" {
			sym = func(uint64) string { return c.sym }
		}
		if got := string(AppendEvent(nil, c.r, sym)); got != c.want {
			t.Errorf("%T:\n got %q\nwant %q", c.r, got, c.want)
		}
	}
}
