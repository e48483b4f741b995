package machine

import (
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/convert/unwind"
	"github.com/perfpt/perfpt/perfdata"
)

// TestEHFramePartlyMapped: when the recorded maps hold the search table
// but only the start of .eh_frame (another machine's smaller copy of the
// file), perf's find_proc_info still finds the FDEs that lie in the
// mapped part, reading them with access_mem, and only the others fail;
// perfpt took the whole table as unreadable and stopped every unwind
// through the file (misc/Avyukth_frankentui: the frames under
// /usr/bin/script's main were lost).
func TestEHFramePartlyMapped(t *testing.T) {
	path, err := filepath.Abs("../../testdata/unwind/cwork-dyn")
	if err != nil {
		t.Fatal(err)
	}
	const base = 0x555555554000
	m := New(nil, "")
	// .eh_frame_hdr is at 0x2020-0x206c, .eh_frame at 0x2070-0x2178:
	// map up to 0x2100, past the FDE of 0x1140 (0x2088-0x20a0), short
	// of the one of 0x1090 (0x2150-0x2174).
	m.ProcessMmap(100, 100, base, 0x2100, 0, path, nil, perfdata.MiscUser, false)
	m.ProcessMmap(100, 100, base+0x1000, 0x1000, 0x1000, path, nil, perfdata.MiscUser, true)
	sp := m.Space(m.FindThread(100))
	for _, c := range []struct {
		pc    uint64
		found bool
	}{{0x1150, true}, {0x10a0, false}} {
		tab, bias, ok := sp.Module(base + c.pc)
		if !ok || tab == nil {
			t.Fatalf("Module(%#x): no table", base+c.pc)
		}
		var f unwind.FDE
		err := tab.Find(base+c.pc-bias, &f)
		if (err == nil) != c.found {
			t.Errorf("pc %#x: Find: %v, want found %v", c.pc, err, c.found)
		}
	}
}

// TestEHFrameHdrPartlyMapped: a search table only partly inside the
// recorded maps is read entry by entry, as libunwind's remote_lookup reads
// it through perf's access_mem: a lookup whose binary search probes only
// mapped entries finds its FDE, one that probes an unmapped entry fails
// (ErrTablesUnmapped). The whole table was taken as unreadable. perf 6.1
// unwinds the same way on a real recording whose maps were cut so
// (checked by hand: a --call-graph dwarf recording of 1,500 functions,
// its read-only segment's map moved past the first 512 table entries,
// perf script and perfpt script identical for cuts of 0x800 to 0x3000
// bytes; 3 lines differed before).
func TestEHFrameHdrPartlyMapped(t *testing.T) {
	path, err := filepath.Abs("../../testdata/unwind/cwork-dyn")
	if err != nil {
		t.Fatal(err)
	}
	const base = 0x555555554000
	m := New(nil, "")
	// .eh_frame_hdr's 8 entries are at 0x202c-0x206c (0x1020, 0x1080,
	// 0x1090, 0x1140, 0x1230, 0x1280, 0x12a0, 0x12e0): map from entry 3
	// (0x2044) on, .eh_frame (0x2070-0x2178) whole.
	m.ProcessMmap(100, 100, base, 0x1000, 0, path, nil, perfdata.MiscUser, false)
	m.ProcessMmap(100, 100, base+0x1000, 0x1000, 0x1000, path, nil, perfdata.MiscUser, true)
	m.ProcessMmap(100, 100, base+0x2044, 0xfbc, 0x2044, path, nil, perfdata.MiscUser, false)
	sp := m.Space(m.FindThread(100))
	for _, c := range []struct {
		pc  uint64
		err error
	}{
		{0x12e5, nil},                      // probes entries 4, 6, 7
		{0x1285, nil},                      // 4, 6, 5
		{0x1095, unwind.ErrTablesUnmapped}, // 4, then 2: unmapped
		{0x1145, unwind.ErrTablesUnmapped}, // 4, then 2
	} {
		tab, bias, ok := sp.Module(base + c.pc)
		if !ok || tab == nil {
			t.Fatalf("Module(%#x): no table", base+c.pc)
		}
		var f unwind.FDE
		if err := tab.Find(base+c.pc-bias, &f); err != c.err {
			t.Errorf("pc %#x: Find: %v, want %v", c.pc, err, c.err)
		} else if err == nil && (c.pc < f.Start || c.pc >= f.End) {
			t.Errorf("pc %#x: FDE %#x-%#x", c.pc, f.Start, f.End)
		}
	}
}
