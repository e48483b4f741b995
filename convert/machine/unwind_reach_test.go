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
